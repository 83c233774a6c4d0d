// The workspace's packages as the release checks see them: names, versions, paths and manifests.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The parts of a package.json these checks read. */
export interface PackageManifest {
  readonly name: string;
  readonly version: string;
  readonly private?: boolean | undefined;
  readonly dependencies?: Readonly<Record<string, string>> | undefined;
  readonly peerDependencies?: Readonly<Record<string, string>> | undefined;
  readonly peerDependenciesMeta?: Readonly<Record<string, { readonly optional?: boolean | undefined }>> | undefined;
  readonly devDependencies?: Readonly<Record<string, string>> | undefined;
  readonly optionalDependencies?: Readonly<Record<string, string>> | undefined;
  readonly scripts?: Readonly<Record<string, string>> | undefined;
  readonly exports?: Readonly<Record<string, unknown>> | undefined;
}

export interface WorkspacePackage {
  readonly name: string;
  readonly version: string;
  /** Absolute directory. */
  readonly dir: string;
  /** Directory relative to the workspace root, with forward slashes (`packages/errors`). */
  readonly path: string;
  readonly manifest: PackageManifest;
}

/** The repository root: the nearest folder above this file holding `pnpm-workspace.yaml`. */
export function workspaceRoot(from: string = dirname(fileURLToPath(import.meta.url))): string {
  let dir = resolve(from);
  for (;;) {
    if (existsSync(join(dir, 'pnpm-workspace.yaml'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`no pnpm-workspace.yaml above ${from}`);
    dir = parent;
  }
}

export function readManifest(file: string): PackageManifest {
  return JSON.parse(readFileSync(file, 'utf8')) as PackageManifest;
}

/** Every package of the workspace (`packages/*` and `apps/*`), sorted by path. */
export function workspacePackages(root: string): WorkspacePackage[] {
  const found: WorkspacePackage[] = [];
  for (const group of ['packages', 'apps']) {
    const base = join(root, group);
    if (!existsSync(base)) continue;
    for (const entry of readdirSync(base).sort()) {
      const dir = join(base, entry);
      const file = join(dir, 'package.json');
      if (!statSync(dir).isDirectory() || !existsSync(file)) continue;
      const manifest = readManifest(file);
      found.push({
        name: manifest.name,
        version: manifest.version,
        dir,
        path: relative(root, dir).split('\\').join('/'),
        manifest,
      });
    }
  }
  return found;
}

/** The packages that get published: `packages/*` that are not private. */
export function publishablePackages(root: string): WorkspacePackage[] {
  return workspacePackages(root).filter((pkg) => pkg.path.startsWith('packages/') && pkg.manifest.private !== true);
}

/**
 * The version of `name` that Node would load from `fromDir` (walking up the
 * `node_modules` folders), read from its package.json.
 */
export function installedVersion(fromDir: string, name: string): string {
  let dir = resolve(fromDir);
  for (;;) {
    const file = join(dir, 'node_modules', ...name.split('/'), 'package.json');
    if (existsSync(file)) return readManifest(file).version;
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`${name} is not installed above ${fromDir}`);
    dir = parent;
  }
}

/** `@ext/core` at 0.1.0 -> `ext-core-0.1.0.tgz`, the file name `pnpm pack` and `npm pack` write. */
export function tarballName(name: string, version: string): string {
  return `${name.replace(/^@/, '').replace('/', '-')}-${version}.tgz`;
}

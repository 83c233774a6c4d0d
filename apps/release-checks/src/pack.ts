// Packing the workspace's packages as `pnpm publish` would, and reading what each tarball holds.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { run } from './run.js';
import { readTarball } from './tar.js';
import { tarballName, type PackageManifest, type WorkspacePackage } from './workspace.js';

/** A package as `pnpm pack` wrote it, with what the tarball holds. */
export interface PackedPackage {
  readonly name: string;
  readonly version: string;
  /** Absolute path of the `.tgz`. */
  readonly tarball: string;
  /** Bytes of the `.tgz` (what the registry stores and every install downloads). */
  readonly packedBytes: number;
  /** Bytes of the files once unpacked (the package's own footprint in `node_modules`). */
  readonly unpackedBytes: number;
  readonly files: readonly string[];
  /** `package/package.json` of the tarball, as published. */
  readonly manifestText: string;
  readonly manifest: PackageManifest;
}

/** Reads a tarball `pnpm pack` wrote. */
export function describeTarball(name: string, version: string, tarball: string): PackedPackage {
  const entries = readTarball(readFileSync(tarball));
  const manifestEntry = entries.find((entry) => entry.path === 'package/package.json');
  if (manifestEntry === undefined) throw new Error(`${tarball} has no package/package.json`);
  const manifestText = manifestEntry.content.toString('utf8');
  return {
    name,
    version,
    tarball,
    packedBytes: statSync(tarball).size,
    unpackedBytes: entries.reduce((sum, entry) => sum + entry.size, 0),
    files: entries.map((entry) => entry.path.replace(/^package\//, '')),
    manifestText,
    manifest: JSON.parse(manifestText) as PackageManifest,
  };
}

/**
 * Packs each package with `pnpm pack` (which rewrites `workspace:` ranges
 * to real ones, as `pnpm publish` does) into `destination`. Sequential: pnpm
 * reads the workspace for every pack.
 */
export async function packPackages(
  packages: readonly WorkspacePackage[],
  destination: string,
): Promise<PackedPackage[]> {
  const packed: PackedPackage[] = [];
  for (const pkg of packages) {
    if (!existsSync(join(pkg.dir, 'dist'))) throw new Error(`${pkg.name} has no dist/: build it before packing`);
    await run('pnpm', ['pack', '--pack-destination', destination], { cwd: pkg.dir, timeoutMs: 120_000 });
    const tarball = join(destination, tarballName(pkg.name, pkg.version));
    if (!existsSync(tarball))
      throw new Error(`pnpm pack of ${pkg.name} wrote no ${tarballName(pkg.name, pkg.version)}`);
    packed.push(describeTarball(pkg.name, pkg.version, tarball));
  }
  return packed;
}

/** Every place a `workspace:` range survived in a packed manifest, as `field.name: range`. */
export function workspaceRanges(manifest: PackageManifest): string[] {
  const found: string[] = [];
  for (const field of ['dependencies', 'peerDependencies', 'devDependencies', 'optionalDependencies'] as const) {
    for (const [name, range] of Object.entries(manifest[field] ?? {})) {
      if (range.startsWith('workspace:')) found.push(`${field}.${name}: ${range}`);
    }
  }
  return found;
}

/**
 * `file:` specs of the tarballs of `names` and of every sibling they depend
 * on, transitively: a project that installs one of ours from its tarball
 * gets the siblings it needs (errors reads content-negotiation's entry) from
 * the tarballs too, as the registry will serve them once they are released.
 */
export function tarballDependencies(
  packed: readonly PackedPackage[],
  names: readonly string[],
): Record<string, string> {
  const byName = new Map(packed.map((pkg) => [pkg.name, pkg]));
  const specs: Record<string, string> = {};
  const visit = (name: string): void => {
    const pkg = byName.get(name);
    if (pkg === undefined) throw new Error(`${name} was not packed`);
    if (name in specs) return;
    specs[name] = `file:${pkg.tarball}`;
    for (const sibling of Object.keys(pkg.manifest.dependencies ?? {})) if (byName.has(sibling)) visit(sibling);
  };
  for (const name of names) visit(name);
  return specs;
}

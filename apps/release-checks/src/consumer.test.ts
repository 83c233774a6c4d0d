/**
 * The packed consumer: what a user gets from the registry. Every package is
 * packed with `pnpm pack` (as `pnpm publish` would), then a fresh project
 * outside the workspace installs `@ext/core`, `@ext/errors` and the v2 SDK
 * from those tarballs with plain npm, type-checks a server and a client
 * against them under NodeNext and Bundler resolution, and runs them.
 */
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import semver from 'semver';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { closureBytes, dependencyClosure, directoryBytes } from './footprint.js';
import { importOutcomes, npmInstall, writeProject } from './npm.js';
import { tarballDependencies, workspaceRanges, type PackedPackage } from './pack.js';
import { run, tempDir } from './run.js';
import { renderSizes, replaceMarkedSection, SIZES_SECTION, type SizeRow } from './sizes.js';
import { installedVersion, workspacePackages, workspaceRoot } from './workspace.js';

const APP_DIR = dirname(dirname(fileURLToPath(import.meta.url)));
const ROOT = workspaceRoot();
const FIXTURES = join(APP_DIR, 'fixtures', 'consumer');
const INSTALLED = ['@ext/core', '@ext/errors'];
const SDK_V2 = ['@modelcontextprotocol/server', '@modelcontextprotocol/client'];

const packed = inject('packed');

function packOf(name: string): PackedPackage {
  const found = packed.find((pkg) => pkg.name === name);
  if (found === undefined) throw new Error(`${name} was not packed`);
  return found;
}

/** Every `@ext/<name>` folder under a `node_modules` tree, at any depth. */
function ourInstalledPackages(nodeModules: string): string[] {
  const found: string[] = [];
  const visit = (dir: string): void => {
    if (!existsSync(dir)) return;
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (!entry.isDirectory()) continue;
      if (entry.name.startsWith('@')) {
        for (const scoped of readdirSync(join(dir, entry.name), { withFileTypes: true })) {
          if (!scoped.isDirectory()) continue;
          if (entry.name === '@ext') found.push(`@ext/${scoped.name}`);
          visit(join(dir, entry.name, scoped.name, 'node_modules'));
        }
      } else {
        visit(join(dir, entry.name, 'node_modules'));
      }
    }
  };
  visit(nodeModules);
  return found.sort();
}

const COMPILER_OPTIONS = {
  target: 'ES2023',
  lib: ['ES2023'],
  strict: true,
  types: ['node'],
  // Our declaration files are checked too, as a strict consumer's compiler sees them.
  skipLibCheck: false,
  verbatimModuleSyntax: true,
};

function writeTsconfig(
  dir: string,
  file: string,
  resolution: 'NodeNext' | 'Bundler',
  include: string[],
  emit: boolean,
): void {
  const compilerOptions =
    resolution === 'NodeNext'
      ? { ...COMPILER_OPTIONS, module: 'NodeNext', moduleResolution: 'NodeNext' }
      : { ...COMPILER_OPTIONS, module: 'ESNext', moduleResolution: 'Bundler' };
  const options = emit ? { ...compilerOptions, outDir: 'dist', rootDir: 'src' } : { ...compilerOptions, noEmit: true };
  writeFileSync(join(dir, file), `${JSON.stringify({ compilerOptions: options, include }, null, 2)}\n`);
}

/** Every packed package installed into `dir`, without peers. */
async function installEveryTarball(dir: string): Promise<void> {
  const dependencies: Record<string, string> = {};
  for (const pkg of packed) dependencies[pkg.name] = `file:${pkg.tarball}`;
  writeProject(dir, 'package-sizes', { dependencies });
  await npmInstall(dir, ['--omit=peer']);
}

describe('packed tarballs', () => {
  it('every publishable package was packed, with its dist and without sources or tests', () => {
    const names = workspacePackages(ROOT)
      .filter((pkg) => pkg.path.startsWith('packages/') && pkg.manifest.private !== true)
      .map((pkg) => pkg.name);
    expect(packed.map((pkg) => pkg.name).sort()).toEqual([...names].sort());
    for (const pkg of packed) {
      expect(pkg.files, pkg.name).toContain('package.json');
      expect(
        pkg.files.some((file) => file.startsWith('dist/')),
        pkg.name,
      ).toBe(true);
      expect(
        pkg.files.filter((file) => file.startsWith('src/') || file.endsWith('.test.ts') || file.endsWith('.test.js')),
        pkg.name,
      ).toEqual([]);
    }
  });

  it('no workspace: range survives in any packed package.json', () => {
    for (const pkg of packed) {
      expect(workspaceRanges(pkg.manifest), pkg.name).toEqual([]);
      expect(pkg.manifestText, pkg.name).not.toContain('workspace:');
    }
  });

  it("every range on a sibling package was rewritten to one the sibling's current version satisfies", () => {
    const versions = new Map(packed.map((pkg) => [pkg.name, pkg.version]));
    for (const pkg of packed) {
      for (const field of ['dependencies', 'peerDependencies'] as const) {
        for (const [name, range] of Object.entries(pkg.manifest[field] ?? {})) {
          const version = versions.get(name);
          if (version === undefined) continue;
          expect(semver.validRange(range), `${pkg.name} ${field}.${name}`).not.toBeNull();
          expect(semver.satisfies(version, range), `${pkg.name} ${field}.${name} "${range}" vs ${version}`).toBe(true);
        }
      }
    }
  });
});

describe('a fresh consumer installing @ext/core and @ext/errors from the tarballs', () => {
  const project = tempDir('consumer');
  const dir = project.path;
  const sdkVersion = installedVersion(APP_DIR, '@modelcontextprotocol/server');
  // A second project, every tarball installed without peers, measures each package with what it pulls in.
  const sizesProject = tempDir('sizes');
  let sizesInstalled: Promise<void> | undefined;

  beforeAll(async () => {
    // Installed beside the consumer's project (both wait on the registry and the disk more than on the CPU);
    // the sizes check awaits it, so that a failure is reported there.
    sizesInstalled = installEveryTarball(sizesProject.path);
    sizesInstalled.catch(() => undefined);
    const dependencies: Record<string, string> = {};
    Object.assign(dependencies, tarballDependencies(packed, INSTALLED));
    for (const name of SDK_V2) dependencies[name] = installedVersion(APP_DIR, name);
    dependencies.zod = installedVersion(APP_DIR, 'zod');
    writeProject(dir, 'packed-consumer', {
      dependencies,
      devDependencies: {
        typescript: installedVersion(ROOT, 'typescript'),
        '@types/node': installedVersion(ROOT, '@types/node'),
      },
    });
    await npmInstall(dir);
    mkdirSync(join(dir, 'src'));
    for (const file of ['server.ts', 'client.ts']) copyFileSync(join(FIXTURES, file), join(dir, 'src', file));
    writeTsconfig(dir, 'tsconfig.nodenext.json', 'NodeNext', ['src/server.ts', 'src/client.ts'], true);
    writeTsconfig(dir, 'tsconfig.bundler.json', 'Bundler', ['src/server.ts', 'src/client.ts'], false);
  }, 600_000);

  afterAll(async () => {
    await Promise.allSettled([sizesInstalled]);
    project.remove();
    sizesProject.remove();
  });

  it('installs nothing else of ours: no @ext/* package in node_modules but these and the siblings they depend on', () => {
    const needed = Object.keys(tarballDependencies(packed, INSTALLED)).sort();
    expect(needed).toEqual(['@ext/content-negotiation', '@ext/core', '@ext/errors']);
    expect(ourInstalledPackages(join(dir, 'node_modules'))).toEqual(needed);
    for (const name of INSTALLED) {
      expect(installedVersion(dir, name)).toBe(packOf(name).version);
    }
  });

  it('type-checks and compiles under moduleResolution NodeNext', async () => {
    const result = await run(
      process.execPath,
      [join(dir, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.nodenext.json'],
      {
        cwd: dir,
        allowFailure: true,
      },
    );
    expect(result.stdout + result.stderr).toBe('');
    expect(result.code).toBe(0);
  });

  it('type-checks under moduleResolution Bundler', async () => {
    const result = await run(
      process.execPath,
      [join(dir, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.bundler.json'],
      {
        cwd: dir,
        allowFailure: true,
      },
    );
    expect(result.stdout + result.stderr).toBe('');
    expect(result.code).toBe(0);
  });

  describe.each(['legacy', 'modern'])('a server and a client over stdio, %s era', (era) => {
    it('an extension-aware client gets the structured error', async () => {
      const { stdout } = await run(process.execPath, ['dist/client.js', era, 'errors'], {
        cwd: dir,
        timeoutMs: 60_000,
      });
      const seen = JSON.parse(stdout) as Record<string, unknown>;
      expect(seen).toMatchObject({
        era,
        negotiated: 'io.github.mcp-ext/errors',
        echoed: 'hello',
        failedIsError: true,
        structured: {
          code: 'RATE_LIMIT_EXCEEDED',
          category: 'rate_limited',
          retry_after_seconds: 42,
          message: 'Search quota used up.',
        },
      });
    });

    it('a plain client gets a plain MCP error result and no extension data', async () => {
      const { stdout } = await run(process.execPath, ['dist/client.js', era, 'plain'], { cwd: dir, timeoutMs: 60_000 });
      const seen = JSON.parse(stdout) as Record<string, unknown>;
      expect(seen).toMatchObject({ era, negotiated: null, echoed: 'hello', failedIsError: true, structured: null });
      expect(seen.failedText).toContain('Search quota used up.');
    });
  });

  it('loads every public entry; the v1 adapter alone needs the v1 SDK, which this project did not install', async () => {
    expect(
      await importOutcomes(dir, [
        '@ext/core',
        '@ext/core/sdk-v2',
        '@ext/core/sdk-v2/server',
        '@ext/core/sdk-v2/client',
        '@ext/errors',
        '@ext/errors/server',
        '@ext/errors/client',
        '@ext/core/sdk-v1',
      ]),
    ).toEqual({
      '@ext/core': 'ok',
      '@ext/core/sdk-v2': 'ok',
      '@ext/core/sdk-v2/server': 'ok',
      '@ext/core/sdk-v2/client': 'ok',
      '@ext/errors': 'ok',
      '@ext/errors/server': 'ok',
      '@ext/errors/client': 'ok',
      '@ext/core/sdk-v1': 'ERR_MODULE_NOT_FOUND',
    });
  });

  it('refuses every internal path at run time: the exports map is the contract', async () => {
    const internal = INSTALLED.flatMap((name) =>
      packOf(name)
        .files.filter((file) => file.endsWith('.js') || file.endsWith('.d.ts'))
        .map((file) => `${name}/${file}`),
    );
    internal.push('@ext/core/src/index.ts', '@ext/errors/map', '@ext/core/compose');
    const script = `
      const specifiers = JSON.parse(process.argv[1]);
      const seen = {};
      for (const specifier of specifiers) {
        try { await import(specifier); seen[specifier] = 'loaded'; } catch (error) { seen[specifier] = error.code ?? String(error); }
      }
      console.log(JSON.stringify(seen));
    `;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script, JSON.stringify(internal)], {
      cwd: dir,
    });
    const seen = JSON.parse(stdout) as Record<string, string>;
    expect(Object.keys(seen).length).toBeGreaterThan(10);
    for (const [specifier, outcome] of Object.entries(seen))
      expect(outcome, specifier).toBe('ERR_PACKAGE_PATH_NOT_EXPORTED');
  });

  it.each(['NodeNext', 'Bundler'] as const)(
    'refuses internal paths to the type checker too (%s)',
    async (resolution) => {
      const specifiers = [
        '@ext/core/dist/index.js',
        '@ext/core/dist/compose.js',
        '@ext/errors/dist/server.js',
        '@ext/errors/map',
      ];
      mkdirSync(join(dir, 'internal'), { recursive: true });
      writeFileSync(
        join(dir, 'internal', 'imports.ts'),
        `${specifiers.map((specifier, index) => `import * as internal${index} from '${specifier}';`).join('\n')}\nexport const all = [${specifiers.map((_specifier, index) => `internal${index}`).join(', ')}];\n`,
      );
      writeTsconfig(dir, `tsconfig.internal-${resolution}.json`, resolution, ['internal/imports.ts'], false);
      const result = await run(
        process.execPath,
        [join(dir, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', `tsconfig.internal-${resolution}.json`],
        {
          cwd: dir,
          allowFailure: true,
        },
      );
      expect(result.code).not.toBe(0);
      const failedLines = new Set(
        [...result.stdout.matchAll(/imports\.ts\((\d+),\d+\): error TS2307/g)].map((match) => Number(match[1])),
      );
      expect([...failedLines].sort((a, b) => a - b)).toEqual(specifiers.map((_specifier, index) => index + 1));
    },
  );

  it('renders every package size into the sizes section of BENCHMARKS.md, leaving the other sections alone', async () => {
    await sizesInstalled;
    const rows: SizeRow[] = packed.map((pkg) => {
      const installedDir = join(sizesProject.path, 'node_modules', ...pkg.name.split('/'));
      return {
        name: pkg.name,
        version: pkg.version,
        files: pkg.files.length,
        packedBytes: pkg.packedBytes,
        unpackedBytes: pkg.unpackedBytes,
        withDependenciesBytes: closureBytes(dependencyClosure(installedDir)),
        dependencies: Object.keys(pkg.manifest.dependencies ?? {}).sort(),
      };
    });
    for (const row of rows)
      expect(directoryBytes(join(sizesProject.path, 'node_modules', ...row.name.split('/'))), row.name).toBe(
        row.unpackedBytes,
      );

    const extDirs = new Set<string>();
    for (const name of INSTALLED)
      for (const found of dependencyClosure(join(dir, 'node_modules', ...name.split('/')))) extDirs.add(found);
    const body = renderSizes(
      rows,
      {
        installed: [
          ...INSTALLED,
          ...SDK_V2.map((name) => `${name}@${sdkVersion}`),
          `zod@${installedVersion(APP_DIR, 'zod')}`,
        ],
        extBytes: closureBytes(extDirs),
        totalBytes: directoryBytes(join(dir, 'node_modules'), true),
      },
      new Date().toISOString().slice(0, 10),
    );
    // `pnpm sizes` records them in the tracked BENCHMARKS.md; a test run writes a copy, so it never dirties the tree.
    const tracked = join(ROOT, 'BENCHMARKS.md');
    const file = process.env.RECORD_SIZES === '1' ? tracked : join(sizesProject.path, 'BENCHMARKS.md');
    const before = existsSync(tracked) ? readFileSync(tracked, 'utf8') : '';
    const after = replaceMarkedSection(before, SIZES_SECTION, body);
    writeFileSync(file, after);
    const written = readFileSync(file, 'utf8');
    for (const pkg of packed) expect(written).toContain(`| \`${pkg.name}\` | ${pkg.version} |`);
    const outside = (text: string): string => text.replace(/<!-- sizes:start -->[\s\S]*<!-- sizes:end -->/, '');
    if (before.includes('<!-- sizes:start -->')) expect(outside(written)).toBe(outside(before));
    else expect(written.startsWith(before.trimEnd())).toBe(true);
  }, 600_000);
});

/**
 * The SDK range matrix: the tests of the core and of the extensions run
 * against the lowest and the newest published version inside each SDK peer
 * range the packages declare, so the declared ranges are exactly what is
 * proven. Each run is a fresh npm project outside the workspace: the
 * packages' sources and tests are copied in, sibling packages come from
 * their packed tarballs, the SDKs at the versions under test.
 */
import { copyFileSync, cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import semver from 'semver';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  matrixEntries,
  planSources,
  SDK_PACKAGES,
  declaredSdkRanges,
  type MatrixEntry,
  type SourcePlan,
  EXAMPLES,
} from './matrix.js';
import { npmInstall, publishedVersionsIn, writeProject } from './npm.js';
import { childEnv, run, tempDir } from './run.js';
import { installedVersion, publishablePackages, workspaceRoot, type WorkspacePackage } from './workspace.js';

const ROOT = workspaceRoot();
/**
 * Packages whose tests do not run in the matrix, and why. Every other
 * publishable package does, so a new extension joins it without an edit here.
 */
const NOT_IN_MATRIX: Readonly<Record<string, string>> = {
  '@ext/store-sqlite': 'needs a native build (better-sqlite3); it uses no SDK',
  '@ext/store-redis': 'needs a Redis server; it uses no SDK',
  '@ext/conformance': 'a CLI that depends on the v2 client itself; it tests servers over the wire',
  '@ext/gateway': 'an application that brings its own SDK client and server (exact versions) and a native store',
};
/**
 * Packages whose tests need a newer SDK than the lowest of the declared range,
 * and why; their READMEs say so. They still run against the newest versions.
 */
const NEWER_SDK_ONLY: Readonly<Record<string, string>> = {
  '@ext/tasks':
    '@modelcontextprotocol/server before 2.4 answers tasks/get and tasks/cancel on 2026-07-28 with -32601 before any handler runs',
};
/** Whose sources are also type-checked against each SDK version's declarations. */
const TYPECHECKED = ['@ext/core', '@ext/errors'];

const packed = inject('packed');
const publishable = publishablePackages(ROOT);
const declared = declaredSdkRanges(publishable);
/** Whose tests run in the matrix: the core (where the adapters live) and every extension. */
const MATRIX_PACKAGES = publishable.map((pkg) => pkg.name).filter((name) => !(name in NOT_IN_MATRIX));

function packageNamed(name: string): WorkspacePackage {
  const found = publishable.find((pkg) => pkg.name === name);
  if (found === undefined) throw new Error(`${name} is not a publishable workspace package`);
  return found;
}

function tarballOf(name: string): string {
  const found = packed.find((pkg) => pkg.name === name);
  if (found === undefined) throw new Error(`${name} was not packed`);
  return found.tarball;
}

const available = new Set(MATRIX_PACKAGES);
const plans = new Map<string, SourcePlan>(
  MATRIX_PACKAGES.map((name) => [name, planSources(packageNamed(name).dir, available)]),
);

/** The published versions inside each declared range, resolved once for the whole file. */
let published: Record<string, string[]> | undefined;
async function publishedVersions(): Promise<Record<string, string[]>> {
  if (published === undefined) {
    const resolved: Record<string, string[]> = {};
    for (const sdk of SDK_PACKAGES) resolved[sdk] = await publishedVersionsIn(sdk, declared.ranges[sdk] ?? '', ROOT);
    published = resolved;
  }
  return published;
}

/** The test tooling and libraries the copied sources import, at the versions the workspace uses. */
function toolingDependencies(): Record<string, string> {
  const names = new Set<string>(['typescript', '@types/node']);
  for (const plan of plans.values()) for (const name of plan.imports) names.add(name);
  const dependencies: Record<string, string> = {};
  for (const name of [...names].sort()) {
    if (name.startsWith('@ext/') || SDK_PACKAGES.includes(name)) continue;
    const owner = MATRIX_PACKAGES.map(packageNamed).find((pkg) => {
      try {
        installedVersion(pkg.dir, name);
        return true;
      } catch {
        // Not reachable from this package; another one of the list may have it.
        return false;
      }
    });
    dependencies[name] = installedVersion(owner?.dir ?? ROOT, name);
  }
  return dependencies;
}

describe('declared SDK peer ranges', () => {
  it('agree across packages, are valid semver and optional', () => {
    expect(declared.problems).toEqual([]);
    expect(Object.keys(declared.ranges).sort()).toEqual([...SDK_PACKAGES].sort());
  });

  it('start at a published version, so the floor the matrix tests is the floor users read', async () => {
    const versions = await publishedVersions();
    for (const sdk of SDK_PACKAGES) {
      const range = declared.ranges[sdk] ?? '';
      expect(versions[sdk]?.[0], `${sdk} ${range}`).toBe(semver.minVersion(range)?.version);
    }
  });

  it('are the ranges the root README states', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const start = readme.indexOf('## Install only what you need');
    expect(start).toBeGreaterThanOrEqual(0);
    const section = readme.slice(start);
    for (const sdk of SDK_PACKAGES) expect(section).toContain(`\`${declared.ranges[sdk] ?? '?'}\``);
  });

  it('the matrix leaves out only sources that need a package it does not install', () => {
    for (const [name, plan] of plans) {
      expect(plan.tests.length, name).toBeGreaterThan(0);
      for (const skipped of plan.skipped)
        expect(skipped.needs, `${name} ${skipped.file}`).toMatch(new RegExp(`^(@ext/store-|${EXAMPLES}$)`));
    }
  });
});

describe.each(['lowest', 'newest'] as const)('the %s supported SDK versions', (label) => {
  const project = tempDir(`sdk-${label}`);
  const dir = project.path;
  let entry: MatrixEntry | undefined;

  beforeAll(async () => {
    entry = matrixEntries(await publishedVersions()).find((candidate) => candidate.label === label);
    if (entry === undefined) throw new Error(`no ${label} matrix entry`);
    console.info(
      `SDK matrix, ${label}: ${Object.entries(entry.versions)
        .map(([name, version]) => `${name}@${version}`)
        .join(', ')}`,
    );
    copyFileSync(join(ROOT, 'tsconfig.base.json'), join(dir, 'tsconfig.base.json'));
    copyFileSync(join(ROOT, 'vitest.shared.ts'), join(dir, 'vitest.shared.ts'));
    for (const name of MATRIX_PACKAGES) {
      const pkg = packageNamed(name);
      const target = join(dir, pkg.path);
      mkdirSync(target, { recursive: true });
      cpSync(join(pkg.dir, 'src'), join(target, 'src'), { recursive: true });
      copyFileSync(join(pkg.dir, 'vitest.config.ts'), join(target, 'vitest.config.ts'));
      const tsconfig = {
        extends: '../../tsconfig.base.json',
        include: ['src', '*.config.ts'],
        exclude: (plans.get(name)?.skipped ?? []).map((skipped) => skipped.file),
      };
      writeFileSync(join(target, 'tsconfig.matrix.json'), `${JSON.stringify(tsconfig, null, 2)}\n`);
    }
    const dependencies: Record<string, string> = { ...toolingDependencies(), ...entry.versions };
    for (const name of MATRIX_PACKAGES) dependencies[name] = `file:${tarballOf(name)}`;
    writeProject(dir, `sdk-matrix-${label}`, { dependencies });
    await npmInstall(dir);
  }, 600_000);

  afterAll(() => {
    project.remove();
  });

  it('installed exactly the SDK versions under test, once each', () => {
    for (const [name, version] of Object.entries(entry?.versions ?? {}))
      expect(installedVersion(dir, name), name).toBe(version);
    expect(Object.keys(entry?.versions ?? {}).sort()).toEqual([...SDK_PACKAGES].sort());
  });

  it.each(TYPECHECKED)('%s type-checks against these SDK declarations', async (name) => {
    const cwd = join(dir, packageNamed(name).path);
    const result = await run(
      process.execPath,
      [join(dir, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.matrix.json'],
      {
        cwd,
        allowFailure: true,
      },
    );
    expect(result.stdout + result.stderr).toBe('');
    expect(result.code).toBe(0);
  });

  const tested = MATRIX_PACKAGES.filter((name) => label === 'newest' || !(name in NEWER_SDK_ONLY));
  it.each(tested)('the tests of %s pass', async (name) => {
    const plan = plans.get(name);
    if (plan === undefined) throw new Error(`no plan for ${name}`);
    const cwd = join(dir, packageNamed(name).path);
    const result = await run(join(dir, 'node_modules', '.bin', 'vitest'), ['run', ...plan.tests], {
      cwd,
      env: childEnv({ CI: 'true' }),
      timeoutMs: 600_000,
      allowFailure: true,
    });
    const output = `${result.stdout}\n${result.stderr}`;
    expect(result.code, output.split('\n').slice(-60).join('\n')).toBe(0);
    expect(output).toMatch(new RegExp(`Test Files\\s+${plan.tests.length} passed`));
  });
});

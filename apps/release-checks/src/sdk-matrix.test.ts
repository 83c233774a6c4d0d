/**
 * The SDK range matrix: the tests of the core and of the extensions run
 * against the lowest and the newest published version inside each SDK peer
 * range the packages declare, so the declared ranges are exactly what is
 * proven. Each run is a fresh npm project outside the workspace: the
 * packages' sources and tests are copied in, sibling packages come from
 * their packed tarballs, the SDKs at the versions under test.
 *
 * Two entries: "lowest" installs every SDK package at the first version
 * its range accepts (`@modelcontextprotocol/sdk` for the v1 adapter, `server`
 * and `client` for the v2 one), "newest" at the last one published. In each,
 * the core and errors sources (tests included) type-check against that
 * version's declarations, and the selected tests of every package pass.
 *
 * Which test files run: those whose outcome can depend on the SDK version,
 * i.e. whose static imports reach an SDK package (`@modelcontextprotocol/*`),
 * type-only imports included: directly, through the package's own files, or
 * through a workspace entry point whose source does, which today means the
 * core's adapters (`@ext/core/sdk-v1`, `@ext/core/sdk-v2`, its `/server` and
 * `/client`) and its testing kit (`@ext/core/testing`), or their files inside
 * the core. A file that starts another program (a child process, a worker)
 * counts too: the scan cannot see what that program loads. `src/sdk-reach.ts`
 * does the scan. Every other test file loads no SDK code, so its result is the
 * same on every SDK version; it runs in the workspace's own tests.
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
import { entrySources, SdkReach } from './sdk-reach.js';
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

const reach = new SdkReach(entrySources(publishable));
/** The test files of each package whose imports reach an SDK (see the top of this file): the ones the matrix runs. */
const selected = new Map<string, readonly string[]>(
  MATRIX_PACKAGES.map((name) => [
    name,
    (plans.get(name)?.tests ?? []).filter((file) => reach.route(join(packageNamed(name).dir, file)) !== undefined),
  ]),
);
/** Test files that exercise an SDK end to end, which the selection must keep: every `e2e.test.ts`, and the core's adapter tests. */
const KNOWN_SDK_TESTS: Readonly<Record<string, readonly string[]>> = {
  '@ext/core': ['src/sdk-v1/adapter.test.ts', 'src/sdk-v2/adapter.test.ts', 'src/sdk-v2/http.test.ts'],
};

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

describe('the test files the matrix runs', () => {
  it.each(MATRIX_PACKAGES)('of %s are some, its end-to-end tests among them', (name) => {
    const tests = plans.get(name)?.tests ?? [];
    const kept = selected.get(name) ?? [];
    const known = [...(KNOWN_SDK_TESTS[name] ?? []), ...tests.filter((file) => /(^|\/)e2e\.test\.ts$/.test(file))];
    expect(known.length, `${name} has no known test of its SDK-facing halves`).toBeGreaterThan(0);
    expect(kept.length).toBeGreaterThan(0);
    for (const file of known) expect(kept, name).toContain(file);
    console.info(`SDK matrix, ${name}: ${kept.length} of ${tests.length} test files reach an SDK`);
  });
});

/** The SDK versions the workspace's own suites run against (the core's development dependencies). */
function workspaceSdkVersions(): Record<string, string> {
  const core = packageNamed('@ext/core');
  return Object.fromEntries(SDK_PACKAGES.map((sdk) => [sdk, installedVersion(core.dir, sdk)]));
}

function describeVersions(versions: Readonly<Record<string, string>>): string {
  return Object.entries(versions)
    .map(([name, version]) => `${name}@${version}`)
    .join(', ');
}

describe.each(['lowest', 'newest'] as const)('the %s supported SDK versions', (label) => {
  const project = tempDir(`sdk-${label}`);
  const dir = project.path;
  let entry: MatrixEntry | undefined;
  /**
   * True when this entry's versions are exactly those the workspace tests
   * with: its own suites (twice, on two Node lines) already ran every test
   * against them, so the entry installs and runs nothing again. A release of
   * any SDK inside the ranges makes "newest" differ, and it runs in full.
   */
  let coveredByWorkspace = false;

  beforeAll(async () => {
    entry = matrixEntries(await publishedVersions()).find((candidate) => candidate.label === label);
    if (entry === undefined) throw new Error(`no ${label} matrix entry`);
    const versions = entry.versions;
    coveredByWorkspace = SDK_PACKAGES.every((sdk) => versions[sdk] === workspaceSdkVersions()[sdk]);
    console.info(
      `SDK matrix, ${label}: ${describeVersions(versions)}${coveredByWorkspace ? ': the versions the workspace tests with, covered by its own suites' : ''}`,
    );
    if (coveredByWorkspace) return;
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

  it('installed exactly the SDK versions under test, once each', ({ skip }) => {
    skip(coveredByWorkspace, 'the versions the workspace tests with');
    for (const [name, version] of Object.entries(entry?.versions ?? {}))
      expect(installedVersion(dir, name), name).toBe(version);
    expect(Object.keys(entry?.versions ?? {}).sort()).toEqual([...SDK_PACKAGES].sort());
  });

  // The type checks and the packages' test runs go two at a time (`maxConcurrency` in vitest.config.ts): a
  // nested vitest uses one worker on a two-core machine, and end-to-end tests wait on sockets and child processes.
  it.concurrent.for(TYPECHECKED)('%s type-checks against these SDK declarations', async (name, { expect, skip }) => {
    skip(coveredByWorkspace, 'the versions the workspace type-checks with');
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
  // A minute past the nested run's own deadline, so that a hung run is killed and its output shown.
  it.concurrent.for(tested)('the tests of %s pass', { timeout: 660_000 }, async (name, { expect, skip }) => {
    skip(coveredByWorkspace, 'the versions the workspace tests with');
    const tests = selected.get(name) ?? [];
    // With no file named, vitest would run them all.
    expect(tests.length).toBeGreaterThan(0);
    const cwd = join(dir, packageNamed(name).path);
    const result = await run(join(dir, 'node_modules', '.bin', 'vitest'), ['run', ...tests], {
      cwd,
      env: childEnv({ CI: 'true' }),
      timeoutMs: 600_000,
      allowFailure: true,
    });
    const output = `${result.stdout}\n${result.stderr}`;
    expect(result.code, output.split('\n').slice(-60).join('\n')).toBe(0);
    expect(output).toMatch(new RegExp(`Test Files\\s+${tests.length} passed`));
  });
});

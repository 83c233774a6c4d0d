/**
 * Independent releases, shown: in a throwaway clone of the repository, a
 * changeset for one package is turned into versions by `changeset version`
 * (the same command the release workflow runs), and only that package, plus
 * the dependents whose declared range it leaves, changes version and
 * CHANGELOG.
 */
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectedReleases, type Bump } from './release-model.js';
import { childEnv, run, tempDir } from './run.js';
import { workspacePackages, workspaceRoot, type WorkspacePackage } from './workspace.js';

const ROOT = workspaceRoot();
const CHANGESET_BIN = join(ROOT, 'node_modules', '@changesets', 'cli', 'bin.js');
const GIT_IDENTITY = [
  '-c',
  'user.name=release-checks',
  '-c',
  'user.email=release-checks@example.invalid',
  '-c',
  'commit.gpgsign=false',
];

function git(cwd: string, ...args: string[]): Promise<string> {
  return run('git', [...GIT_IDENTITY, ...args], { cwd, timeoutMs: 120_000 }).then((result) => result.stdout);
}

/** The files `changeset version` reads and writes, taken from the working tree so uncommitted work is released as it stands. */
function releaseFiles(root: string): string[] {
  const files = ['package.json', 'pnpm-workspace.yaml'];
  for (const entry of readdirSync(join(root, '.changeset'))) files.push(`.changeset/${entry}`);
  for (const pkg of workspacePackages(root)) {
    files.push(`${pkg.path}/package.json`);
    if (existsSync(join(pkg.dir, 'CHANGELOG.md'))) files.push(`${pkg.path}/CHANGELOG.md`);
  }
  return files;
}

function changesetVersion(cwd: string): Promise<unknown> {
  return run(process.execPath, [CHANGESET_BIN, 'version'], { cwd, env: childEnv({ CI: 'true' }), timeoutMs: 120_000 });
}

describe('independent releases in a throwaway clone', () => {
  const clone = tempDir('release');
  const dir = join(clone.path, 'repo');
  let baseline: WorkspacePackage[] = [];

  beforeAll(async () => {
    await run('git', ['clone', '--quiet', '--no-hardlinks', ROOT, dir], { cwd: clone.path, timeoutMs: 120_000 });
    // Uncommitted work is part of what the next release would contain.
    for (const file of releaseFiles(ROOT)) {
      mkdirSync(dirname(join(dir, file)), { recursive: true });
      copyFileSync(join(ROOT, file), join(dir, file));
    }
    for (const entry of readdirSync(join(dir, '.changeset'))) {
      if (!existsSync(join(ROOT, '.changeset', entry))) await git(dir, 'rm', '--quiet', `.changeset/${entry}`);
    }
    // The changelog generator is resolved from the clone; the workspace's install serves it.
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
    writeFileSync(join(dir, '.git', 'info', 'exclude'), 'node_modules\n');
    await git(dir, 'add', '--all');
    await git(dir, 'commit', '--quiet', '--allow-empty', '-m', 'working tree');
    // Whatever is pending is released first, as the next real release would.
    await changesetVersion(dir);
    await git(dir, 'add', '--all');
    await git(dir, 'commit', '--quiet', '--allow-empty', '-m', 'baseline release');
    baseline = workspacePackages(dir);
  }, 300_000);

  afterAll(() => {
    clone.remove();
  });

  it('the baseline release consumed every pending changeset', () => {
    const left = readdirSync(join(dir, '.changeset')).filter(
      (file) => file.endsWith('.md') && file.toLowerCase() !== 'readme.md',
    );
    expect(left).toEqual([]);
  });

  it('no private package was versioned by the baseline release', () => {
    for (const pkg of baseline.filter((candidate) => candidate.manifest.private === true)) {
      const before = workspacePackages(ROOT).find((candidate) => candidate.name === pkg.name);
      expect(pkg.version, pkg.name).toBe(before?.version ?? pkg.version);
    }
  });

  const scenarios: { title: string; bumps: Record<string, Bump>; dependentsKept?: string }[] = [
    { title: 'a patch of @ext/errors changes @ext/errors alone', bumps: { '@ext/errors': 'patch' } },
    {
      title: 'a patch of @ext/core stays inside every dependent range: nothing else moves',
      bumps: { '@ext/core': 'patch' },
      dependentsKept: '@ext/core',
    },
    {
      title: 'a minor of @ext/idempotency moves its dependents only if it leaves their range',
      bumps: { '@ext/idempotency': 'minor' },
    },
    {
      title: 'a minor of @ext/core moves exactly the dependents whose range it leaves',
      bumps: { '@ext/core': 'minor' },
    },
  ];

  it.each(scenarios.map((scenario) => [scenario.title, scenario] as const))(
    '%s',
    async (_title, { bumps, dependentsKept }) => {
      await git(dir, 'reset', '--quiet', '--hard', 'HEAD');
      await git(dir, 'clean', '--quiet', '-fd');
      const summary = `Release check: ${Object.entries(bumps)
        .map(([name, bump]) => `${bump} of ${name}`)
        .join(', ')}.`;
      writeFileSync(
        join(dir, '.changeset', 'release-check.md'),
        `---\n${Object.entries(bumps)
          .map(([name, bump]) => `"${name}": ${bump}`)
          .join('\n')}\n---\n\n${summary}\n`,
      );
      const expected = expectedReleases(
        baseline.map((pkg) => pkg.manifest),
        bumps,
      );

      await changesetVersion(dir);

      const after = new Map(workspacePackages(dir).map((pkg) => [pkg.name, pkg.version]));
      const moved = new Map(
        baseline.filter((pkg) => after.get(pkg.name) !== pkg.version).map((pkg) => [pkg.name, after.get(pkg.name)]),
      );
      console.info(
        `${summary} Released: ${[...moved].map(([name, version]) => `${name} ${baseline.find((pkg) => pkg.name === name)?.version ?? '?'} -> ${version ?? '?'}`).join(', ')}`,
      );
      expect(Object.fromEntries(moved)).toEqual(Object.fromEntries(expected));

      const changed = (await git(dir, 'status', '--porcelain', '--untracked-files=all'))
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => line.slice(3));
      // The changeset itself was never committed, so its removal does not show.
      const allowed = new Set<string>();
      for (const pkg of baseline.filter((candidate) => expected.has(candidate.name))) {
        allowed.add(`${pkg.path}/package.json`);
        allowed.add(`${pkg.path}/CHANGELOG.md`);
      }
      expect(changed.sort()).toEqual([...allowed].sort());
      for (const name of Object.keys(bumps)) {
        const pkg = baseline.find((candidate) => candidate.name === name);
        expect(readFileSync(join(dir, pkg?.path ?? '', 'CHANGELOG.md'), 'utf8')).toContain(summary);
      }
      expect(existsSync(join(dir, '.changeset', 'release-check.md'))).toBe(false);

      if (dependentsKept !== undefined) {
        const dependents = baseline.filter(
          (pkg) =>
            pkg.manifest.private !== true &&
            (pkg.manifest.peerDependencies?.[dependentsKept] ?? pkg.manifest.dependencies?.[dependentsKept]) !==
              undefined,
        );
        // The scenario only shows independence if there are dependents that could have moved.
        expect(dependents.length).toBeGreaterThan(0);
        for (const pkg of dependents) expect(moved.has(pkg.name), pkg.name).toBe(false);
      }
    },
  );
});

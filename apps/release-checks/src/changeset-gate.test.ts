/**
 * The changeset gate (`scripts/check-changesets.mjs`, run first by
 * `pnpm test`): every change under `packages/<name>/src` comes with a
 * changeset naming that package. Exercised here on small throwaway
 * repositories, where each rule can be made to pass and to fail.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { run, tempDir, type RunResult } from './run.js';
import { workspaceRoot } from './workspace.js';

const SCRIPT = join(workspaceRoot(), 'scripts', 'check-changesets.mjs');
const GIT_IDENTITY = [
  '-c',
  'user.name=release-checks',
  '-c',
  'user.email=release-checks@example.invalid',
  '-c',
  'commit.gpgsign=false',
];

let repo: { readonly path: string; remove(): void } | undefined;

function dir(): string {
  if (repo === undefined) throw new Error('no repository');
  return repo.path;
}

function write(file: string, content: string): void {
  mkdirSync(dirname(join(dir(), file)), { recursive: true });
  writeFileSync(join(dir(), file), content);
}

async function git(...args: string[]): Promise<void> {
  await run('git', [...GIT_IDENTITY, ...args], { cwd: dir() });
}

async function commit(message: string): Promise<void> {
  await git('add', '--all');
  await git('commit', '--quiet', '--allow-empty', '-m', message);
}

function gate(args: string[] = [], env: Record<string, string> = {}): Promise<RunResult> {
  return run(process.execPath, [SCRIPT, ...args], {
    cwd: dir(),
    allowFailure: true,
    env: { ...process.env, ...env, CHANGESET_BASE: env.CHANGESET_BASE ?? '' },
  });
}

function addPackage(name: string, options: { private?: boolean } = {}): void {
  write(
    `packages/${name}/package.json`,
    `${JSON.stringify({ name: `@ext/${name}`, version: '0.1.0', private: options.private })}\n`,
  );
  write(`packages/${name}/src/index.ts`, `export const ${name.replace(/-/g, '_')} = 1;\n`);
  write(`packages/${name}/src/index.test.ts`, `// tests of ${name}\n`);
}

function changeset(file: string, names: readonly string[], bump = 'patch'): void {
  write(`.changeset/${file}.md`, `---\n${names.map((name) => `"${name}": ${bump}`).join('\n')}\n---\n\nA change.\n`);
}

beforeEach(async () => {
  repo = tempDir('gate');
  await run('git', ['init', '--quiet', '--initial-branch=main'], { cwd: dir() });
  write('.changeset/config.json', '{}\n');
  write('.gitignore', 'node_modules/\n');
  addPackage('alpha');
  addPackage('beta');
});

afterEach(() => {
  repo?.remove();
  repo = undefined;
});

describe('before the first release (on main)', () => {
  it('fails for every package without a changeset, naming it', async () => {
    changeset('alpha-initial', ['@ext/alpha'], 'minor');
    await commit('packages');
    const result = await gate();
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('@ext/beta');
    expect(result.stderr).not.toContain('- @ext/alpha');
  });

  it('passes once every package has one', async () => {
    changeset('alpha-initial', ['@ext/alpha'], 'minor');
    changeset('beta-initial', ['@ext/beta'], 'minor');
    await commit('packages');
    const result = await gate();
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('nothing was released yet');
  });

  it('accepts unquoted and single-quoted names in the frontmatter', async () => {
    write('.changeset/both.md', "---\n@ext/alpha: minor\n'@ext/beta': patch\n---\n\nBoth.\n");
    await commit('packages');
    expect((await gate()).code).toBe(0);
  });

  it('ignores private packages', async () => {
    changeset('alpha-initial', ['@ext/alpha']);
    changeset('beta-initial', ['@ext/beta']);
    addPackage('internal', { private: true });
    await commit('packages');
    expect((await gate()).code).toBe(0);
  });
});

describe('after a release (on main)', () => {
  beforeEach(async () => {
    changeset('alpha-initial', ['@ext/alpha'], 'minor');
    changeset('beta-initial', ['@ext/beta'], 'minor');
    await commit('packages');
    // What `changeset version` does: the changesets are consumed.
    rmSync(join(dir(), '.changeset', 'alpha-initial.md'));
    rmSync(join(dir(), '.changeset', 'beta-initial.md'));
    await commit('release');
  });

  it('passes with no change since the release', async () => {
    const result = await gate();
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('the last release');
  });

  it('fails for an uncommitted source change without a changeset', async () => {
    write('packages/alpha/src/index.ts', 'export const alpha = 2;\n');
    const result = await gate();
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('@ext/alpha');
    expect(result.stderr).toContain('packages/alpha/src/index.ts');
  });

  it('fails for a committed source change whose changeset names another package', async () => {
    write('packages/alpha/src/new-file.ts', 'export const more = 1;\n');
    changeset('beta-fix', ['@ext/beta']);
    await commit('alpha change, beta changeset');
    const result = await gate();
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('@ext/alpha');
  });

  it('passes when the changeset names the package', async () => {
    write('packages/alpha/src/index.ts', 'export const alpha = 2;\n');
    changeset('alpha-fix', ['@ext/alpha', '@ext/beta']);
    await commit('alpha change');
    expect((await gate()).code).toBe(0);
  });

  it('needs no changeset for a change of tests only', async () => {
    write('packages/beta/src/index.test.ts', '// more tests\n');
    expect((await gate()).code).toBe(0);
  });
});

describe('on a branch', () => {
  beforeEach(async () => {
    changeset('alpha-initial', ['@ext/alpha'], 'minor');
    changeset('beta-initial', ['@ext/beta'], 'minor');
    await commit('packages');
    await git('checkout', '--quiet', '-b', 'feature');
  });

  it('compares with the merge base: a changeset already on main does not cover a new change', async () => {
    write('packages/beta/src/index.ts', 'export const beta = 2;\n');
    await commit('beta change');
    const result = await gate();
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('@ext/beta');
    expect(result.stderr).toContain('merge base with main');
  });

  it('passes with a changeset added on the branch', async () => {
    write('packages/beta/src/index.ts', 'export const beta = 2;\n');
    changeset('beta-fix', ['@ext/beta']);
    await commit('beta change');
    expect((await gate()).code).toBe(0);
  });

  it('takes the base from CHANGESET_BASE or --base when given', async () => {
    write('packages/beta/src/index.ts', 'export const beta = 2;\n');
    await commit('beta change');
    // Against the branch itself there is nothing new.
    expect((await gate(['--base', 'feature'])).code).toBe(0);
    expect((await gate([], { CHANGESET_BASE: 'HEAD' })).code).toBe(0);
    expect((await gate([], { CHANGESET_BASE: 'main' })).code).toBe(1);
    const unknown = await gate(['--base', 'no-such-branch']);
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toContain('no-such-branch');
  });
});

// Every change under packages/<name>/src must come with a changeset that
// names that package (VERSIONING.md, "Changesets"). Exits 1 with one line
// per package that lacks one.
//
// Compared against a base commit:
//   1. `--base <rev>` or the CHANGESET_BASE environment variable, if given
//      (a pull request's CI passes its target branch);
//   2. on a branch that main (or origin/main) does not contain: the merge
//      base with main, i.e. everything the branch adds;
//   3. on main itself: the last release, i.e. the last commit that consumed
//      changesets (`changeset version` deletes them); before the first
//      release, the empty tree, so every package needs a changeset for its
//      first release.
// Uncommitted and untracked files count, so the check can run before a commit.
// Test files (`*.test.ts`) are not part of a package's published code and
// need no changeset. In a shallow clone without a base the history is
// unknown: only uncommitted changes are checked, with a warning.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';

function git(...args) {
  return execFileSync('git', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

function tryGit(...args) {
  try {
    return git(...args);
  } catch {
    // A ref that does not exist, an ancestor check that is false: both mean "no".
    return undefined;
  }
}

function lines(text) {
  return (text ?? '').split('\n').filter((line) => line !== '');
}

function option(name) {
  const index = process.argv.indexOf(name);
  return index === -1 ? undefined : process.argv[index + 1];
}

/** The package names a changeset's frontmatter lists (`"@ext/errors": patch`). */
function changesetPackages(text) {
  const match = /^---\r?\n([\s\S]*?)\r?\n---/.exec(text);
  if (!match) return [];
  const names = [];
  for (const line of match[1].split(/\r?\n/)) {
    const entry = /^\s*(?:"([^"]+)"|'([^']+)'|([^\s:'"]+))\s*:\s*(major|minor|patch|none)\s*$/.exec(line);
    if (entry) names.push(entry[1] ?? entry[2] ?? entry[3]);
  }
  return names;
}

function chooseBase() {
  const given = option('--base') ?? process.env.CHANGESET_BASE;
  if (given) {
    const base = tryGit('merge-base', 'HEAD', given) ?? tryGit('rev-parse', '--verify', `${given}^{commit}`);
    if (!base) throw new Error(`base "${given}" is not a commit of this repository`);
    return { base, why: `merge base with ${given}` };
  }
  const main = ['origin/main', 'main'].find((ref) => tryGit('rev-parse', '--verify', '--quiet', `${ref}^{commit}`));
  const onMain = main === undefined || tryGit('merge-base', '--is-ancestor', 'HEAD', main) !== undefined;
  if (!onMain) return { base: git('merge-base', 'HEAD', main), why: `merge base with ${main}` };
  const release = lines(tryGit('log', '-1', '--format=%H', '--diff-filter=D', '--', ':(glob).changeset/*.md'))[0];
  if (release) return { base: release, why: 'the last release (the last commit that consumed changesets)' };
  if (tryGit('rev-parse', '--is-shallow-repository') === 'true') {
    console.warn(
      'check-changesets: shallow clone and no base given; checking uncommitted changes only (pass --base or fetch the history)',
    );
    return { base: 'HEAD', why: 'HEAD (shallow clone)' };
  }
  return { base: EMPTY_TREE, why: 'the beginning (nothing was released yet)' };
}

function changedFiles(base) {
  const committedAndLocal = lines(git('diff', '--name-only', '--no-renames', base));
  const untracked = lines(git('ls-files', '--others', '--exclude-standard'));
  return [...new Set([...committedAndLocal, ...untracked])].sort();
}

function packageName(dir) {
  const file = join('packages', dir, 'package.json');
  if (!existsSync(file)) return undefined;
  const manifest = JSON.parse(readFileSync(file, 'utf8'));
  return manifest.private ? undefined : manifest.name;
}

function main() {
  process.chdir(git('rev-parse', '--show-toplevel'));
  const { base, why } = chooseBase();
  const files = changedFiles(base);

  const changed = new Map();
  for (const file of files) {
    const match = /^packages\/([^/]+)\/src\/(.+)$/.exec(file);
    if (!match || /\.test\.ts$/.test(match[2])) continue;
    const name = packageName(match[1]);
    if (name === undefined) continue;
    if (!changed.has(name)) changed.set(name, []);
    changed.get(name).push(file);
  }

  const covered = new Set();
  const changesets = files.filter(
    (file) => /^\.changeset\/[^/]+\.md$/.test(file) && !/README\.md$/i.test(file) && existsSync(file),
  );
  for (const file of changesets) for (const name of changesetPackages(readFileSync(file, 'utf8'))) covered.add(name);

  const missing = [...changed.keys()].filter((name) => !covered.has(name)).sort();
  const baseLabel = base === EMPTY_TREE ? 'the empty tree' : base.slice(0, 12);
  if (missing.length > 0) {
    for (const name of missing) {
      const sample = changed.get(name);
      console.error(
        `- ${name}: ${sample.length} changed file(s) under src/ (e.g. ${sample[0]}) but no changeset names it`,
      );
    }
    console.error(`\nCompared with ${baseLabel}, ${why}. Add one with \`pnpm changeset\` (see VERSIONING.md).`);
    process.exit(1);
  }
  console.log(
    `changesets: ok (${changed.size} changed package(s), ${changesets.length} changeset(s), compared with ${baseLabel}, ${why})`,
  );
}

main();

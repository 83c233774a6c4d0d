/**
 * `pnpm --filter @ext/bench bench:compare -- <commit> [--rounds N]`: the
 * in-process suites (1 and 2) of an earlier commit and of this checkout,
 * side by side in one run. The earlier commit is checked out in a git
 * worktree under the temp directory (kept, so a second run skips its
 * install and build), `in-process-main.ts` is copied into it and built
 * there, and each checkout's entry runs in its own process, turn by turn.
 * The section is printed and written to BENCHMARKS.md between
 * `<!-- compare:start -->` and `<!-- compare:end -->`, which `pnpm bench` keeps.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderComparison, type InProcessRow } from './compare.js';
import { withMarkedSection } from './markdown.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const REPORT = join(ROOT, 'BENCHMARKS.md');
const ENTRY = 'apps/bench/src/in-process-main.ts';
const BUILT = '.bench-compare-built';

function run(command: string, args: readonly string[], cwd: string): void {
  execFileSync(command, args, { cwd, stdio: 'inherit' });
}

function git(args: readonly string[]): string {
  return execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim();
}

/** The earlier commit checked out, installed and built, with this checkout's in-process entry built beside it. */
function prepare(commit: string): string {
  const dir = join(tmpdir(), 'mcp-ext-bench-compare', commit.slice(0, 12));
  if (!existsSync(join(dir, BUILT))) {
    if (existsSync(dir)) run('git', ['worktree', 'remove', '--force', dir], ROOT);
    mkdirSync(join(dir, '..'), { recursive: true });
    run('git', ['worktree', 'add', '--detach', dir, commit], ROOT);
    run('pnpm', ['install', '--frozen-lockfile', '--prefer-offline'], dir);
    run('pnpm', ['exec', 'turbo', 'run', 'build', '--filter=@ext/bench^...', '--concurrency=2'], dir);
    writeFileSync(join(dir, BUILT), `${commit}\n`);
  }
  copyFileSync(join(ROOT, ENTRY), join(dir, ENTRY));
  const bench = join(dir, 'apps/bench');
  run(
    'pnpm',
    [
      'exec',
      'tsup',
      'src/in-process-main.ts',
      '--no-config',
      '--format',
      'esm',
      '--target',
      'node20',
      '-d',
      'dist-compare',
    ],
    bench,
  );
  return join(bench, 'dist-compare/in-process-main.js');
}

/** One process of one checkout's entry: its rows. */
function measure(entry: string, scratch: string): InProcessRow[] {
  const out = join(scratch, 'rows.json');
  execFileSync(process.execPath, ['--expose-gc', entry, out], { stdio: 'inherit' });
  return JSON.parse(readFileSync(out, 'utf8')) as InProcessRow[];
}

function argument(name: string, fallback: string): string {
  const at = process.argv.indexOf(name);
  return at === -1 ? fallback : (process.argv[at + 1] ?? fallback);
}

function main(): void {
  const ref = process.argv.slice(2).find((arg, index, args) => !arg.startsWith('--') && args[index - 1] !== '--rounds');
  if (ref === undefined) throw new Error('usage: bench:compare -- <commit> [--rounds N]');
  const rounds = Number(argument('--rounds', '3'));
  if (!Number.isInteger(rounds) || rounds < 1) throw new Error('--rounds must be a whole number of at least 1');
  const commit = git(['rev-parse', '--verify', `${ref}^{commit}`]);
  const head = git(['rev-parse', '--short=7', 'HEAD']);
  const dirty = git(['status', '--porcelain', '--untracked-files=no']) !== '' ? ' with uncommitted changes' : '';
  const before = { label: commit.slice(0, 7), entry: prepare(commit), rounds: [] as InProcessRow[][] };
  const after = {
    label: `${head}${dirty === '' ? '' : ' +'}`,
    entry: fileURLToPath(new URL('in-process-main.js', import.meta.url)),
    rounds: [] as InProcessRow[][],
  };
  const scratch = mkdtempSync(join(tmpdir(), 'mcp-ext-bench-compare-rows-'));
  try {
    for (let round = 0; round < rounds; round++)
      for (const side of round % 2 === 0 ? [before, after] : [after, before]) {
        console.log(`round ${String(round + 1)} of ${String(rounds)}: ${side.label}`);
        side.rounds.push(measure(side.entry, scratch));
      }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  const quick = ['1', 'true'].includes(process.env.BENCH_QUICK ?? '') ? ' (`BENCH_QUICK=1`)' : '';
  const context = `\`bench:compare -- ${commit.slice(0, 7)}\`${quick} on ${new Date().toISOString().slice(0, 10)}, Node ${process.version}, ${String(cpus().length)} cores: ${commit.slice(0, 7)} against ${head}${dirty}.`;
  const section = renderComparison(before, after, context);
  console.log(`\n${section}`);
  writeFileSync(REPORT, withMarkedSection(existsSync(REPORT) ? readFileSync(REPORT, 'utf8') : '', 'compare', section));
}

main();

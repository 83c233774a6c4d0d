/**
 * `pnpm --filter @ext/bench bench:sessions [-- --count <n>]`: the
 * session-memory benchmark alone (`sessions.ts`). It writes its own section
 * of BENCHMARKS.md, between `<!-- sessions:start -->` and
 * `<!-- sessions:end -->`, which a full `pnpm bench` run keeps as it is.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, release, type } from 'node:os';
import { fileURLToPath } from 'node:url';
import { benchSessions, renderSessions, withSessionsSection } from './sessions.js';

const REPORT = fileURLToPath(new URL('../../../BENCHMARKS.md', import.meta.url));

/** `--count <n>` or `BENCH_SESSIONS_COUNT`, default 50,000. */
function countFrom(argv: readonly string[], env: NodeJS.ProcessEnv): number {
  const index = argv.indexOf('--count');
  const raw = index === -1 ? env.BENCH_SESSIONS_COUNT : argv[index + 1];
  const count = raw === undefined || raw === '' ? 50_000 : Number(raw);
  if (!Number.isSafeInteger(count) || count < 1)
    throw new RangeError(`--count must be a positive integer, got ${JSON.stringify(raw)}`);
  return count;
}

async function main(): Promise<void> {
  const count = countFrom(process.argv, process.env);
  const runs = await benchSessions({ count, compareCount: Math.min(count, 5_000), progress: console.log });
  const machine = `${cpus()[0]?.model.trim() ?? 'unknown'} (${String(cpus().length)} logical cores), Node ${process.version}, ${type()} ${release()} ${process.arch}`;
  const section = renderSessions(runs, machine, new Date().toISOString().slice(0, 10));
  writeFileSync(REPORT, withSessionsSection(existsSync(REPORT) ? readFileSync(REPORT, 'utf8') : '', section));
  console.log(`wrote the sessions section of ${REPORT}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});

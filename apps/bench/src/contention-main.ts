/**
 * `pnpm --filter @ext/bench bench:contention`: the contention benchmark
 * alone (`contention.ts`). It writes its own section of BENCHMARKS.md,
 * between `<!-- contention:start -->` and `<!-- contention:end -->`, which a
 * full `pnpm bench` run writes too. Needs `REDIS_URL`; exits non-zero when a
 * target is missed.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, release, type } from 'node:os';
import { fileURLToPath } from 'node:url';
import {
  benchContention,
  CONTENTION_CALLS,
  CONTENTION_TIMEOUTS,
  contentionMarkdown,
  renderContention,
} from './contention.js';
import { withMarkedSection } from './markdown.js';

const REPORT = fileURLToPath(new URL('../../../BENCHMARKS.md', import.meta.url));

async function main(): Promise<void> {
  const redisUrl = process.env.REDIS_URL === '' ? undefined : process.env.REDIS_URL;
  if (redisUrl === undefined) throw new Error('bench:contention needs REDIS_URL');
  const rows = await benchContention({
    redisUrl,
    calls: CONTENTION_CALLS,
    commandTimeouts: CONTENTION_TIMEOUTS,
    progress: console.log,
  });
  const machine = `${cpus()[0]?.model.trim() ?? 'unknown'} (${String(cpus().length)} logical cores), Node ${process.version}, ${type()} ${release()} ${process.arch}`;
  const markdown = contentionMarkdown(rows, CONTENTION_CALLS, machine, new Date().toISOString().slice(0, 10));
  writeFileSync(
    REPORT,
    withMarkedSection(existsSync(REPORT) ? readFileSync(REPORT, 'utf8') : '', 'contention', markdown),
  );
  console.log(markdown);
  if (renderContention(rows, CONTENTION_CALLS).targets.some((target) => !target.met)) process.exitCode = 1;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});

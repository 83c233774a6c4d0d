/**
 * `pnpm --filter @ext/bench bench:contention`: the contention benchmark
 * alone (`contention.ts`), printed rather than written: `pnpm bench` writes
 * it into BENCHMARKS.md with the rest. Needs `REDIS_URL`.
 */
import { benchContention, renderContention } from './contention.js';

const CALLS = 200;

async function main(): Promise<void> {
  const redisUrl = process.env.REDIS_URL === '' ? undefined : process.env.REDIS_URL;
  if (redisUrl === undefined) throw new Error('bench:contention needs REDIS_URL');
  const rows = await benchContention({ redisUrl, calls: CALLS, commandTimeouts: [500, 50], progress: console.log });
  const section = renderContention(rows, CALLS);
  console.log(`\n## ${section.title}\n\n${section.markdown}`);
  for (const target of section.targets)
    console.log(`${target.met ? 'met' : 'MISSED'}: ${target.name} (${target.detail})`);
  if (section.targets.some((target) => !target.met)) process.exitCode = 1;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});

/**
 * `pnpm --filter @ext/bench bench:gateway`: the gateway benchmark alone,
 * its section printed as markdown (BENCHMARKS.md is left alone; `pnpm bench`
 * writes it there with everything else). `--quick` or `BENCH_QUICK=1` for a
 * shorter run; `BENCH_GATEWAY_PROFILE=<dir>` has each gateway process write
 * a CPU profile there (`node --cpu-prof`), which `bench:profile` summarises;
 * `BENCH_CONTEXTFORGE=0` leaves ContextForge out (see `gateway-contextforge.ts`).
 */
import { setMaxListeners } from 'node:events';
import { cpus, loadavg } from 'node:os';
import { gatewayBenchOptions, runGateway } from './gateway.js';
import { renderGateway } from './gateway-report.js';
import { contextForgeStep } from './gateway-contextforge.js';
import type { RunOptions } from './measure.js';

/** Calls in flight, as in `pnpm bench`. */
const CONCURRENCY = [1, 16];

function loadAverage(): string {
  return loadavg()
    .map((value) => value.toFixed(2))
    .join(' ');
}

async function main(): Promise<void> {
  // See main.ts: the SDK's HTTP client transport trips Node's listener-leak warning over thousands of calls.
  setMaxListeners(0);
  const quick = process.argv.includes('--quick') || ['1', 'true'].includes(process.env.BENCH_QUICK ?? '');
  const run: RunOptions = quick ? { timeMs: 300, warmupMs: 100 } : { timeMs: 1500, warmupMs: 300 };
  const loadAtStart = loadAverage();
  const progress = (text: string): void => {
    console.error(text);
  };
  const profileDir = process.env.BENCH_GATEWAY_PROFILE === '' ? undefined : process.env.BENCH_GATEWAY_PROFILE;
  const options = gatewayBenchOptions(run, quick, CONCURRENCY, progress, {
    profileDir,
    contextForge: contextForgeStep(process.env, progress),
  });
  const section = renderGateway(await runGateway(options));
  console.log(`## ${section.title}\n\n${section.markdown}\n`);
  console.log(
    `Load average: ${loadAtStart} at the start, ${loadAverage()} at the end (${String(cpus().length)} cores).`,
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});

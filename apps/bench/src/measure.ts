/** How a benchmark case is timed: one caller or many in flight, after a warm-up, as median, p99 and ops/s. */
import { performance } from 'node:perf_hooks';
import { Bench } from 'tinybench';

/** Latency of one operation, in milliseconds, and the rate it implies. */
export interface Measurement {
  readonly name: string;
  readonly medianMs: number;
  readonly p99Ms: number;
  readonly meanMs: number;
  /** Operations per second: completed operations over elapsed time. */
  readonly opsPerSec: number;
  readonly samples: number;
}

export interface RunOptions {
  /** Measuring time per task, in milliseconds. */
  readonly timeMs: number;
  /** Warm-up time per task, in milliseconds (JIT, caches, connections). */
  readonly warmupMs: number;
}

/**
 * Sequential latency: one operation at a time, awaited, for `timeMs`.
 * tinybench times each call; the rate is 1 / mean latency, so it is the
 * throughput of a single caller, not of the machine.
 */
export async function measureSequential(
  name: string,
  fn: () => Promise<unknown>,
  options: RunOptions,
): Promise<Measurement> {
  settle();
  const bench = new Bench({ time: options.timeMs, warmupTime: options.warmupMs, throws: true });
  bench.add(name, fn);
  const [task] = await bench.run();
  const result = task?.result;
  if (result?.state !== 'completed')
    throw new Error(`${name}: the benchmark did not complete (${result?.state ?? 'no task'})`);
  const { latency } = result;
  return {
    name,
    medianMs: latency.p50,
    p99Ms: latency.p99,
    meanMs: latency.mean,
    opsPerSec: 1000 / latency.mean,
    samples: latency.samplesCount,
  };
}

/**
 * Collects the garbage the previous case left (when Node runs with
 * `--expose-gc`), so no case pays for another's allocations.
 */
function settle(): void {
  globalThis.gc?.();
}

/** The sample at quantile `q` of ascending `sorted` (nearest rank). */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank] ?? Number.NaN;
}

/**
 * Concurrent throughput: `inFlight` callers, each starting its next
 * operation as soon as the previous one settles, for `timeMs`. Latency here
 * includes queueing behind the other callers.
 */
export async function measureConcurrent(
  name: string,
  fn: () => Promise<unknown>,
  inFlight: number,
  options: RunOptions,
): Promise<Measurement> {
  const run = async (durationMs: number): Promise<number[]> => {
    const latencies: number[] = [];
    const deadline = performance.now() + durationMs;
    const worker = async (): Promise<void> => {
      while (performance.now() < deadline) {
        const started = performance.now();
        await fn();
        latencies.push(performance.now() - started);
      }
    };
    await Promise.all(Array.from({ length: inFlight }, worker));
    return latencies;
  };
  await run(options.warmupMs);
  settle();
  const started = performance.now();
  const latencies = await run(options.timeMs);
  const elapsedMs = performance.now() - started;
  latencies.sort((a, b) => a - b);
  const total = latencies.reduce((sum, value) => sum + value, 0);
  return {
    name,
    medianMs: quantile(latencies, 0.5),
    p99Ms: quantile(latencies, 0.99),
    meanMs: total / latencies.length,
    opsPerSec: (latencies.length / elapsedMs) * 1000,
    samples: latencies.length,
  };
}

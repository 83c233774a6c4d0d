/** What the calls of a benchmark leave behind: heap and RSS after a full garbage collection, per 1,000 calls. */

/** Heap and RSS of a process, in bytes. */
export interface Usage {
  readonly heapUsed: number;
  readonly rss: number;
}

export interface MemoryPer1000 {
  /** Heap still in use after a full GC, per 1,000 calls, in bytes. */
  readonly heapBytes: number;
  readonly rssBytes: number;
}

export function localUsage(): Usage {
  globalThis.gc?.();
  const usage = process.memoryUsage();
  return { heapUsed: usage.heapUsed, rss: usage.rss };
}

/** Makes `calls` calls, `inFlight` at a time. */
export async function repeat(call: () => Promise<unknown>, calls: number, inFlight: number): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < calls) {
      next += 1;
      await call();
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
}

/** Calls made before the first memory probe, so that lazily built state and JIT code are not counted. */
const MEMORY_WARMUP_CALLS = 500;

/**
 * Runs `calls` calls, `inFlight` at a time, and reports what they left
 * behind per 1,000 calls in each probed process (each probe collects the
 * garbage first). Measured on a fresh pair, before any timing run, whose
 * freed samples would otherwise show up as RSS handed back.
 */
export async function leftBehind<K extends string>(
  call: () => Promise<unknown>,
  calls: number,
  inFlight: number,
  probe: () => Promise<Record<K, Usage>>,
): Promise<Record<K, MemoryPer1000>> {
  await repeat(call, MEMORY_WARMUP_CALLS, inFlight);
  const before = await probe();
  await repeat(call, calls, inFlight);
  const after = await probe();
  const per1000 = (from: Usage, to: Usage): MemoryPer1000 => ({
    heapBytes: ((to.heapUsed - from.heapUsed) / calls) * 1000,
    rssBytes: ((to.rss - from.rss) / calls) * 1000,
  });
  return Object.fromEntries(
    Object.keys(before).map((key) => [key, per1000(before[key as K], after[key as K])]),
  ) as Record<K, MemoryPer1000>;
}

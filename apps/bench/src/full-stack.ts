/**
 * The full-stack benchmark: the composed extension stack against the bare
 * SDKs, in process on both SDK lines and over HTTP on both eras, with the
 * layers added one at a time, and what each leaves behind in memory.
 */
import { leftBehind, localUsage, repeat, type MemoryPer1000 } from './full-stack-memory.js';
import {
  httpPair,
  inProcessPair,
  startServer,
  withPair,
  type HttpEra,
  type InProcessLine,
  type Pair,
} from './full-stack-pairs.js';
import { formatDuration, formatRate } from './markdown.js';
import { measureConcurrent, measureSequential, type Measurement, type RunOptions } from './measure.js';
import { ADAPTER, BARE, FULL, LAYERS, stackLabel, type StackKind } from './stack.js';

/** Calls made in a fresh server process before its layer row is measured. */
const LAYER_WARMUP_CALLS = 2_000;

export interface InProcessRow {
  readonly line: InProcessLine;
  readonly stack: StackKind;
  readonly measurement: Measurement;
  readonly memory: MemoryPer1000;
}

export interface LayerRow {
  readonly stack: StackKind;
  readonly measurement: Measurement;
}

/** One stack over HTTP, with the bare SDK measured just before it on the same machine. */
export interface HttpLayerRow extends LayerRow {
  readonly bare: Measurement;
}

export interface HttpRow {
  readonly era: HttpEra;
  readonly stack: 'bare' | 'full';
  readonly inFlight: number;
  readonly measurement: Measurement;
}

export interface HttpMemoryRow {
  readonly era: HttpEra;
  readonly stack: 'bare' | 'full';
  readonly inFlight: number;
  /** Left behind per 1,000 calls in the server process. */
  readonly server: MemoryPer1000;
  /** Left behind per 1,000 calls in the client (this process). */
  readonly client: MemoryPer1000;
}

export interface FullStackResult {
  readonly inProcess: readonly InProcessRow[];
  readonly layers: readonly LayerRow[];
  readonly http: readonly HttpRow[];
  readonly httpMemory: readonly HttpMemoryRow[];
  /** Bare, adapters, then the layers one at a time, over HTTP (2026-07-28 era). */
  readonly httpLayers: readonly HttpLayerRow[];
  readonly httpLayerInFlight: number;
  readonly rounds: number;
  /** Rounds of the HTTP cases, where the machine's load moves the figures most. */
  readonly httpRounds: number;
  readonly memoryCalls: number;
  readonly concurrency: readonly number[];
}

export interface FullStackOptions {
  readonly run: RunOptions;
  readonly quick: boolean;
  /** Outstanding calls over HTTP; each level is one case. */
  readonly concurrency: readonly number[];
  readonly progress: (text: string) => void;
}

function micro(ms: number): string {
  return `${(ms * 1000).toFixed(1)} µs`;
}

/**
 * In process: per SDK line, memory on a fresh pair first, then `rounds`
 * timing runs of each stack, alternating their order; the lowest median of
 * each stack is kept, so that a burst of other work lands on neither side only.
 */
async function inProcessSuite(options: FullStackOptions, rounds: number, memoryCalls: number): Promise<InProcessRow[]> {
  const rows: InProcessRow[] = [];
  const stacks = [BARE, ADAPTER, FULL];
  for (const line of ['v1', 'v2'] as const) {
    const pairs = new Map<StackKind, Pair>();
    try {
      const memory = new Map<StackKind, MemoryPer1000>();
      for (const stack of stacks) {
        const pair = await inProcessPair(line, stack);
        pairs.set(stack, pair);
        memory.set(
          stack,
          (
            await leftBehind(
              () => pair.call(),
              memoryCalls,
              1,
              () => Promise.resolve({ memory: localUsage() }),
            )
          ).memory,
        );
      }
      const best = new Map<StackKind, Measurement>();
      for (let round = 0; round < rounds; round++) {
        for (const stack of round % 2 === 0 ? stacks : [...stacks].reverse()) {
          const pair = pairs.get(stack);
          if (pair === undefined) throw new Error('full stack: a pair is missing');
          const measurement = await measureSequential(`${line} ${stackLabel(stack)}`, () => pair.call(), options.run);
          const previous = best.get(stack);
          if (previous === undefined || measurement.medianMs < previous.medianMs) best.set(stack, measurement);
        }
      }
      for (const stack of stacks) {
        const measurement = best.get(stack);
        const left = memory.get(stack);
        if (measurement === undefined || left === undefined) throw new Error('full stack: a case was not measured');
        options.progress(
          `full stack in process ${line} ${stackLabel(stack).padEnd(34)} median ${micro(measurement.medianMs)}`,
        );
        rows.push({ line, stack, measurement, memory: left });
      }
    } finally {
      for (const pair of pairs.values()) await pair.close();
    }
  }
  return rows;
}

/**
 * The layers added one at a time in pipeline order (SDK v2 in process),
 * from the adapters with nothing composed to the full stack: each row's
 * increase over the previous one is what that layer adds among the others
 * (a layer may need an earlier one: transactions needs idempotency).
 */
async function layerSuite(options: FullStackOptions): Promise<LayerRow[]> {
  const rows: LayerRow[] = [];
  for (const stack of [ADAPTER, ...LAYERS.map((_, index): StackKind => ({ kind: 'first', count: index + 1 }))]) {
    const pair = await inProcessPair('v2', stack);
    try {
      const measurement = await measureSequential(`layer ${stackLabel(stack)}`, () => pair.call(), options.run);
      options.progress(`full stack layer ${stackLabel(stack).padEnd(34)} median ${micro(measurement.medianMs)}`);
      rows.push({ stack, measurement });
    } finally {
      await pair.close();
    }
  }
  return rows;
}

/**
 * Over HTTP: a server process per stack, each era and concurrency level
 * measured `rounds` times, alternating bare and full so that a burst of
 * load elsewhere on the machine does not land on one side only; the best
 * round of each is kept.
 */
async function httpSuite(
  options: FullStackOptions,
  rounds: number,
  memoryCalls: number,
): Promise<{ rows: HttpRow[]; memory: HttpMemoryRow[] }> {
  const servers = { bare: await startServer(BARE), full: await startServer(FULL) };
  const rows: HttpRow[] = [];
  const memoryRows: HttpMemoryRow[] = [];
  const memoryInFlight = Math.max(...options.concurrency);
  try {
    for (const era of ['legacy', 'modern'] as const) {
      for (const stack of ['bare', 'full'] as const) {
        const server = servers[stack];
        const memory = await withPair(server, stack, era, (pair) =>
          leftBehind(
            () => pair.call(),
            memoryCalls,
            memoryInFlight,
            async () => ({ server: await server.memory(), client: localUsage() }),
          ),
        );
        memoryRows.push({ era, stack, inFlight: memoryInFlight, ...memory });
      }
      for (const inFlight of options.concurrency) {
        const best: Partial<Record<'bare' | 'full', Measurement>> = {};
        for (let round = 0; round < rounds; round++) {
          const order = round % 2 === 0 ? (['bare', 'full'] as const) : (['full', 'bare'] as const);
          for (const stack of order) {
            const measurement = await withPair(servers[stack], stack, era, (pair) =>
              measureConcurrent(`${era} ${stack} ${String(inFlight)}`, () => pair.call(), inFlight, options.run),
            );
            const previous = best[stack];
            if (previous === undefined || measurement.opsPerSec > previous.opsPerSec) best[stack] = measurement;
          }
        }
        for (const stack of ['bare', 'full'] as const) {
          const measurement = best[stack];
          if (measurement === undefined) throw new Error('full stack: no round measured');
          options.progress(
            `full stack HTTP ${era.padEnd(6)} ${stack.padEnd(4)} ${String(inFlight).padStart(2)} in flight ${formatRate(measurement.opsPerSec).padStart(7)} calls/s, median ${formatDuration(measurement.medianMs)}`,
          );
          rows.push({ era, stack, inFlight, measurement });
        }
      }
    }
  } finally {
    await servers.bare.stop();
    await servers.full.stop();
  }
  return { rows, memory: memoryRows };
}

/**
 * Over HTTP in the 2026-07-28 era, where every request builds its server:
 * the adapters with nothing composed, then the layers added one at a time,
 * each in a fresh server process warmed up with `warmupCalls` calls (as is
 * the bare SDK's, once), at
 * `inFlight` calls in flight (one round each). The bare SDK, in a process of its own for the whole suite, is
 * measured right before each of them, so a change in the machine's load
 * from one row to the next moves both figures of a row alike.
 */
async function httpLayerSuite(
  options: FullStackOptions,
  inFlight: number,
  warmupCalls: number,
): Promise<HttpLayerRow[]> {
  const rows: HttpLayerRow[] = [];
  const bareServer = await startServer(BARE);
  try {
    const barePair = await httpPair(bareServer, BARE, 'modern');
    try {
      await repeat(() => barePair.call(), warmupCalls, inFlight);
      for (const stack of [ADAPTER, ...LAYERS.map((_, index): StackKind => ({ kind: 'first', count: index + 1 }))]) {
        const server = await startServer(stack);
        try {
          const pair = await httpPair(server, stack, 'modern');
          try {
            // A fresh process: its code is not optimised yet, and a short warm-up would measure the compiler.
            await repeat(() => pair.call(), warmupCalls, inFlight);
            const bare = await measureConcurrent('HTTP layer bare SDK', () => barePair.call(), inFlight, options.run);
            const measurement = await measureConcurrent(
              `HTTP layer ${stackLabel(stack)}`,
              () => pair.call(),
              inFlight,
              options.run,
            );
            options.progress(
              `full stack HTTP layer ${stackLabel(stack).padEnd(34)} ${formatRate(measurement.opsPerSec).padStart(7)} calls/s (bare just before: ${formatRate(bare.opsPerSec)})`,
            );
            rows.push({ stack, measurement, bare });
          } finally {
            await pair.close();
          }
        } finally {
          await server.stop();
        }
      }
    } finally {
      await barePair.close();
    }
  } finally {
    await bareServer.stop();
  }
  return rows;
}

export async function runFullStack(options: FullStackOptions): Promise<FullStackResult> {
  const memoryCalls = options.quick ? 2_000 : 10_000;
  const rounds = options.quick ? 1 : 2;
  const httpRounds = options.quick ? 1 : 3;
  const inProcess = await inProcessSuite(options, rounds, memoryCalls);
  const layers = await layerSuite(options);
  const http = await httpSuite(options, httpRounds, memoryCalls);
  const httpLayerInFlight = Math.max(...options.concurrency);
  const httpLayers = await httpLayerSuite(options, httpLayerInFlight, options.quick ? 200 : LAYER_WARMUP_CALLS);
  return {
    inProcess,
    layers,
    http: http.rows,
    httpMemory: http.memory,
    httpLayers,
    httpLayerInFlight,
    rounds,
    httpRounds,
    memoryCalls,
    concurrency: options.concurrency,
  };
}

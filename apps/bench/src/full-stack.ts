import { silentLogger, type ExtendedClient, type ExtendedServer } from '@ext/core';
import { extendClient as extendClientV1, extendServer as extendServerV1 } from '@ext/core/sdk-v1';
import { extendClient as extendClientV2 } from '@ext/core/sdk-v2/client';
import { extendServer as extendServerV2 } from '@ext/core/sdk-v2/server';
import { Client as ClientV2, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport as InMemoryTransportV1 } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer as McpServerV1 } from '@modelcontextprotocol/sdk/server/mcp.js';
import { InMemoryTransport as InMemoryTransportV2, McpServer as McpServerV2 } from '@modelcontextprotocol/server';
import { startChild } from './child.js';
import type { ServerAnswer, ServerCommand } from './http-server.js';
import { measureConcurrent, measureSequential, type Measurement, type RunOptions } from './measure.js';
import { formatDuration, formatRate } from './report.js';
import {
  ADAPTER,
  ARGS,
  BARE,
  buildStack,
  checkEcho,
  checkNegotiated,
  echo,
  FULL,
  INPUT,
  LAYERS,
  stackArgument,
  stackLabel,
  TOOL,
  TOOL_META,
  type BuiltStack,
  type StackKind,
} from './stack.js';

const CLIENT_INFO = { name: 'bench-client', version: '0.0.0' };
const SERVER_INFO = { name: 'bench-server', version: '0.0.0' };
const MODERN_PROTOCOL_VERSION = '2026-07-28';

/** A connected client and one `tools/call` through it. */
interface Pair {
  call(): Promise<unknown>;
  close(): Promise<void>;
}

export type InProcessLine = 'v1' | 'v2';

/** The SDK objects of one in-process line, linked but not connected. */
interface Linked {
  registerBare(): void;
  extend(built: BuiltStack): { server: ExtendedServer; client: ExtendedClient };
  connect(): Promise<void>;
  bareCall(): Promise<unknown>;
  close(): Promise<void>;
}

function linkedV1(): Linked {
  const [clientTransport, serverTransport] = InMemoryTransportV1.createLinkedPair();
  const mcp = new McpServerV1(SERVER_INFO);
  const client = new ClientV1(CLIENT_INFO);
  return {
    registerBare: () => mcp.registerTool(TOOL, { inputSchema: INPUT }, echo),
    extend: (built) => ({
      server: extendServerV1(mcp, built.composed, { store: built.store, logger: silentLogger }),
      client: extendClientV1(client, built.client, { logger: silentLogger }),
    }),
    connect: async () => {
      await mcp.connect(serverTransport);
      await client.connect(clientTransport);
    },
    bareCall: () => client.callTool({ name: TOOL, arguments: ARGS }),
    close: () => client.close(),
  };
}

function linkedV2(): Linked {
  const [clientTransport, serverTransport] = InMemoryTransportV2.createLinkedPair();
  const mcp = new McpServerV2(SERVER_INFO);
  const client = new ClientV2(CLIENT_INFO);
  return {
    registerBare: () => mcp.registerTool(TOOL, { inputSchema: INPUT }, echo),
    extend: (built) => ({
      server: extendServerV2(mcp, built.composed, { store: built.store, logger: silentLogger }),
      client: extendClientV2(client, built.client, { logger: silentLogger }),
    }),
    connect: async () => {
      await mcp.connect(serverTransport);
      await client.connect(clientTransport);
    },
    bareCall: () => client.callTool({ name: TOOL, arguments: ARGS }),
    close: () => client.close(),
  };
}

/** A client and server linked in this process; the stack's result is checked once before it is timed. */
export async function inProcessPair(line: InProcessLine, stack: StackKind): Promise<Pair> {
  const linked = line === 'v1' ? linkedV1() : linkedV2();
  if (stack.kind === 'bare') {
    linked.registerBare();
    await linked.connect();
    checkEcho(await linked.bareCall());
    return { call: () => linked.bareCall(), close: () => linked.close() };
  }
  const built = buildStack(stack);
  const { server, client } = linked.extend(built);
  server.registerTool(TOOL, { inputSchema: INPUT, _meta: TOOL_META }, echo);
  await linked.connect();
  checkNegotiated(client, built);
  const call = (): Promise<unknown> => client.callTool(TOOL, ARGS);
  checkEcho(await call());
  return {
    call,
    close: async () => {
      await client.close();
      await built.close();
    },
  };
}

// ---------------------------------------------------------------------------
// The server process
// ---------------------------------------------------------------------------

interface Usage {
  readonly heapUsed: number;
  readonly rss: number;
}

/** The HTTP benchmark server, running in a child process. */
interface ServerProcess {
  readonly url: string;
  /** Heap and RSS of the server process after a full garbage collection. */
  memory(): Promise<Usage>;
  stop(): Promise<void>;
}

async function startServer(stack: StackKind): Promise<ServerProcess> {
  const child = await startChild<ServerCommand, ServerAnswer>(new URL('./http-server.js', import.meta.url), [
    stackArgument(stack),
  ]);
  if (child.ready.type !== 'ready') throw new Error(`full stack: the ${stackLabel(stack)} server did not start`);
  return {
    url: child.ready.url,
    async memory() {
      const answer = await child.request({ type: 'memory' });
      if (answer.type !== 'memory') throw new Error(`full stack: expected a memory report, got ${answer.type}`);
      return answer;
    },
    stop: () => child.stop(),
  };
}

export type HttpEra = 'legacy' | 'modern';

async function httpPair(server: ServerProcess, stack: StackKind, era: HttpEra): Promise<Pair> {
  const client = new ClientV2(
    CLIENT_INFO,
    era === 'modern' ? { versionNegotiation: { mode: { pin: MODERN_PROTOCOL_VERSION } } } : {},
  );
  if (stack.kind === 'bare') {
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
    const call = (): Promise<unknown> => client.callTool({ name: TOOL, arguments: ARGS });
    checkEcho(await call());
    return { call, close: () => client.close() };
  }
  // The client halves only; the server halves live in the server process.
  const built = buildStack(stack);
  const extended = extendClientV2(client, built.client, { logger: silentLogger });
  await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
  checkNegotiated(extended, built);
  const call = (): Promise<unknown> => extended.callTool(TOOL, ARGS);
  checkEcho(await call());
  return {
    call,
    close: async () => {
      await extended.close();
      await built.close();
    },
  };
}

/**
 * A fresh client (and, in the 2025-11-25 era, a fresh session) for one
 * measurement: an SDK client slows down over thousands of calls as the abort
 * listeners described in `main` pile up, whichever stack it talks to.
 */
async function withPair<T>(
  server: ServerProcess,
  stack: 'bare' | 'full',
  era: HttpEra,
  measure: (pair: Pair) => Promise<T>,
): Promise<T> {
  const pair = await httpPair(server, stack === 'bare' ? BARE : FULL, era);
  try {
    return await measure(pair);
  } finally {
    await pair.close();
  }
}

// ---------------------------------------------------------------------------
// Memory
// ---------------------------------------------------------------------------

export interface MemoryPer1000 {
  /** Heap still in use after a full GC, per 1,000 calls, in bytes. */
  readonly heapBytes: number;
  readonly rssBytes: number;
}

function localUsage(): Usage {
  globalThis.gc?.();
  const usage = process.memoryUsage();
  return { heapUsed: usage.heapUsed, rss: usage.rss };
}

async function repeat(call: () => Promise<unknown>, calls: number, inFlight: number): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < calls) {
      next += 1;
      await call();
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
}

/** Calls made in a fresh server process before its layer row is measured. */
const LAYER_WARMUP_CALLS = 2_000;

/** Calls made before the first memory probe, so that lazily built state and JIT code are not counted. */
const MEMORY_WARMUP_CALLS = 500;

/**
 * Runs `calls` calls, `inFlight` at a time, and reports what they left
 * behind per 1,000 calls in each probed process (each probe collects the
 * garbage first). Measured on a fresh pair, before any timing run, whose
 * freed samples would otherwise show up as RSS handed back.
 */
async function leftBehind<K extends string>(
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

// ---------------------------------------------------------------------------
// The suite
// ---------------------------------------------------------------------------

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

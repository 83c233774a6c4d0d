/**
 * The gateway benchmark: one upstream MCP server, a gateway with no policy
 * and one with the full policy, a raw HTTP relay and a bare SDK relay for
 * reference, each in a process of its own, and the client in this one; the
 * upstream's `write` tool called over HTTP directly and through each
 * gateway and relay, at each level of calls in flight.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger } from '@ext/core';
import { extendClient } from '@ext/core/sdk-v2/client';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { startChild, type ChildServer, type Message } from './child.js';
import { repeat } from './full-stack-memory.js';
import type { Pair } from './full-stack-pairs.js';
import type { RelayReady } from './gateway-relay.js';
import type { GatewayReady } from './gateway-server.js';
import {
  checkPolicyApplied,
  checkWritten,
  extensionAwareHalves,
  GATEWAY_PATHS,
  MODERN_PROTOCOL_VERSION,
  policyCallMeta,
  WRITE_ARGS,
  WRITE_TOOL,
  type GatewayMode,
  type GatewayPath,
  type RelayKind,
} from './gateway-setup.js';
import type { UpstreamReady } from './gateway-upstream.js';
import { formatDuration, formatRate } from './markdown.js';
import { measureConcurrent, type Measurement, type RunOptions } from './measure.js';

const CLIENT_INFO = { name: 'bench-client', version: '0.0.0' };

export interface GatewayRow {
  readonly path: GatewayPath;
  readonly inFlight: number;
  readonly measurement: Measurement;
}

export interface GatewayResult {
  readonly rows: readonly GatewayRow[];
  readonly concurrency: readonly number[];
  readonly rounds: number;
  readonly warmupCalls: number;
}

export interface GatewayBenchOptions {
  readonly run: RunOptions;
  /** Calls in flight on one client; each level is one case per path. */
  readonly concurrency: readonly number[];
  /** Rounds per level, alternating the order of the paths; the round with the most calls/s of each is kept. */
  readonly rounds: number;
  /** Calls through each path before any timing, so that every process's code is optimised. */
  readonly warmupCalls: number;
  readonly progress: (text: string) => void;
  /** Where the built child entries are: next to this module, as built, unless a test says otherwise. */
  readonly entries?: URL | undefined;
}

/** Where `gateway-upstream.js`, `gateway-server.js` and `gateway-relay.js` are when this module runs as built. */
const BUILT_ENTRIES = new URL('.', import.meta.url);

/** Rounds and warm-up of a full run and of a quick one (`BENCH_QUICK=1`), on the run's timing. */
export function gatewayBenchOptions(
  run: RunOptions,
  quick: boolean,
  concurrency: readonly number[],
  progress: (text: string) => void,
): GatewayBenchOptions {
  return { run, concurrency, rounds: quick ? 1 : 3, warmupCalls: quick ? 200 : 2_000, progress };
}

/** The upstream, the two gateways and the two relays, each in its own process. */
export interface GatewayProcesses {
  readonly urls: Readonly<Record<GatewayPath, string>>;
  stop(): Promise<void>;
}

type Ready = UpstreamReady | GatewayReady | RelayReady;
type Server = ChildServer<Message, Ready>;

async function startProcess(entries: URL, entry: string, args: readonly string[]): Promise<Server> {
  // A child that cannot start answers `failed`, and `startChild` throws its message.
  return startChild<Message, Ready>(new URL(entry, entries), args);
}

/**
 * Starts the upstream, then a gateway of each mode (state in SQLite files
 * under `dir`) and a relay of each kind in front of it.
 */
export async function startGatewayProcesses(dir: string, entries: URL = BUILT_ENTRIES): Promise<GatewayProcesses> {
  const started: Server[] = [];
  const stop = async (): Promise<void> => {
    // Gateways and relays first: each ends its session or connections with the upstream.
    for (const child of [...started].reverse()) await child.stop();
  };
  const start = async (entry: string, args: readonly string[]): Promise<string> => {
    const child = await startProcess(entries, entry, args);
    started.push(child);
    return child.ready.url;
  };
  try {
    const upstream = await start('gateway-upstream.js', []);
    const gateway = (mode: GatewayMode): Promise<string> =>
      start('gateway-server.js', [mode, upstream, join(dir, `${mode}.db`)]);
    const relay = (kind: RelayKind): Promise<string> => start('gateway-relay.js', [kind, upstream]);
    const urls = {
      direct: upstream,
      plain: await gateway('plain'),
      policy: await gateway('policy'),
      relay: await relay('relay'),
      'sdk-relay': await relay('sdk-relay'),
    };
    return { urls, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * `call`, failing on an error result: a refusal answers faster than a
 * write, and must not pass for one (a caller's idempotency budget, 10,000
 * live keys by default, could run out on a machine fast enough).
 */
function failingOnError(call: () => Promise<unknown>): () => Promise<unknown> {
  return async () => {
    const result = (await call()) as { isError?: boolean };
    if (result.isError === true)
      throw new Error(`gateway bench: an error result ${JSON.stringify(result).slice(0, 500)}`);
    return result;
  };
}

function sdkClient(): Client {
  return new Client(CLIENT_INFO, { versionNegotiation: { mode: { pin: MODERN_PROTOCOL_VERSION } } });
}

/** A host that knows no extension, straight to `url` (the upstream, the gateway with no policy, or a relay). */
async function plainPair(url: string): Promise<Pair> {
  const client = sdkClient();
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  const call = failingOnError(() => client.callTool({ name: WRITE_TOOL, arguments: WRITE_ARGS }));
  checkWritten(await call());
  return { call, close: () => client.close() };
}

let callers = 0;

/**
 * An extension-aware host calling the full-policy gateway as a caller of
 * its own (a fresh bearer token: its own quota and idempotency budget),
 * stating its intent, a fresh idempotency key per call.
 */
async function policyPair(url: string): Promise<Pair> {
  const client = sdkClient();
  const halves = extensionAwareHalves();
  const extended = extendClient(client, halves, { logger: silentLogger });
  callers += 1;
  const headers = { authorization: `Bearer bench-caller-${String(process.pid)}-${String(callers)}` };
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  const missing = halves.filter((half) => extended.negotiated(half) === undefined).map((half) => half.name);
  if (missing.length > 0) throw new Error(`gateway bench: not negotiated: ${missing.join(', ')}`);
  const meta = policyCallMeta();
  const call = failingOnError(() => extended.callTool(WRITE_TOOL, WRITE_ARGS, { meta }));
  checkPolicyApplied(await call());
  return { call, close: () => extended.close() };
}

/** A connected client for `path`, its first result checked; a fresh one for each measurement (see `withPair`). */
export function openPath(processes: GatewayProcesses, path: GatewayPath): Promise<Pair> {
  const url = processes.urls[path];
  return path === 'policy' ? policyPair(url) : plainPair(url);
}

async function withPath<T>(
  processes: GatewayProcesses,
  path: GatewayPath,
  use: (pair: Pair) => Promise<T>,
): Promise<T> {
  const pair = await openPath(processes, path);
  try {
    return await use(pair);
  } finally {
    await pair.close();
  }
}

/** Round `round`'s order of the paths: forwards, then backwards, so that no path always runs first. */
function pathOrder(round: number): readonly GatewayPath[] {
  return round % 2 === 0 ? GATEWAY_PATHS : [...GATEWAY_PATHS].reverse();
}

async function measureLevel(
  processes: GatewayProcesses,
  inFlight: number,
  options: GatewayBenchOptions,
): Promise<GatewayRow[]> {
  const best = new Map<GatewayPath, Measurement>();
  for (let round = 0; round < options.rounds; round++) {
    for (const path of pathOrder(round)) {
      const measurement = await withPath(processes, path, (pair) =>
        measureConcurrent(`gateway ${path} ${String(inFlight)}`, () => pair.call(), inFlight, options.run),
      );
      const previous = best.get(path);
      if (previous === undefined || measurement.opsPerSec > previous.opsPerSec) best.set(path, measurement);
    }
  }
  return GATEWAY_PATHS.map((path) => {
    const measurement = best.get(path);
    if (measurement === undefined) throw new Error('gateway bench: a path was not measured');
    options.progress(
      `gateway ${path.padEnd(9)} ${String(inFlight).padStart(2)} in flight ${formatRate(measurement.opsPerSec).padStart(7)} calls/s, median ${formatDuration(measurement.medianMs)}`,
    );
    return { path, inFlight, measurement };
  });
}

export async function runGateway(options: GatewayBenchOptions): Promise<GatewayResult> {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-ext-bench-gateway-'));
  try {
    const processes = await startGatewayProcesses(dir, options.entries);
    try {
      const warmInFlight = Math.max(...options.concurrency);
      for (const path of GATEWAY_PATHS)
        await withPath(processes, path, (pair) => repeat(() => pair.call(), options.warmupCalls, warmInFlight));
      const rows: GatewayRow[] = [];
      for (const inFlight of options.concurrency) rows.push(...(await measureLevel(processes, inFlight, options)));
      return { rows, concurrency: options.concurrency, rounds: options.rounds, warmupCalls: options.warmupCalls };
    } finally {
      await processes.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

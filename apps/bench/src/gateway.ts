/**
 * The gateway benchmark: an HTTP upstream MCP server, a gateway with no
 * policy and one with the full policy, a raw HTTP relay and a bare SDK
 * relay for reference, each in a process of its own, and the client in this
 * one; the upstream's `write` tool called over HTTP directly and through
 * each gateway and relay. Then a stdio upstream (server-everything's `echo`)
 * behind `mcp-proxy`, behind a gateway of each mode, and behind ContextForge
 * (its gateway, and its stdio bridge alone) where it can be installed. Each
 * path at each level of calls in flight.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger } from '@ext/core/kit';
import { extendClient } from '@ext/core/sdk-v2/client';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { startChild, type ChildServer, type Message } from './child.js';
import { repeat } from './full-stack-memory.js';
import type { Pair } from './full-stack-pairs.js';
import type { RelayReady } from './gateway-relay.js';
import type { GatewayReady } from './gateway-server.js';
import {
  checkAnswered,
  checkPolicyApplied,
  extensionAwareHalves,
  GATEWAY_PATHS,
  isOptionalPath,
  MODERN_PROTOCOL_VERSION,
  modeOf,
  pinsModernEra,
  policyCallMeta,
  STDIO_UPSTREAM,
  timedTool,
  type GatewayMode,
  type GatewayPath,
  type RelayKind,
  type TimedTool,
} from './gateway-setup.js';
import type { ContextForgeStarted } from './gateway-contextforge.js';
import { startMcpProxy, type ForeignServer } from './gateway-stdio.js';
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
  /** Why a path has no rows (ContextForge that could not be installed or started, say). */
  readonly skipped?: Readonly<Partial<Record<GatewayPath, string>>> | undefined;
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
  /** Starts ContextForge in front of the stdio upstream, or says why it cannot; left out when absent. */
  readonly contextForge?: (() => Promise<ContextForgeStarted | string>) | undefined;
  /** Where the gateways write a CPU profile each (`node --cpu-prof`), when given. */
  readonly profileDir?: string | undefined;
}

/** Where `gateway-upstream.js`, `gateway-server.js` and `gateway-relay.js` are when this module runs as built. */
const BUILT_ENTRIES = new URL('.', import.meta.url);

/** Rounds and warm-up of a full run and of a quick one (`BENCH_QUICK=1`), on the run's timing. */
export function gatewayBenchOptions(
  run: RunOptions,
  quick: boolean,
  concurrency: readonly number[],
  progress: (text: string) => void,
  more: Pick<GatewayBenchOptions, 'contextForge' | 'profileDir'> = {},
): GatewayBenchOptions {
  return { run, concurrency, rounds: quick ? 1 : 3, warmupCalls: quick ? 200 : 2_000, progress, ...more };
}

/** The upstream, the gateways and the relays, each in its own process, and the URL of each path. */
export interface GatewayProcesses {
  readonly urls: Readonly<Partial<Record<GatewayPath, string>>>;
  /** The headers every caller of a path sends (ContextForge's bearer token). */
  readonly headers?: Readonly<Partial<Record<GatewayPath, Readonly<Record<string, string>>>>> | undefined;
  /** Why a path could not be started. */
  readonly skipped: Readonly<Partial<Record<GatewayPath, string>>>;
  stop(): Promise<void>;
}

/** The URL of `path`; throws when it was not started. */
export function urlOf(processes: GatewayProcesses, path: GatewayPath): string {
  const url = processes.urls[path];
  if (url === undefined) throw new Error(`gateway bench: ${path} was not started`);
  return url;
}

type Ready = UpstreamReady | GatewayReady | RelayReady;
type Server = ChildServer<Message, Ready>;

export interface StartOptions {
  readonly entries?: URL | undefined;
  readonly contextForge?: (() => Promise<ContextForgeStarted | string>) | undefined;
  readonly profileDir?: string | undefined;
}

/**
 * Starts the HTTP upstream, then a gateway of each mode (state in SQLite
 * files under `dir`) and a relay of each kind in front of it; then
 * `mcp-proxy` and a gateway of each mode in front of the stdio upstream
 * (each starts its own), and ContextForge when asked (its rows are left
 * out, with the reason, when it cannot be set up).
 */
export async function startGatewayProcesses(dir: string, options: StartOptions = {}): Promise<GatewayProcesses> {
  const entries = options.entries ?? BUILT_ENTRIES;
  const stops: (() => Promise<void>)[] = [];
  const stop = async (): Promise<void> => {
    // Gateways, relays and bridges first: each ends its session or connections with its upstream.
    for (const end of [...stops].reverse()) await end();
  };
  const start = async (entry: string, args: readonly string[], flags: readonly string[] = []): Promise<string> => {
    // A child that cannot start answers `failed`, and `startChild` throws its message.
    const child: Server = await startChild<Message, Ready>(new URL(entry, entries), args, flags);
    stops.push(() => child.stop());
    return child.ready.url;
  };
  const profiled = options.profileDir === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${options.profileDir}`];
  const foreign = (server: ForeignServer): string => {
    stops.push(() => server.stop());
    return server.url;
  };
  try {
    const upstream = await start('gateway-upstream.js', []);
    const gateway = (mode: GatewayMode, to: string, db: string): Promise<string> =>
      start('gateway-server.js', [mode, to, join(dir, `${db}.db`)], profiled);
    const relay = (kind: RelayKind): Promise<string> => start('gateway-relay.js', [kind, upstream]);
    // Started side by side: on a loaded machine each process takes seconds to load its modules.
    const starting: [GatewayPath, Promise<string>][] = [
      ['plain', gateway('plain', upstream, 'plain')],
      ['policy', gateway('policy', upstream, 'policy')],
      ['relay', relay('relay')],
      ['sdk-relay', relay('sdk-relay')],
      ['proxy', startMcpProxy().then(foreign)],
      ['stdio-plain', gateway('plain', STDIO_UPSTREAM, 'stdio-plain')],
      ['stdio-policy', gateway('policy', STDIO_UPSTREAM, 'stdio-policy')],
    ];
    const settled = await Promise.allSettled(starting.map(([, url]) => url));
    const failure = settled.find((outcome) => outcome.status === 'rejected');
    if (failure !== undefined) throw failure.reason;
    const urls: Partial<Record<GatewayPath, string>> = { direct: upstream };
    starting.forEach(([path], index) => {
      const outcome = settled[index];
      if (outcome?.status === 'fulfilled') urls[path] = outcome.value;
    });
    const skipped: Partial<Record<GatewayPath, string>> = {};
    const headers: Partial<Record<GatewayPath, Readonly<Record<string, string>>>> = {};
    if (options.contextForge !== undefined) {
      const started = await options.contextForge();
      if (typeof started === 'string') skipped.contextforge = started;
      else {
        stops.push(() => started.stop());
        urls.contextforge = started.gatewayUrl;
        urls['contextforge-bridge'] = started.bridgeUrl;
        headers.contextforge = started.headers;
      }
    }
    return { urls, headers, skipped, stop };
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

function sdkClient(pinned = true): Client {
  return new Client(CLIENT_INFO, pinned ? { versionNegotiation: { mode: { pin: MODERN_PROTOCOL_VERSION } } } : {});
}

/** How a plain host reaches a path: the headers it sends, and whether it pins the 2026-07-28 era. */
interface PlainAccess {
  readonly headers?: Readonly<Record<string, string>> | undefined;
  readonly pinned: boolean;
}

/** A host that knows no extension, straight to `url` (an upstream, a gateway with no policy, a relay or a bridge). */
async function plainPair(url: string, tool: TimedTool, access: PlainAccess): Promise<Pair> {
  const client = sdkClient(access.pinned);
  const requestInit = access.headers === undefined ? undefined : { headers: { ...access.headers } };
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit }));
  const call = failingOnError(() => client.callTool({ name: tool.name, arguments: { ...tool.args } }));
  checkAnswered(await call(), tool);
  return { call, close: () => client.close() };
}

let callers = 0;

/**
 * An extension-aware host calling a full-policy gateway as a caller of its
 * own (a fresh bearer token: its own quota and idempotency budget), stating
 * its intent, a fresh idempotency key per call.
 */
async function policyPair(url: string, tool: TimedTool): Promise<Pair> {
  const client = sdkClient();
  const halves = extensionAwareHalves();
  const extended = extendClient(client, halves, { logger: silentLogger });
  callers += 1;
  const headers = { authorization: `Bearer bench-caller-${String(process.pid)}-${String(callers)}` };
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  const missing = halves.filter((half) => extended.negotiated(half) === undefined).map((half) => half.name);
  if (missing.length > 0) throw new Error(`gateway bench: not negotiated: ${missing.join(', ')}`);
  const meta = policyCallMeta();
  const call = failingOnError(() => extended.callTool(tool.name, { ...tool.args }, { meta }));
  checkPolicyApplied(await call(), tool);
  return { call, close: () => extended.close() };
}

/** A connected client for `path`, its first result checked; a fresh one for each measurement (see `withPath`). */
export function openPath(processes: GatewayProcesses, path: GatewayPath): Promise<Pair> {
  const url = urlOf(processes, path);
  const tool = timedTool(path);
  if (modeOf(path) === 'policy') return policyPair(url, tool);
  return plainPair(url, tool, { headers: processes.headers?.[path], pinned: pinsModernEra(path) });
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

/** The paths `processes` serve, in the order of the report. */
function startedPaths(processes: GatewayProcesses): readonly GatewayPath[] {
  return GATEWAY_PATHS.filter((path) => processes.urls[path] !== undefined);
}

/** Round `round`'s order of `paths`: forwards, then backwards, so that no path always runs first. */
function pathOrder(paths: readonly GatewayPath[], round: number): readonly GatewayPath[] {
  return round % 2 === 0 ? paths : [...paths].reverse();
}

/** Why a path was left out of a run, path by path, as the run goes. */
type Skipped = Partial<Record<GatewayPath, string>>;

/**
 * `work` on `path`; a failure of an optional reference (ContextForge) leaves
 * it out of the rest of the run, its reason in `skipped`, and fails the run
 * on any other path.
 */
async function unlessLeftOut(
  path: GatewayPath,
  skipped: Skipped,
  progress: (text: string) => void,
  work: () => Promise<void>,
): Promise<void> {
  try {
    await work();
  } catch (error) {
    if (!isOptionalPath(path)) throw error;
    const reason = `it failed during the run: ${(error as Error).message.slice(0, 500)}`;
    skipped[path] = reason;
    progress(`gateway ${path}: left out (${reason})`);
  }
}

async function measureLevel(
  processes: GatewayProcesses,
  inFlight: number,
  options: GatewayBenchOptions,
  skipped: Skipped,
): Promise<GatewayRow[]> {
  const best = new Map<GatewayPath, Measurement>();
  for (let round = 0; round < options.rounds; round++) {
    const paths = startedPaths(processes).filter((path) => skipped[path] === undefined);
    for (const path of pathOrder(paths, round))
      await unlessLeftOut(path, skipped, options.progress, async () => {
        const measurement = await withPath(processes, path, (pair) =>
          measureConcurrent(`gateway ${path} ${String(inFlight)}`, () => pair.call(), inFlight, options.run),
        );
        const previous = best.get(path);
        if (previous === undefined || measurement.opsPerSec > previous.opsPerSec) best.set(path, measurement);
      });
  }
  return startedPaths(processes).flatMap((path) => {
    const measurement = best.get(path);
    if (measurement === undefined) return [];
    options.progress(
      `gateway ${path.padEnd(19)} ${String(inFlight).padStart(2)} in flight ${formatRate(measurement.opsPerSec).padStart(7)} calls/s, median ${formatDuration(measurement.medianMs)}`,
    );
    return [{ path, inFlight, measurement }];
  });
}

export async function runGateway(options: GatewayBenchOptions): Promise<GatewayResult> {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-ext-bench-gateway-'));
  try {
    const processes = await startGatewayProcesses(dir, options);
    try {
      for (const [path, reason] of Object.entries(processes.skipped))
        options.progress(`gateway ${path}: not measured (${reason})`);
      const skipped: Skipped = { ...processes.skipped };
      const warmInFlight = Math.max(...options.concurrency);
      for (const path of startedPaths(processes))
        await unlessLeftOut(path, skipped, options.progress, () =>
          withPath(processes, path, (pair) => repeat(() => pair.call(), options.warmupCalls, warmInFlight)),
        );
      const rows: GatewayRow[] = [];
      for (const inFlight of options.concurrency)
        rows.push(...(await measureLevel(processes, inFlight, options, skipped)));
      return {
        rows,
        skipped,
        concurrency: options.concurrency,
        rounds: options.rounds,
        warmupCalls: options.warmupCalls,
      };
    } finally {
      await processes.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

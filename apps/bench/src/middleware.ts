/** Suite 2: the idempotency middleware and the core's telemetry in the pipeline, without a transport or SDK. */
import { randomUUID } from 'node:crypto';
import {
  composeClient,
  composeServer,
  MemoryStore,
  type ServerExtension,
  type Store,
  type ToolCall,
  type ToolHandler,
  type ToolInfo,
} from '@ext/core';
import { consoleLogger, createCallContext, createRequestContext } from '@ext/core/kit';
import { IDEMPOTENCY_ID } from '@ext/idempotency';
import { idempotencyClient } from '@ext/idempotency/client';
import { idempotencyServer } from '@ext/idempotency/server';
import { trace } from '@opentelemetry/api';
import { measureSequential, type Measurement, type RunOptions } from './measure.js';

export interface MiddlewareRow {
  readonly label: string;
  readonly store: string;
  /** Whether the idempotency extension is composed and the call carries a key. */
  readonly idempotent: boolean;
  readonly measurement: Measurement;
}

export interface MiddlewareResult {
  readonly baseline: MiddlewareRow;
  readonly rows: readonly MiddlewareRow[];
  /**
   * The pipeline with no extension, `@opentelemetry/api` installed and no
   * SDK registered: telemetry off (`telemetry: false`) and on (the default),
   * the best of alternating rounds each. Also among `rows`.
   */
  readonly telemetry: { readonly off: MiddlewareRow; readonly on: MiddlewareRow };
  /** How many alternating rounds the telemetry pair ran. */
  readonly telemetryRounds: number;
}

/** Rounds of the telemetry pair, alternating which runs first; the lowest median of each is kept. */
const TELEMETRY_ROUNDS = 3;

const TOOL: ToolInfo = { name: 'echo' };
const handler: ToolHandler = (args) => ({ content: [{ type: 'text', text: String(args.text) }] });
const neverAborted = new AbortController().signal;

/**
 * One `runToolCall` with everything an adapter would build per request: the
 * negotiation against the client's advertised extensions, the request and
 * call contexts, and the call itself (with a fresh key when `keyed`).
 */
function pipelineCall(
  extensions: readonly ServerExtension[],
  store: Store,
  keyed: boolean,
  telemetry = true,
): () => Promise<unknown> {
  const composed = composeServer(extensions, { telemetry });
  const peerExtensions = composeClient([idempotencyClient()]).capabilities();
  return async () => {
    const request = createRequestContext({
      sdk: 'v2',
      era: 'legacy',
      protocolVersion: '2025-11-25',
      authInfo: undefined,
      identity: { principal: 'local', source: 'local' },
      peerExtensions,
      negotiation: composed.negotiate(peerExtensions),
      signal: neverAborted,
      logger: consoleLogger,
      store,
      progressToken: undefined,
      notify: () => Promise.resolve(),
      elicit: undefined,
    });
    const meta = keyed ? { [IDEMPOTENCY_ID]: { idempotency_key: randomUUID() } } : {};
    const call: ToolCall = { name: TOOL.name, arguments: { text: 'hello' }, meta };
    return composed.runToolCall(call, createCallContext(request, TOOL), handler);
  };
}

async function checked(fn: () => Promise<unknown>, keyed: boolean): Promise<() => Promise<unknown>> {
  const result = (await fn()) as { isError?: boolean; _meta?: Record<string, { was_replay?: unknown } | undefined> };
  const replay = result._meta?.[IDEMPOTENCY_ID]?.was_replay;
  if (result.isError === true || (keyed ? replay !== false : replay !== undefined)) {
    throw new Error(`middleware: unexpected result ${JSON.stringify(result)}`);
  }
  return fn;
}

/**
 * Suite 2: the idempotency middleware on its own, without any transport,
 * against the same pipeline with no extension. Each timed call uses a new
 * key, so every call claims, executes and records (the expensive path).
 */
export async function runMiddleware(
  stores: readonly { readonly name: string; readonly create: () => Store | Promise<Store> }[],
  options: RunOptions,
  progress: (text: string) => void,
): Promise<MiddlewareResult> {
  // The per-caller record budget would refuse new keys after 10 000 calls; raise it.
  const idempotency = (): ServerExtension =>
    idempotencyServer({ maxKeysPerPrincipal: 1_000_000_000, defaultTtlSeconds: 600 });
  const measure = async (
    label: string,
    store: { name: string; create: () => Store | Promise<Store> },
    idempotent: boolean,
    keyed: boolean,
  ): Promise<MiddlewareRow> => {
    const instance = await store.create();
    let measurement: Measurement;
    try {
      const fn = await checked(pipelineCall(idempotent ? [idempotency()] : [], instance, keyed), keyed);
      measurement = await measureSequential(label, fn, options);
    } finally {
      await instance.close();
    }
    progress(
      `middleware ${label.padEnd(40)} ${store.name.padEnd(8)} median ${(measurement.medianMs * 1000).toFixed(1)} µs`,
    );
    return { label, store: store.name, idempotent: idempotent && keyed, measurement };
  };

  const [first] = stores;
  if (first === undefined) throw new Error('middleware: no store to run on');
  const telemetry = await measureTelemetry(options, progress);
  const baseline = telemetry.on;
  const rows: MiddlewareRow[] = [baseline, telemetry.off];
  rows.push(await measure('idempotency composed, call without key', first, true, false));
  for (const store of stores) rows.push(await measure('idempotency, fresh key per call', store, true, true));
  return { baseline, rows, telemetry, telemetryRounds: TELEMETRY_ROUNDS };
}

/**
 * The cost of the core's telemetry when the application installed
 * `@opentelemetry/api` but registered no SDK: the bare pipeline with
 * telemetry on (the default) against `telemetry: false`, in alternating
 * rounds, keeping each one's lowest median (a difference of a fraction of a
 * microsecond drowns in one round's noise otherwise).
 */
async function measureTelemetry(
  options: RunOptions,
  progress: (text: string) => void,
): Promise<MiddlewareResult['telemetry']> {
  // The premise of the row: the API answers, and nothing records.
  if (trace.getTracer('bench').startSpan('probe').isRecording())
    throw new Error('middleware: an OpenTelemetry SDK is registered');
  const store = new MemoryStore();
  const cases = [
    { label: 'no extension', on: true },
    { label: 'no extension, telemetry off (`telemetry: false`)', on: false },
  ];
  const best = new Map<boolean, Measurement>();
  try {
    for (let round = 0; round < TELEMETRY_ROUNDS; round++) {
      for (const item of round % 2 === 0 ? cases : [...cases].reverse()) {
        const fn = await checked(pipelineCall([], store, false, item.on), false);
        const measurement = await measureSequential(item.label, fn, options);
        const kept = best.get(item.on);
        if (kept === undefined || measurement.medianMs < kept.medianMs) best.set(item.on, measurement);
      }
    }
  } finally {
    await store.close();
  }
  const row = (on: boolean): MiddlewareRow => {
    const measurement = best.get(on);
    if (measurement === undefined) throw new Error('middleware: telemetry case not measured');
    progress(`middleware ${measurement.name.padEnd(40)} median ${(measurement.medianMs * 1000).toFixed(3)} µs`);
    return { label: measurement.name, store: 'memory', idempotent: false, measurement };
  };
  return { on: row(true), off: row(false) };
}

import { randomUUID } from 'node:crypto';
import {
  composeClient,
  composeServer,
  consoleLogger,
  createCallContext,
  createRequestContext,
  type ServerExtension,
  type Store,
  type ToolCall,
  type ToolHandler,
  type ToolInfo,
} from '@ext/core';
import { IDEMPOTENCY_ID } from '@ext/idempotency';
import { idempotencyClient } from '@ext/idempotency/client';
import { idempotencyServer } from '@ext/idempotency/server';
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
}

const TOOL: ToolInfo = { name: 'echo' };
const handler: ToolHandler = (args) => ({ content: [{ type: 'text', text: String(args.text) }] });
const neverAborted = new AbortController().signal;

/**
 * One `runToolCall` with everything an adapter would build per request: the
 * negotiation against the client's advertised extensions, the request and
 * call contexts, and the call itself (with a fresh key when `keyed`).
 */
function pipelineCall(extensions: readonly ServerExtension[], store: Store, keyed: boolean): () => Promise<unknown> {
  const composed = composeServer(extensions);
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
  const idempotency = (): ServerExtension => idempotencyServer({ maxKeysPerPrincipal: 1_000_000_000, defaultTtlSeconds: 600 });
  const measure = async (label: string, store: { name: string; create: () => Store | Promise<Store> }, idempotent: boolean, keyed: boolean): Promise<MiddlewareRow> => {
    const instance = await store.create();
    let measurement: Measurement;
    try {
      const fn = await checked(pipelineCall(idempotent ? [idempotency()] : [], instance, keyed), keyed);
      measurement = await measureSequential(label, fn, options);
    } finally {
      await instance.close();
    }
    progress(`middleware ${label.padEnd(40)} ${store.name.padEnd(8)} median ${(measurement.medianMs * 1000).toFixed(1)} µs`);
    return { label, store: store.name, idempotent: idempotent && keyed, measurement };
  };

  const [first] = stores;
  if (first === undefined) throw new Error('middleware: no store to run on');
  const baseline = await measure('no extension', first, false, false);
  const rows: MiddlewareRow[] = [baseline];
  rows.push(await measure('idempotency composed, call without key', first, true, false));
  for (const store of stores) rows.push(await measure('idempotency, fresh key per call', store, true, true));
  return { baseline, rows };
}

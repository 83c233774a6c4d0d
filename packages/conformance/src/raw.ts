/**
 * Raw requests on a probe's own connection: the kit writes the JSON-RPC
 * request itself and reads the answer as the server sent it, before the SDK
 * client decodes it (that client refuses `resultType: "task"` and strips
 * `resultType` from every other result).
 */
import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  PROTOCOL_VERSION_META_KEY,
  type Transport,
} from '@modelcontextprotocol/client';
import { isRecord } from '@ext/core/kit';
import { WireError } from '@ext/core';

/** What a raw request needs to know of its connection. */
export interface RawLinkOptions {
  /** The revision the connection speaks; a 2026-07-28 (or later) one gets the per-request `_meta` envelope. */
  readonly protocolVersion: () => string | undefined;
  readonly clientInfo: { readonly name: string; readonly version: string };
  readonly capabilities: Record<string, unknown>;
  readonly timeoutMs: number;
}

/** Sends one request and resolves to its raw result; a JSON-RPC error arrives as a thrown `WireError`. */
export type RawRequest = (method: string, params?: Record<string, unknown>) => Promise<Record<string, unknown>>;

interface Pending {
  resolve(result: Record<string, unknown>): void;
  reject(error: Error): void;
}

const RAW_ID_PREFIX = 'conformance-raw-';

function isModern(version: string | undefined): boolean {
  return version !== undefined && /^\d{4}-\d{2}-\d{2}$/.test(version) && version >= '2026-07-28';
}

/** `params` with the 2026-07-28 envelope merged into its `_meta` (unchanged on earlier revisions). */
export function withEnvelope(params: Record<string, unknown>, options: RawLinkOptions): Record<string, unknown> {
  const version = options.protocolVersion();
  if (!isModern(version)) return params;
  const meta = isRecord(params._meta) ? params._meta : {};
  return {
    ...params,
    _meta: {
      ...meta,
      [PROTOCOL_VERSION_META_KEY]: version,
      [CLIENT_INFO_META_KEY]: { ...options.clientInfo },
      [CLIENT_CAPABILITIES_META_KEY]: options.capabilities,
    },
  };
}

/** Settles the pending request a response answers; `false` when the message is not one of ours. */
function settle(message: unknown, pending: Map<string, Pending>): boolean {
  if (!isRecord(message) || typeof message.id !== 'string' || !message.id.startsWith(RAW_ID_PREFIX)) return false;
  const waiting = pending.get(message.id);
  if (waiting === undefined) return true;
  pending.delete(message.id);
  const error = message.error;
  if (isRecord(error)) {
    waiting.reject(toWireError(error));
  } else {
    waiting.resolve(isRecord(message.result) ? message.result : {});
  }
  return true;
}

/**
 * The JSON-RPC error an HTTP transport refused to deliver: Streamable HTTP
 * answers some errors with a 4xx status (a 404 for -32601), which the SDK's
 * transport throws with the body as `data.text` instead of passing it on.
 */
function errorInHttpFailure(error: unknown, id: string): WireError | undefined {
  const text = isRecord(error) && isRecord(error.data) ? error.data.text : undefined;
  if (typeof text !== 'string') return undefined;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isRecord(body) || body.id !== id || !isRecord(body.error)) return undefined;
  return toWireError(body.error);
}

function toWireError(error: Record<string, unknown>): WireError {
  const message = typeof error.message === 'string' ? error.message : '';
  return new WireError(typeof error.code === 'number' ? error.code : 0, message, error.data);
}

/**
 * Taps a transport a client is already connected on: responses to the raw
 * requests are taken off before the client sees them; every other message
 * (notifications, the client's own responses) still reaches it.
 */
export function tapTransport(transport: Transport, options: RawLinkOptions): RawRequest {
  const pending = new Map<string, Pending>();
  const inner = transport.onmessage;
  transport.onmessage = (message, extra) => {
    if (!settle(message, pending)) inner?.(message, extra);
  };
  let next = 0;
  return (method, params = {}) => {
    const id = `${RAW_ID_PREFIX}${String((next += 1))}`;
    return new Promise<Record<string, unknown>>((resolve, reject) => {
      const timer = setTimeout(() => {
        pending.delete(id);
        reject(new Error(`${method} got no answer within ${String(options.timeoutMs)} ms`));
      }, options.timeoutMs);
      const done =
        <T>(settleWith: (value: T) => void) =>
        (value: T) => {
          clearTimeout(timer);
          settleWith(value);
        };
      pending.set(id, { resolve: done(resolve), reject: done(reject) });
      transport.send({ jsonrpc: '2.0', id, method, params: withEnvelope(params, options) }).catch((error: unknown) => {
        pending.delete(id);
        done(reject)(errorInHttpFailure(error, id) ?? (error instanceof Error ? error : new Error(String(error))));
      });
    });
  };
}

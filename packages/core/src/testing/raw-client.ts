/**
 * A raw client of the 2026-07-28 revision: fetch and JSON only, as the
 * official conformance suite's own client speaks it (the SDK's client
 * refuses some results a server may send, such as `resultType: "task"` on
 * `tools/call`), so a test reads exactly what travels.
 */

/** A JSON-RPC error answer, as `RawClient.request` throws it. */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data: unknown,
  ) {
    super(message);
  }
}

export interface RawClientOptions {
  /** Extra HTTP headers on every request (the test servers name the caller by `x-user`). */
  readonly headers?: Readonly<Record<string, string>> | undefined;
  /** Sent on every request as `_meta["io.modelcontextprotocol/clientCapabilities"]`. Default `{}`. */
  readonly capabilities?: Readonly<Record<string, unknown>> | undefined;
}

export interface RawClient {
  /** The JSON-RPC result; a JSON-RPC error is thrown as `RpcError`. Entries of `params._meta` replace the client's. */
  request(method: string, params?: Record<string, unknown>): Promise<Record<string, unknown>>;
}

interface RpcMessage {
  readonly id?: unknown;
  readonly result?: Record<string, unknown>;
  readonly error?: { code: number; message: string; data?: unknown };
}

const PROTOCOL_VERSION = '2026-07-28';
let nextId = 1;

/** The `Mcp-Name` header's value: the tool's name, or the task's id. */
function nameOf(params: Record<string, unknown>): string | undefined {
  if (typeof params.name === 'string') return params.name;
  return typeof params.taskId === 'string' ? params.taskId : undefined;
}

/** The answer to request `id`: the body itself, or its event among those of an SSE stream. */
function answerOf(text: string, contentType: string, id: number): RpcMessage {
  if (!contentType.includes('text/event-stream')) return JSON.parse(text) as RpcMessage;
  const events = text
    .split(/\r?\n/)
    .filter((line) => line.startsWith('data:'))
    .map((line) => JSON.parse(line.slice('data:'.length)) as RpcMessage);
  const answer = events.find((event) => event.id === id);
  if (answer === undefined) throw new Error(`no answer to request ${id} in the event stream: ${text}`);
  return answer;
}

/**
 * A 2026-07-28 client over HTTP POST, built on `fetch` alone. Stateless:
 * every request carries the protocol version, the client's identity and its
 * capabilities in `_meta`, and mirrors its method (and name or task id) in
 * HTTP headers.
 */
export function rawClient(url: string, options: RawClientOptions = {}): RawClient {
  return {
    async request(method, params = {}) {
      const id = nextId++;
      const { _meta: ownMeta, ...rest } = params;
      const name = nameOf(rest);
      const response = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': PROTOCOL_VERSION,
          'mcp-method': method,
          ...(name === undefined ? {} : { 'mcp-name': name }),
          ...options.headers,
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id,
          method,
          params: {
            ...rest,
            _meta: {
              'io.modelcontextprotocol/protocolVersion': PROTOCOL_VERSION,
              'io.modelcontextprotocol/clientCapabilities': options.capabilities ?? {},
              'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '0.0.0' },
              ...(ownMeta as Record<string, unknown> | undefined),
            },
          },
        }),
      });
      const answer = answerOf(await response.text(), response.headers.get('content-type') ?? '', id);
      if (answer.error !== undefined) throw new RpcError(answer.error.code, answer.error.message, answer.error.data);
      if (answer.result === undefined) throw new Error(`HTTP ${response.status}: no result for ${method}`);
      return answer.result;
    },
  };
}

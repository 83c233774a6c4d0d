/**
 * A JSON-RPC link of the 2026-07-28 revision over HTTP POST, built on
 * `fetch` alone, that declares the official Tasks extension on every request
 * and hands back each result as it came. `@ext/tasks`' `callTool` needs one:
 * the v2 SDK's client (2.4.0) refuses a `tools/call` answered with
 * `resultType: "task"`. It runs in Node (the tour) and in the browser (the
 * console), so it imports nothing.
 */

/** The official Tasks extension's identifier (SEP-2663). */
export const OFFICIAL_TASKS_ID = 'io.modelcontextprotocol/tasks';

const PROTOCOL_VERSION = '2026-07-28';

export interface TaskLinkOptions {
  /** The MCP endpoint. */
  readonly url: URL | string;
  /** The caller's bearer token, when the server authenticates. */
  readonly token?: string | undefined;
  readonly clientInfo?: { readonly name: string; readonly version: string } | undefined;
}

/** What `@ext/tasks`' helpers send requests through (their `TaskRequester`). */
export interface TaskLink {
  /** The JSON-RPC result; a JSON-RPC error is thrown as {@link TaskLinkError}, a failed exchange as an `Error`. */
  request(method: string, params?: Record<string, unknown>): Promise<Record<string, unknown>>;
}

/** A JSON-RPC error the server answered with. */
export class TaskLinkError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data: unknown,
  ) {
    super(message);
    this.name = 'TaskLinkError';
  }
}

interface RpcAnswer {
  readonly id?: unknown;
  readonly result?: Record<string, unknown>;
  readonly error?: { readonly code: number; readonly message: string; readonly data?: unknown };
}

/** The answer to request `id`: a JSON body, or its event among those of an SSE stream (anything else: none). */
function answerIn(body: string, contentType: string, id: number): RpcAnswer | undefined {
  if (contentType.includes('application/json')) return JSON.parse(body) as RpcAnswer;
  if (!contentType.includes('text/event-stream')) return undefined;
  return body
    .split(/\r?\n/)
    .filter((line) => line.startsWith('data:'))
    .map((line) => JSON.parse(line.slice('data:'.length)) as RpcAnswer)
    .find((event) => event.id === id);
}

let nextId = 1;

/** The request's HTTP headers: the revision's own, the method (and tool or task) mirrored, and the token. */
function headersFor(
  method: string,
  params: Record<string, unknown>,
  token: string | undefined,
): Record<string, string> {
  const named = typeof params.name === 'string' ? params.name : params.taskId;
  return {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': PROTOCOL_VERSION,
    'mcp-method': method,
    ...(typeof named === 'string' ? { 'mcp-name': named } : {}),
    ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
  };
}

/** A link to `options.url`: stateless, every request carrying the revision, the client and its capabilities. */
export function taskLink(options: TaskLinkOptions): TaskLink {
  const clientInfo = options.clientInfo ?? { name: 'tracker-tasks-link', version: '0.0.0' };
  return {
    async request(method, params = {}) {
      const id = nextId++;
      const body = {
        jsonrpc: '2.0',
        id,
        method,
        params: {
          ...params,
          _meta: {
            'io.modelcontextprotocol/protocolVersion': PROTOCOL_VERSION,
            'io.modelcontextprotocol/clientCapabilities': { extensions: { [OFFICIAL_TASKS_ID]: {} } },
            'io.modelcontextprotocol/clientInfo': clientInfo,
          },
        },
      };
      const response = await fetch(options.url, {
        method: 'POST',
        headers: headersFor(method, params, options.token),
        body: JSON.stringify(body),
      });
      const text = await response.text();
      const answer = answerIn(text, response.headers.get('content-type') ?? '', id);
      if (answer?.error !== undefined)
        throw new TaskLinkError(answer.error.code, answer.error.message, answer.error.data);
      if (answer?.result === undefined) throw new Error(`${method}: HTTP ${String(response.status)} with no result`);
      return answer.result;
    },
  };
}

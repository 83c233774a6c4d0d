/**
 * A tool call to a 2026-07-28 upstream over HTTP without the SDK client: one
 * JSON-RPC POST on a kept-alive socket of Node's `http`, the answer read as
 * JSON or as an event stream. The SDK client still connects to the upstream,
 * lists its tools and listens for changes; this only replaces its
 * per-call machinery, which costs about as much CPU as the gateway's own
 * work on a call. What it sends and what it makes of each answer follow the
 * SDK client (`@modelcontextprotocol/client` 2.x) so that the rest of the
 * gateway cannot tell them apart: the same request envelope and headers,
 * the same results (`resultType` lifted, `content` defaulted, the text
 * fallback of a non-object `structuredContent`), the same errors for
 * malformed messages, JSON-RPC errors, HTTP refusals, timeouts and broken
 * connections (`lean-http.test.ts` holds the two paths to that). A tool the
 * SDK would send more for (`Mcp-Param-*` headers of an `x-mcp-header`
 * declaration, a name it encodes) is left to the SDK client. Two things the
 * SDK client does are not done: resuming an event stream that carried
 * event ids and ended before its answer (servers of this era answer each
 * request on its own stream, without ids), and refusing a result without
 * `structuredContent` from a tool with an output schema when the upstream
 * let its listing be cached (the gateway passes results on as they are).
 * This file writes the request; `lean-http-answer.ts` reads the answer and
 * `lean-http-messages.ts` the JSON-RPC messages in it.
 */
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  PROTOCOL_VERSION_META_KEY,
  SdkError,
  SdkErrorCode,
  type CallToolResult,
  type Client,
  type Implementation,
} from '@modelcontextprotocol/client';
import type { Upstream } from '../config/schema.js';
import { answer, asError } from './lean-http-answer.js';
import { CALL_METHOD, Reader, isPlainObject } from './lean-http-messages.js';
import { IDLE_SOCKET_MS } from './node-fetch.js';
import { isStdio } from './transport.js';
import type { UpstreamTool } from './types.js';

/** The only era this path speaks. */
export const LEAN_PROTOCOL_VERSION = '2026-07-28';

/** Names the SDK sends as they are in `Mcp-Name` (others it encodes): the characters MCP recommends for tool names. */
const PLAIN_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

/**
 * The capabilities the gateway's SDK client declares (`createUpstreamClient`
 * sets none), sent in each request's envelope as the SDK sends them.
 */
const CLIENT_CAPABILITIES: Readonly<Record<string, unknown>> = {};

export interface LeanCallParams {
  readonly name: string;
  readonly arguments?: Record<string, unknown> | undefined;
  readonly _meta?: Record<string, unknown> | undefined;
}

export interface LeanCallOptions {
  /** As the SDK's request timeout: the call fails with `RequestTimeout` after this many milliseconds. */
  readonly timeout: number;
  /** Aborting it cancels the request (its stream is closed, as the SDK does on 2026-07-28). */
  readonly signal?: AbortSignal | undefined;
}

export interface LeanHttpOptions {
  readonly url: string;
  /** The upstream's configured headers, sent with every request. */
  readonly headers?: Readonly<Record<string, string>> | undefined;
  /** Who the gateway says it is, as its SDK client does. */
  readonly clientInfo: Implementation;
  /** Called when a call's event stream carries `notifications/tools/list_changed`. */
  readonly onToolsChanged: () => void;
}

export interface LeanHttpCaller {
  /** Whether `tool` (as listed) is called this way; the SDK client calls the others. */
  accepts(tool: UpstreamTool | undefined): tool is UpstreamTool;
  callTool(params: LeanCallParams, options: LeanCallOptions): Promise<CallToolResult>;
  /** Destroys its sockets, in use or idle. */
  close(): void;
}

/** Whether `schema` declares a header the SDK would mirror (`x-mcp-header`) anywhere in it. */
function declaresHeaders(schema: unknown): boolean {
  if (Array.isArray(schema)) return schema.some(declaresHeaders);
  if (!isPlainObject(schema)) return false;
  return Object.entries(schema).some(([key, value]) => key === 'x-mcp-header' || declaresHeaders(value));
}

/** One call's request as the SDK client writes it: its JSON-RPC body and its headers. */
interface LeanRequest {
  readonly body: string;
  readonly headers: Readonly<Record<string, string>>;
}

/** Where and how the requests of one caller go: its URL and its own keep-alive sockets. */
interface Endpoint {
  readonly url: URL;
  readonly agent: HttpAgent;
  readonly send: typeof httpRequest;
}

/** Writes each call's request, `id` its JSON-RPC id, as the SDK client does. */
function requestWriter(options: LeanHttpOptions): (id: number, params: LeanCallParams) => LeanRequest {
  const envelope = {
    [PROTOCOL_VERSION_META_KEY]: LEAN_PROTOCOL_VERSION,
    [CLIENT_INFO_META_KEY]: options.clientInfo,
    [CLIENT_CAPABILITIES_META_KEY]: CLIENT_CAPABILITIES,
  };
  const configured = Object.fromEntries(Object.entries(options.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v]));
  return (id, params) => {
    // The caller's `_meta` keys win over the envelope's, as in the SDK.
    const meta = { ...envelope, ...params._meta };
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id,
      method: CALL_METHOD,
      params: { name: params.name, arguments: params.arguments, _meta: meta },
    });
    const headers = {
      ...configured,
      'mcp-protocol-version': LEAN_PROTOCOL_VERSION,
      'mcp-method': CALL_METHOD,
      'mcp-name': params.name,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'content-length': String(Buffer.byteLength(body)),
    };
    return { body, headers };
  };
}

/**
 * Sends `request` and settles with the outcome `reader` reads from its
 * answer, or fails at its timeout, when `signal` aborts, or when the
 * connection fails.
 */
function exchange(
  endpoint: Endpoint,
  request: LeanRequest,
  reader: Reader,
  callOptions: LeanCallOptions,
): Promise<CallToolResult> {
  const { signal, timeout } = callOptions;
  return new Promise<CallToolResult>((resolve, reject) => {
    let timer: NodeJS.Timeout | undefined;
    const settle = (error: unknown, result?: CallToolResult): void => {
      if (timer === undefined) return;
      clearTimeout(timer);
      timer = undefined;
      signal?.removeEventListener('abort', onAbort);
      if (result === undefined) {
        req.destroy();
        reject(asError(error));
      } else resolve(result);
    };
    const onAbort = (): void => {
      settle(signal?.reason);
    };
    // Once the answer has begun, its reading reports how it ended: a request error then is the same break.
    let answered = false;
    const { url, agent, send } = endpoint;
    const req = send(url, { method: 'POST', headers: request.headers, agent }, (res) => {
      answered = true;
      answer(res, reader).then(
        (result) => {
          settle(undefined, result);
        },
        (error: unknown) => {
          settle(error);
        },
      );
    });
    timer = setTimeout(() => {
      settle(new SdkError(SdkErrorCode.RequestTimeout, 'Request timed out', { timeout }));
    }, timeout);
    // As the global fetch: a failed connection is a `TypeError` whose cause is Node's error.
    req.on('error', (error) => {
      if (!answered) settle(new TypeError('fetch failed', { cause: error }));
    });
    if (signal?.aborted === true) {
      onAbort();
      return;
    }
    signal?.addEventListener('abort', onAbort, { once: true });
    req.end(request.body);
  });
}

/** The lean caller of the upstream at `options.url`, over keep-alive sockets of its own. */
export function leanHttpCaller(options: LeanHttpOptions): LeanHttpCaller {
  const url = new URL(options.url);
  const secure = url.protocol === 'https:';
  const agentOptions = { keepAlive: true, timeout: IDLE_SOCKET_MS };
  const agent = secure ? new HttpsAgent(agentOptions) : new HttpAgent(agentOptions);
  const endpoint: Endpoint = { url, agent, send: secure ? httpsRequest : httpRequest };
  const write = requestWriter(options);
  let nextId = 0;

  const call = (params: LeanCallParams, callOptions: LeanCallOptions): Promise<CallToolResult> => {
    const id = nextId++;
    return exchange(endpoint, write(id, params), new Reader(id, options.onToolsChanged), callOptions);
  };

  return {
    accepts: (tool): tool is UpstreamTool =>
      tool !== undefined && PLAIN_NAME.test(tool.name) && !declaresHeaders(tool.inputSchema),
    callTool: call,
    close() {
      agent.destroy();
    },
  };
}

/**
 * The lean caller for `client`, just connected to `upstream`, when its calls
 * can go that way: an HTTP upstream the client speaks 2026-07-28 with
 * (pinned or negotiated), which offers tools. `undefined` otherwise: the
 * SDK client makes every call.
 */
export function leanCallerFor(
  upstream: Upstream,
  client: Client,
  clientInfo: Implementation,
  onToolsChanged: () => void,
): LeanHttpCaller | undefined {
  if (isStdio(upstream)) return undefined;
  if (client.getProtocolEra() !== 'modern' || client.getNegotiatedProtocolVersion() !== LEAN_PROTOCOL_VERSION)
    return undefined;
  if (client.getServerCapabilities()?.tools === undefined) return undefined;
  return leanHttpCaller({ url: upstream.url, headers: upstream.headers, clientInfo, onToolsChanged });
}

/**
 * Calls `params.name` through `lean` when there is one and it takes the
 * tool (as `tools`, the upstream's last listing, describes it), else
 * through the SDK client.
 */
export function callThrough(
  lean: LeanHttpCaller | undefined,
  tools: readonly UpstreamTool[] | undefined,
  client: Client,
  params: LeanCallParams,
  options: LeanCallOptions,
): Promise<CallToolResult> {
  const tool = lean === undefined ? undefined : tools?.find((listed) => listed.name === params.name);
  if (lean !== undefined && lean.accepts(tool)) return lean.callTool(params, options);
  return client.callTool(params, options);
}

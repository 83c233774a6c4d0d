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
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  PROTOCOL_VERSION_META_KEY,
  ProtocolError,
  SdkError,
  SdkErrorCode,
  SdkHttpError,
  isCallToolResult,
  parseJSONRPCMessage,
  type CallToolResult,
  type Client,
  type Implementation,
} from '@modelcontextprotocol/client';
import type { Upstream } from '../config/schema.js';
import { IDLE_SOCKET_MS } from './node-fetch.js';
import { isStdio } from './transport.js';
import type { UpstreamTool } from './types.js';

/** The only era this path speaks. */
export const LEAN_PROTOCOL_VERSION = '2026-07-28';

const METHOD = 'tools/call';
const TOOLS_CHANGED = 'notifications/tools/list_changed';

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

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Whether `schema` declares a header the SDK would mirror (`x-mcp-header`) anywhere in it. */
function declaresHeaders(schema: unknown): boolean {
  if (Array.isArray(schema)) return schema.some(declaresHeaders);
  if (!isPlainObject(schema)) return false;
  return Object.entries(schema).some(([key, value]) => key === 'x-mcp-header' || declaresHeaders(value));
}

/** What a call rejects with: errors as they are (an aborted signal's reason included, which is one by default). */
function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error), { cause: error });
}

function mediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}

async function readText(res: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of res as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}

/** What the SDK client makes of a `tools/call` result on 2026-07-28 (its codec's decode, then its checks). */
export function decodeCallResult(raw: unknown): CallToolResult {
  if (!isPlainObject(raw))
    throw new SdkError(SdkErrorCode.InvalidResult, `Invalid result for ${METHOD}: not an object`, { method: METHOD });
  const resultType = raw.resultType;
  if (resultType === undefined)
    throw new SdkError(
      SdkErrorCode.InvalidResult,
      `Invalid result for ${METHOD}: missing required resultType — servers implementing protocol revision 2026-07-28 MUST include it (the absent-means-complete bridge applies only to earlier-revision servers)`,
      { method: METHOD, violation: 'missing-resultType' },
    );
  if (typeof resultType !== 'string')
    throw new SdkError(SdkErrorCode.InvalidResult, `Invalid result for ${METHOD}: non-string resultType`, {
      method: METHOD,
      resultType,
    });
  if (resultType !== 'complete')
    throw new SdkError(SdkErrorCode.UnsupportedResultType, `Unsupported result type '${resultType}' for ${METHOD}`, {
      resultType,
      method: METHOD,
    });
  const lifted: Record<string, unknown> = { ...raw };
  delete lifted.resultType;
  lifted.content ??= [];
  if (!isCallToolResult(lifted))
    throw new SdkError(SdkErrorCode.InvalidResult, `Invalid result for ${METHOD}: not a tool result`, {
      method: METHOD,
    });
  return withTextFallback(lifted);
}

/** A `structuredContent` that is no object also comes as text, unless some text is there already. */
function withTextFallback(result: CallToolResult): CallToolResult {
  const structured: unknown = result.structuredContent;
  if (structured === undefined || isPlainObject(structured)) return result;
  if (result.content.some((block) => block.type === 'text')) return result;
  return { ...result, content: [...result.content, { type: 'text', text: JSON.stringify(structured) }] };
}

/** What one JSON-RPC message of the answer means for the call `id`: its outcome, or nothing yet. */
type Outcome = { readonly result: CallToolResult } | undefined;

function hasOnlyKeys(message: Record<string, unknown>, allowed: readonly string[]): boolean {
  return Object.keys(message).every((key) => allowed.includes(key));
}

/**
 * Whether `message` is one the SDK's JSON-RPC schema takes as it is: a
 * response with an object result or a well-formed error, or a
 * notification. Anything else goes through that schema, which throws what
 * the SDK throws.
 */
function isPlainMessage(message: unknown): message is Record<string, unknown> {
  if (!isPlainObject(message) || message.jsonrpc !== '2.0') return false;
  if ('method' in message)
    return (
      !('id' in message) &&
      typeof message.method === 'string' &&
      (message.params === undefined || isPlainObject(message.params)) &&
      hasOnlyKeys(message, ['jsonrpc', 'method', 'params'])
    );
  if (typeof message.id !== 'string' && typeof message.id !== 'number') return false;
  if ('result' in message) return isPlainObject(message.result) && hasOnlyKeys(message, ['jsonrpc', 'id', 'result']);
  const error = message.error;
  return (
    isPlainObject(error) &&
    Number.isInteger(error.code) &&
    typeof error.message === 'string' &&
    hasOnlyKeys(message, ['jsonrpc', 'id', 'error'])
  );
}

/** `message` as the SDK's schema reads it: as it is when plainly well-formed, else parsed (which throws what the SDK throws). */
function parsed(message: unknown): Record<string, unknown> {
  return isPlainMessage(message) ? message : parseJSONRPCMessage(message);
}

/**
 * Reads the JSON-RPC messages of an answer for the call `id`: notifications
 * are dispatched as the SDK client of the gateway would (only a tool-list
 * change has a handler), the response ends the call, anything else is let
 * go (the SDK's client answers nothing else either).
 */
class Reader {
  constructor(
    private readonly id: number,
    private readonly onToolsChanged: () => void,
  ) {}

  /** A message `parsed` already: the call's outcome, if it is the response to it. */
  message(message: Record<string, unknown>): Outcome {
    if ('method' in message) {
      if (message.method === TOOLS_CHANGED && !('id' in message)) this.onToolsChanged();
      return undefined;
    }
    if (message.id !== this.id) return undefined;
    const error = message.error;
    if (isPlainObject(error)) throw ProtocolError.fromError(error.code as number, error.message as string, error.data);
    return { result: decodeCallResult(message.result) };
  }

  /** A whole JSON body: one message or a batch, each parsed as the SDK does (a malformed one fails the call). */
  body(body: unknown): Outcome {
    const messages = (Array.isArray(body) ? body : [body]).map(parsed);
    for (const message of messages) {
      const outcome = this.message(message);
      if (outcome !== undefined) return outcome;
    }
    return undefined;
  }

  /** One event of a stream: a malformed message is let go, as the SDK's transport does (it only logs it). */
  event(data: string): Outcome {
    let message: Record<string, unknown>;
    try {
      message = parsed(JSON.parse(data));
    } catch {
      return undefined;
    }
    return this.message(message);
  }
}

/** The `data` of each event of an event stream, as its lines arrive; `undefined` until one is whole. */
class EventStream {
  #buffer = '';
  #data: string[] = [];

  /** The events completed by `chunk`, each its data lines joined. */
  push(chunk: string): string[] {
    this.#buffer += chunk;
    const events: string[] = [];
    for (;;) {
      const end = this.#buffer.search(/\r\n|\r|\n/);
      if (end === -1) return events;
      const line = this.#buffer.slice(0, end);
      this.#buffer = this.#buffer.slice(end + (this.#buffer.startsWith('\r\n', end) ? 2 : 1));
      if (line === '') {
        if (this.#data.length > 0) events.push(this.#data.join('\n'));
        this.#data = [];
      } else if (line.startsWith('data:')) {
        this.#data.push(line.slice(line.startsWith('data: ') ? 6 : 5));
      }
    }
  }
}

/** The answer to a call read from an event stream, message by message, until the response to it comes. */
function readStream(res: IncomingMessage, reader: Reader): Promise<CallToolResult> {
  return new Promise((resolve, reject) => {
    const events = new EventStream();
    let done = false;
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      if (done) return;
      try {
        for (const data of events.push(chunk)) {
          const outcome = reader.event(data);
          if (outcome !== undefined) {
            done = true;
            res.destroy();
            resolve(outcome.result);
            return;
          }
        }
      } catch (error) {
        done = true;
        res.destroy();
        reject(asError(error));
      }
    });
    res.on('close', () => {
      if (done) return;
      done = true;
      // A stream that ended without the answer leaves the SDK waiting for it until the call times out; one
      // that broke off fails the call at once (the gateway's watch on the SDK's responses does the same).
      if (res.complete) return;
      reject(
        new SdkError(SdkErrorCode.ConnectionClosed, 'its answer broke off: the response broke off before its end'),
      );
    });
  });
}

/** An answer that is no success: the error the SDK client's transport throws for it. */
async function refused(res: IncomingMessage, reader: Reader): Promise<never> {
  const status = res.statusCode ?? 502;
  const text = await readText(res);
  // A 400 that answers the call with a JSON-RPC error is that error; anything else, a 401 included (the
  // gateway's client has no auth provider), is the HTTP error below.
  if (status === 400) {
    let answer: Record<string, unknown> | undefined;
    try {
      answer = parsed(JSON.parse(text));
    } catch {
      // Not a JSON-RPC message: the HTTP error below.
    }
    if (answer !== undefined && isPlainObject(answer.error)) reader.message(answer);
  }
  throw new SdkHttpError(SdkErrorCode.ClientHttpNotImplemented, `Error POSTing to endpoint: ${text}`, {
    status,
    statusText: res.statusMessage ?? '',
    text,
  });
}

/**
 * A JSON body, read whole. One cut short fails as it does through the
 * gateway's fetch: a body of announced length as a failed fetch, one read as
 * it came as an answer that broke off.
 */
async function readJson(res: IncomingMessage): Promise<string> {
  try {
    return await readText(res);
  } catch (error) {
    if (res.headers['content-length'] !== undefined) throw new TypeError('fetch failed', { cause: error });
    throw new SdkError(SdkErrorCode.ConnectionClosed, 'its answer broke off: the response broke off before its end');
  }
}

/** Never settles: the SDK waits for an answer that does not come until the call times out, and so does this. */
function noAnswer(res: IncomingMessage): Promise<never> {
  res.resume();
  return new Promise<never>(() => undefined);
}

/** The call's outcome from the upstream's answer `res`. */
async function answer(res: IncomingMessage, reader: Reader): Promise<CallToolResult> {
  const status = res.statusCode ?? 502;
  if (status < 200 || status >= 300) return refused(res, reader);
  if (status === 202) return noAnswer(res);
  const type = mediaType(res.headers['content-type']);
  if (type === 'text/event-stream') return readStream(res, reader);
  if (type === 'application/json') {
    const outcome = reader.body(JSON.parse(await readJson(res)));
    return outcome === undefined ? noAnswer(res) : outcome.result;
  }
  res.resume();
  const contentType = res.headers['content-type'] ?? null;
  throw new SdkError(SdkErrorCode.ClientHttpUnexpectedContent, `Unexpected content type: ${String(contentType)}`, {
    contentType,
  });
}

/** The lean caller of the upstream at `options.url`, over keep-alive sockets of its own. */
export function leanHttpCaller(options: LeanHttpOptions): LeanHttpCaller {
  const url = new URL(options.url);
  const secure = url.protocol === 'https:';
  const agentOptions = { keepAlive: true, timeout: IDLE_SOCKET_MS };
  const agent = secure ? new HttpsAgent(agentOptions) : new HttpAgent(agentOptions);
  const send = secure ? httpsRequest : httpRequest;
  const envelope = {
    [PROTOCOL_VERSION_META_KEY]: LEAN_PROTOCOL_VERSION,
    [CLIENT_INFO_META_KEY]: options.clientInfo,
    [CLIENT_CAPABILITIES_META_KEY]: CLIENT_CAPABILITIES,
  };
  const configured = Object.fromEntries(Object.entries(options.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v]));
  let nextId = 0;

  const call = (params: LeanCallParams, callOptions: LeanCallOptions): Promise<CallToolResult> => {
    const id = nextId++;
    // The caller's `_meta` keys win over the envelope's, as in the SDK.
    const meta = { ...envelope, ...params._meta };
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id,
      method: METHOD,
      params: { name: params.name, arguments: params.arguments, _meta: meta },
    });
    const headers = {
      ...configured,
      'mcp-protocol-version': LEAN_PROTOCOL_VERSION,
      'mcp-method': METHOD,
      'mcp-name': params.name,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'content-length': String(Buffer.byteLength(body)),
    };
    const reader = new Reader(id, options.onToolsChanged);
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
      const req = send(url, { method: 'POST', headers, agent }, (res) => {
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
      req.end(body);
    });
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

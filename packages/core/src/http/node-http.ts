/**
 * The bridge between Node's `http` module and fetch-shaped handlers: a Node
 * request as a fetch `Request` (or the `Response` refusing it), and a fetch
 * `Response` written back to Node, streamed with backpressure. No SDK here:
 * both SDK lines' handlers, and any other fetch handler, sit behind it.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { jsonRpcError } from './http-body.js';
import { consoleLogger } from '../telemetry/logger.js';

/** Methods a fetch `Request` cannot carry: refused with 405 before anything serves them. */
const FORBIDDEN_METHODS = new Set(['CONNECT', 'TRACE', 'TRACK']);

/** A request refused while it was converted: the answer is ready. Never leaves this module. */
class Refusal extends Error {
  constructor(readonly response: Response) {
    super(`request refused with ${String(response.status)}`);
  }
}

export interface FetchRequestOptions {
  /**
   * The origin the request's URL is built on (`http://127.0.0.1:3000`).
   * Default: the `Host` header when it is a plain authority, else the
   * socket's local address.
   */
  readonly origin?: string | undefined;
  /** Aborts the request (give one that aborts when the client goes away). */
  readonly signal?: AbortSignal | undefined;
  /**
   * Reads the body in full first, refusing one larger than this many bytes
   * with `413`. Default: the body streams, and the handler bounds it
   * (`createHttpHandler`'s `maxRequestBodyBytes`).
   */
  readonly maxBodyBytes?: number | undefined;
}

/** The request as Express and other frameworks leave it: a body parser's `body`, an auth middleware's `auth`. */
export interface NodeRequest extends IncomingMessage {
  body?: unknown;
  auth?: unknown;
  /** Express: the URL before a mounted router cut its prefix. */
  originalUrl?: string | undefined;
}

function bracketed(address: string): string {
  return address.includes(':') ? `[${address}]` : address;
}

function originOf(req: IncomingMessage): string {
  const scheme = (req.socket as { encrypted?: boolean }).encrypted === true ? 'https' : 'http';
  const host = req.headers.host;
  if (host !== undefined && /^[^\s/?#@\\]+$/.test(host)) {
    try {
      return new URL(`${scheme}://${host}`).origin;
    } catch {
      // Not an authority fetch accepts: the local address below names this server as well.
    }
  }
  return `${scheme}://${bracketed(req.socket.localAddress ?? '127.0.0.1')}:${String(req.socket.localPort ?? 80)}`;
}

/**
 * The request's URL on this server. Only the target's path and query count:
 * an origin-form target is appended to the origin as text, so `//host/x` or
 * `//user@host` stays a path instead of naming another authority (which
 * fetch refuses to construct); an absolute-form target keeps its path and
 * query, the Host header saying whom it was for.
 */
function requestUrl(req: NodeRequest, origin: string): URL {
  const target = req.originalUrl ?? req.url ?? '/';
  try {
    if (target.startsWith('/')) return new URL(`${origin}${target}`);
    const absolute = new URL(target);
    return new URL(`${origin}${absolute.pathname}${absolute.search}`);
  } catch {
    throw new Refusal(jsonRpcError(400, -32000, 'Bad request: the request target is not a URL'));
  }
}

/** Whether something in front (a body parser) already read the body. */
export function bodyConsumed(req: IncomingMessage): boolean {
  return req.readableDidRead || req.readableEnded;
}

async function readAll(req: IncomingMessage, limit: number): Promise<Uint8Array> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new Refusal(jsonRpcError(413, -32000, `request body exceeds ${String(limit)} bytes`));
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** The body to hand on: none, the text or bytes a body parser left, the bytes read in full, or the stream itself. */
async function bodyOf(
  req: NodeRequest,
  method: string,
  maxBodyBytes: number | undefined,
): Promise<RequestInit['body']> {
  if (method === 'GET' || method === 'HEAD') return undefined;
  if (bodyConsumed(req)) {
    // A raw or text parser's result is still the body; a JSON one travels as `parsedBody` instead.
    return typeof req.body === 'string' || req.body instanceof Uint8Array ? req.body : undefined;
  }
  if (maxBodyBytes !== undefined) return readAll(req, maxBodyBytes);
  return Readable.toWeb(req) as ReadableStream<Uint8Array>;
}

function headersOf(req: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) headers.append(name, item);
  }
  return headers;
}

/**
 * Node request -> fetch `Request`, or the `Response` refusing it: a method
 * fetch cannot represent (`405`), a target that is no URL (`400`), a body
 * over `maxBodyBytes` (`413`). The caller writes a refusal as any response.
 */
export async function toFetchRequest(req: NodeRequest, options: FetchRequestOptions = {}): Promise<Request | Response> {
  const method = req.method ?? 'GET';
  if (FORBIDDEN_METHODS.has(method.toUpperCase()))
    return jsonRpcError(405, -32000, `Method not allowed: ${method}`, { allow: 'GET, HEAD, POST, DELETE' });
  try {
    const url = requestUrl(req, options.origin ?? originOf(req));
    const body = await bodyOf(req, method, options.maxBodyBytes);
    return new Request(url, { method, headers: headersOf(req), body, signal: options.signal, duplex: 'half' });
  } catch (error) {
    if (error instanceof Refusal) return error.response;
    throw error;
  }
}

/** Resolves once `res` can take more, or is gone. */
function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.once('drain', done);
    res.once('close', done);
  });
}

/** The response's headers as Node takes them, `set-cookie` kept as a list. */
function nodeHeaders(response: Response): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) headers['set-cookie'] = cookies;
  return headers;
}

/** A JSON answer (JSON-RPC's, or any `+json` type). */
function isJson(response: Response): boolean {
  const type = response.headers.get('content-type');
  return type !== null && /^application\/(?:[\w.+-]+\+)?json\b/i.test(type);
}

/** A JSON answer up to this size is read whole and sent in one write; a larger one streams. */
const WHOLE_JSON_BYTES = 1024 * 1024;

interface ReadAhead {
  readonly chunks: Uint8Array[];
  /** The body ended within the limit: `chunks` is all of it. */
  readonly done: boolean;
}

async function readUpTo(reader: ReadableStreamDefaultReader<Uint8Array>, limit: number): Promise<ReadAhead> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  while (size <= limit) {
    const { done, value } = await reader.read();
    if (done) return { chunks, done: true };
    chunks.push(value);
    size += value.byteLength;
  }
  return { chunks, done: false };
}

/**
 * fetch `Response` -> Node response. A JSON answer (every JSON-RPC response
 * that is not a stream) of up to 1 MiB is read whole and written with its
 * length in one write, headers included (SERVE-5). Anything else streams
 * chunk by chunk, so Server-Sent Events reach the client as they are
 * produced, waiting whenever the client reads slower than the handler
 * writes, and stops reading when the client disconnects (SERVE-4).
 */
export async function writeFetchResponse(response: Response, res: ServerResponse): Promise<void> {
  const headers = nodeHeaders(response);
  if (response.body === null) {
    res.writeHead(response.status, headers);
    res.end();
    return;
  }
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const ahead = isJson(response) ? await readUpTo(reader, WHOLE_JSON_BYTES) : { chunks: [], done: false };
  if (ahead.done) {
    reader.releaseLock();
    const bytes = Buffer.concat(ahead.chunks);
    headers['content-length'] = String(bytes.byteLength);
    res.writeHead(response.status, headers);
    res.end(bytes);
    return;
  }
  res.writeHead(response.status, headers);
  res.flushHeaders();
  await streamBody(reader, ahead.chunks, res);
}

async function streamBody(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  first: readonly Uint8Array[],
  res: ServerResponse,
): Promise<void> {
  const onClose = (): void => {
    reader.cancel().catch((error: unknown) => {
      consoleLogger.debug?.('response stream cancel failed', { error: String(error) });
    });
  };
  res.once('close', onClose);
  try {
    for (const chunk of first) if (!res.destroyed && !res.write(chunk)) await drained(res);
    for (;;) {
      const { done, value } = await reader.read();
      if (done || res.destroyed) break;
      if (!res.write(value)) await drained(res);
    }
  } finally {
    res.off('close', onClose);
    reader.releaseLock();
  }
  res.end();
}

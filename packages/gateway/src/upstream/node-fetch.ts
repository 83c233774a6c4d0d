/**
 * The fetch the gateway speaks to an HTTP upstream with: Node's `http` and
 * `https` over keep-alive sockets of the upstream's own, in place of the
 * global fetch. A call through the gateway is one POST upstream; this
 * sends it in one write and builds the `Response` without the global
 * fetch's request, stream and body machinery (less than half its CPU per
 * request, measured in BENCHMARKS.md). Anything it does not handle itself
 * (a body that is not text or bytes, a redirect) goes to the global fetch.
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { Readable } from 'node:stream';
import type { FetchLike } from '@modelcontextprotocol/client';

/** Statuses whose response has no body, whatever the headers say. */
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

export interface KeepAliveFetch {
  readonly fetch: FetchLike;
  /** Destroys its sockets, in use or idle: call it once the connection is done with. */
  close(): void;
}

function outgoingHeaders(init: RequestInit | undefined, body: string | Uint8Array | undefined) {
  const headers: Record<string, string> = {};
  new Headers(init?.headers).forEach((value, name) => {
    headers[name] = value;
  });
  if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body));
  return headers;
}

function responseHeaders(res: IncomingMessage): Headers {
  const headers = new Headers();
  const raw = res.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) headers.append(raw[i] as string, raw[i + 1] as string);
  return headers;
}

/** A whole JSON body, whose length the upstream announced: read it at once. */
function isWholeJson(res: IncomingMessage): boolean {
  return res.headers['content-length'] !== undefined && /json/i.test(res.headers['content-type'] ?? '');
}

async function readWhole(res: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of res as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks);
}

/** Called when a response breaks off before its end (the server died or the connection dropped mid-stream). */
export type BrokenResponseListener = (error: Error) => void;

/**
 * `res` as a `Response`. A body read as it comes (an event stream) that
 * breaks off before its end, without the request being aborted, is reported
 * to `broken`: whoever reads it sees the error too, but may not pass it on.
 */
async function toResponse(
  res: IncomingMessage,
  method: string,
  signal: AbortSignal | undefined,
  broken: BrokenResponseListener | undefined,
): Promise<Response> {
  const status = res.statusCode ?? 502;
  const init = { status, statusText: res.statusMessage ?? '', headers: responseHeaders(res) };
  if (NULL_BODY_STATUSES.has(status) || method === 'HEAD') {
    res.resume();
    return new Response(null, init);
  }
  if (isWholeJson(res)) return new Response(await readWhole(res), init);
  if (broken !== undefined) {
    res.once('close', () => {
      if (!res.complete && signal?.aborted !== true)
        broken(new Error('the connection closed before the response ended'));
    });
  }
  return new Response(Readable.toWeb(res) as ReadableStream<Uint8Array>, init);
}

/** What the global fetch rejects with when the connection fails: a `TypeError` whose cause is Node's error. */
function fetchFailed(error: unknown, signal: AbortSignal | null | undefined): Error {
  if (signal?.aborted === true) {
    // As the global fetch: the signal's reason (an `AbortError` unless the caller gave another).
    const reason: unknown = signal.reason;
    return reason instanceof Error ? reason : new DOMException('This operation was aborted', 'AbortError');
  }
  return new TypeError('fetch failed', { cause: error });
}

function bodyOf(init: RequestInit | undefined): string | Uint8Array | undefined | null {
  const body = init?.body;
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string' || body instanceof Uint8Array) return body;
  // Streams, forms and the like: left to the global fetch.
  return null;
}

/**
 * How long a socket may sit idle before the fetch drops it, unless the
 * upstream announces less (`Keep-Alive: timeout=N`: then a second before N).
 * Below the 5 s that Node and most servers keep an idle connection, so a
 * request is never sent on a socket the server is closing (a "socket hang
 * up" on a call that was fine). A request in progress is never cut by it.
 */
export const IDLE_SOCKET_MS = 4000;

export interface KeepAliveFetchOptions {
  /** How long a socket may sit idle; default {@link IDLE_SOCKET_MS}. */
  readonly idleSocketMs?: number | undefined;
  /**
   * Asked as each request is made: the listener it returns, if any, hears
   * of that request's streamed response breaking off before its end.
   */
  readonly onBrokenResponse?: (() => BrokenResponseListener | undefined) | undefined;
}

/** A fetch over keep-alive sockets of its own (one agent for `http:`, one for `https:`). */
export function keepAliveFetch(options: KeepAliveFetchOptions = {}): KeepAliveFetch {
  // With a timeout set, Node's agent also honours the server's Keep-Alive hint, which it ignores without one.
  const agentOptions = { keepAlive: true, timeout: options.idleSocketMs ?? IDLE_SOCKET_MS };
  const agents = { http: new HttpAgent(agentOptions), https: new HttpsAgent(agentOptions) };
  const fetch: FetchLike = (input, init) => {
    const url = new URL(input);
    const body = bodyOf(init);
    const secure = url.protocol === 'https:';
    if (body === null || (!secure && url.protocol !== 'http:')) return globalThis.fetch(input, init);
    const method = (init?.method ?? 'GET').toUpperCase();
    const signal = init?.signal ?? undefined;
    const broken = options.onBrokenResponse?.();
    return new Promise<Response>((resolve, reject) => {
      const requestOptions = {
        method,
        headers: outgoingHeaders(init, body),
        agent: secure ? agents.https : agents.http,
        ...(signal === undefined ? {} : { signal }),
      };
      const req = (secure ? httpsRequest : httpRequest)(url, requestOptions, (res) => {
        if (REDIRECT_STATUSES.has(res.statusCode ?? 0) && res.headers.location !== undefined) {
          res.resume();
          resolve(globalThis.fetch(input, init));
          return;
        }
        toResponse(res, method, signal, broken).then(resolve, (error: unknown) => {
          reject(fetchFailed(error, signal));
        });
      });
      req.on('error', (error) => {
        reject(fetchFailed(error, signal));
      });
      req.end(body);
    });
  };
  return {
    fetch,
    close() {
      agents.http.destroy();
      agents.https.destroy();
    },
  };
}

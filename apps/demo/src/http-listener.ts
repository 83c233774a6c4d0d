/**
 * The request listener the demo's HTTP servers share: a small bridge between
 * Node's request/response and a fetch-shaped handler, DNS-rebinding
 * protection for a server bound to localhost, and the routes beside `/mcp`.
 */
import { once } from 'node:events';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { consoleLogger, type Logger } from '@ext/core';
import type { ServerCardHandler } from '@ext/manifest/server';
import {
  DEFAULT_MAX_REQUEST_BODY_SIZE,
  hostHeaderValidationResponse,
  localhostAllowedHostnames,
  localhostAllowedOrigins,
  originValidationResponse,
} from '@modelcontextprotocol/server';
import { serveConsole, type ConsoleFiles } from './console-files.js';
import { healthResponse, type ReadinessAnswer } from './readiness.js';

export const MCP_PATH = '/mcp';

/** A request refused before it becomes a fetch `Request`: answered with `status` and a JSON-RPC error. */
class RefusedRequest extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
  }
}

/** Methods a fetch `Request` cannot carry: nothing here serves them. */
const FORBIDDEN_METHODS = new Set(['CONNECT', 'TRACE', 'TRACK']);

async function readBody(req: IncomingMessage, limit: number): Promise<Uint8Array> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new RefusedRequest(413, `request body exceeds ${limit} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/**
 * The request's URL on this server. Only the target's path and query count:
 * an origin-form target is appended to our origin as text, so `//host/x` or
 * `//user@host` stays a path instead of naming another authority (which
 * fetch refuses to construct); an absolute-form target keeps its path and
 * query, the Host header (checked later) saying whom it was for.
 */
function requestUrl(req: IncomingMessage, origin: string): URL {
  const target = req.url ?? '/';
  try {
    if (target.startsWith('/')) return new URL(`${origin}${target}`);
    const absolute = new URL(target);
    return new URL(`${origin}${absolute.pathname}${absolute.search}`);
  } catch {
    throw new RefusedRequest(400, 'Bad request: the request target is not a URL');
  }
}

/**
 * Node request -> fetch `Request`. The body is read in full first (MCP
 * messages are small JSON, and a cap keeps a hostile client from streaming
 * forever); `signal` aborts when the client goes away. A method or target
 * fetch cannot represent is refused here (405, 400), not failed later.
 */
export async function toFetchRequest(
  req: IncomingMessage,
  origin: string,
  signal: AbortSignal,
  maxBodyBytes = DEFAULT_MAX_REQUEST_BODY_SIZE,
): Promise<Request> {
  const method = req.method ?? 'GET';
  if (FORBIDDEN_METHODS.has(method.toUpperCase()))
    throw new RefusedRequest(405, `Method not allowed: ${method}`, { allow: 'GET, HEAD, POST, DELETE' });
  const url = requestUrl(req, origin);
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) headers.append(name, item);
  }
  const body = method === 'GET' || method === 'HEAD' ? undefined : await readBody(req, maxBodyBytes);
  return new Request(url, { method, headers, body, signal });
}

/**
 * fetch `Response` -> Node response, streamed chunk by chunk so Server-Sent
 * Events reach the client as they are produced; stops reading when the
 * client disconnects.
 */
export async function writeFetchResponse(response: Response, res: ServerResponse): Promise<void> {
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) headers['set-cookie'] = cookies;
  res.writeHead(response.status, headers);
  if (response.body === null) {
    res.end();
    return;
  }
  res.flushHeaders();
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const onClose = (): void => {
    reader.cancel().catch((error: unknown) => {
      consoleLogger.debug?.('response stream cancel failed', { error: String(error) });
    });
  };
  res.once('close', onClose);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done || res.destroyed) break;
      if (!res.write(value)) await once(res, 'drain');
    }
  } finally {
    res.off('close', onClose);
    reader.releaseLock();
  }
  res.end();
}

function jsonRpcError(
  res: ServerResponse,
  status: number,
  message: string,
  headers: Readonly<Record<string, string>> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

/** What a request listener serves beside the MCP endpoint. */
export interface ListenerRoutes {
  /** The web console's files (`/console/*`). Default: none, every console path is a 404. */
  readonly console?: ConsoleFiles | undefined;
  /** The server card's paths, once known. */
  readonly card?: (() => ServerCardHandler | undefined) | undefined;
  /** `/readyz` answers this (and `/healthz` is served) when given. */
  readonly readiness?: (() => Promise<ReadinessAnswer>) | undefined;
}

const ALLOWED_HOSTS = localhostAllowedHostnames();
const ALLOWED_ORIGINS = localhostAllowedOrigins();

/** Everything but the bridge: the Host/Origin checks, then the route the path names. */
async function route(
  request: Request,
  res: ServerResponse,
  handler: { fetch(request: Request): Promise<Response> },
  routes: ListenerRoutes,
): Promise<void> {
  // A page on another site can reach 127.0.0.1 through the browser; only
  // local Host names and Origins (or none, for non-browser clients) pass.
  const refused =
    hostHeaderValidationResponse(request, ALLOWED_HOSTS) ?? originValidationResponse(request, ALLOWED_ORIGINS);
  if (refused !== undefined) {
    await writeFetchResponse(refused, res);
    return;
  }
  const pathname = new URL(request.url).pathname;
  const cards = routes.card?.();
  if (cards?.paths.includes(pathname) === true) {
    await writeFetchResponse(await cards.fetch(request), res);
    return;
  }
  const health =
    routes.readiness === undefined ? undefined : await healthResponse(pathname, request.method, routes.readiness);
  if (health !== undefined) {
    await writeFetchResponse(health, res);
    return;
  }
  if (request.method === 'GET' && serveConsole(pathname, routes.console ?? { dir: undefined }, res)) return;
  if (pathname !== MCP_PATH) {
    jsonRpcError(res, 404, `Not found: the MCP endpoint is ${MCP_PATH}`);
    return;
  }
  await writeFetchResponse(await handler.fetch(request), res);
}

/** The request listener: the bridge, DNS-rebinding checks, and routing to `/mcp`, the card, the health paths and the console. */
export function createRequestListener(
  handler: { fetch(request: Request): Promise<Response> },
  origin: () => string,
  logger: Logger,
  routes: ListenerRoutes = {},
) {
  const serve = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const aborter = new AbortController();
    res.once('close', () => {
      if (!res.writableFinished) aborter.abort();
    });
    let request: Request;
    try {
      request = await toFetchRequest(req, origin(), aborter.signal);
    } catch (error) {
      if (error instanceof RefusedRequest) {
        jsonRpcError(res, error.status, error.message, error.headers);
        return;
      }
      throw error;
    }
    await route(request, res, handler, routes);
  };
  return (req: IncomingMessage, res: ServerResponse): void => {
    serve(req, res).catch((error: unknown) => {
      logger.warn('tracker: request failed', { error: String(error) });
      if (!res.headersSent) jsonRpcError(res, 500, 'Internal server error');
      else res.destroy();
    });
  };
}

/** Stops a node:http server that serves an MCP handler, and the handler. */
export async function stopServing(server: Server, handler: { close(): Promise<void> }): Promise<void> {
  const stopped = new Promise<void>((resolve, reject) => {
    server.close((error) => {
      if (error) reject(error);
      else resolve();
    });
  });
  // Open SSE streams would keep server.close() waiting forever.
  await handler.close();
  server.closeAllConnections();
  await stopped;
}

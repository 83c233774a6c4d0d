/**
 * The request listener the demo's HTTP servers share: core's bridge between
 * Node's request/response and a fetch-shaped handler, DNS-rebinding
 * protection for a server bound to localhost, and the routes beside `/mcp`.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Logger } from '@ext/core';
import { refuseForeignRequest, toFetchRequest, writeFetchResponse } from '@ext/core/sdk-v2/server';
import type { ServerCardHandler } from '@ext/manifest/server';
import { DEFAULT_MAX_REQUEST_BODY_SIZE } from '@modelcontextprotocol/server';
import { serveConsole, type ConsoleFiles } from '../console/console-files.js';
import { healthResponse, type ReadinessAnswer } from './readiness.js';
import { WHOAMI_PATH } from './users.js';

export const MCP_PATH = '/mcp';

function jsonRpcError(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json' });
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
  /** `GET /console/whoami` answers this when given: who the request's bearer token names. */
  readonly whoami?: ((request: Request) => Promise<Response>) | undefined;
}

/** Everything but the bridge and the Host/Origin checks: the route the path names. */
async function route(
  request: Request,
  res: ServerResponse,
  handler: { fetch(request: Request): Promise<Response> },
  routes: ListenerRoutes,
): Promise<void> {
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
  if (request.method === 'GET' && pathname === WHOAMI_PATH && routes.whoami !== undefined) {
    await writeFetchResponse(await routes.whoami(request), res);
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
    // A page on another site can reach 127.0.0.1 through the browser; only the loopback
    // names at this port, and pages of this server (or none, for non-browser clients) pass.
    const foreign = refuseForeignRequest(req, {});
    if (foreign !== undefined) {
      await writeFetchResponse(foreign, res);
      return;
    }
    const aborter = new AbortController();
    res.once('close', () => {
      if (!res.writableFinished) aborter.abort();
    });
    // The body is read in full first (MCP messages are small JSON), bounded as the SDK bounds it; a request
    // fetch cannot represent, or a larger body, is answered here (405, 400, 413).
    const request = await toFetchRequest(req, {
      origin: origin(),
      signal: aborter.signal,
      maxBodyBytes: DEFAULT_MAX_REQUEST_BODY_SIZE,
    });
    if (request instanceof Response) {
      await writeFetchResponse(request, res);
      return;
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

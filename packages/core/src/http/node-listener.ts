/**
 * `nodeListener(handler)`: a fetch-shaped MCP handler as a Node request
 * listener, for `http.createServer` and Express. What a framework in front
 * already did (parsed the body, authenticated the caller) is handed on.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { jsonRpcError } from './http-body.js';
import {
  refuseForeignSource,
  resolveRequestSource,
  type LocalEndpoint,
  type RequestSourceOptions,
} from './http-origin.js';
import { consoleLogger, type Logger } from '../telemetry/logger.js';
import { bodyConsumed, toFetchRequest, writeFetchResponse, type NodeRequest } from './node-http.js';
import type { AuthInfo } from '../contract/types.js';

/** What a handler's `fetch` may be given beside the request (both SDK lines' `createHttpHandler` take these). */
export interface FetchHandlerOptions {
  /** The caller, when authentication ran in front (Express: `req.auth`). */
  readonly authInfo?: AuthInfo | undefined;
  /** The body a body parser in front already parsed (Express: `req.body` after `express.json()`). */
  readonly parsedBody?: unknown;
}

/** Anything with a fetch-shaped `fetch`: `createHttpHandler`'s handler of either SDK line. */
export interface FetchHandler {
  fetch(request: Request, options?: FetchHandlerOptions): Promise<Response>;
}

/** Where a request that failed is reported, and which `Host` names and page origins are served (SERVE-6). */
export interface NodeListenerOptions extends RequestSourceOptions {
  /** Where a request that failed unexpectedly is reported. Default: stderr. */
  readonly logger?: Logger | undefined;
}

/** A Node request listener: `http.createServer(listener)`, `app.all('/mcp', listener)`. */
export type NodeRequestListener = (req: IncomingMessage, res: ServerResponse) => void;

/** What a JSON body parser in front left in `req.body`, if one ran; text and bytes stay the request's body. */
function parsedBodyOf(req: NodeRequest): unknown {
  if (!bodyConsumed(req) || req.body === undefined) return undefined;
  return typeof req.body === 'string' || req.body instanceof Uint8Array ? undefined : req.body;
}

function fetchOptions(req: NodeRequest): FetchHandlerOptions {
  const parsedBody = parsedBodyOf(req);
  const authInfo = typeof req.auth === 'object' && req.auth !== null ? (req.auth as AuthInfo) : undefined;
  return {
    ...(authInfo === undefined ? {} : { authInfo }),
    ...(parsedBody === undefined ? {} : { parsedBody }),
  };
}

/** An abort signal that fires when the client goes away before its answer was written in full (CORE-34). */
function disconnectSignal(res: ServerResponse): AbortSignal {
  const aborter = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) aborter.abort();
  });
  return aborter.signal;
}

/**
 * The `403` for a Node request from a `Host` or `Origin` this server does
 * not serve (SERVE-6), judged on the address and port its connection
 * arrived on; `undefined` when it may be served. `options` as checked by
 * {@link resolveRequestSource}. A repeated `Origin` is not one origin: it
 * is refused as foreign.
 */
export function refuseForeignRequest(req: IncomingMessage, options: RequestSourceOptions): Response | undefined {
  const origin = req.headersDistinct.origin;
  const local: LocalEndpoint = { address: req.socket.localAddress ?? '', port: req.socket.localPort ?? 0 };
  return refuseForeignSource(
    { host: req.headers.host, origin: origin === undefined ? undefined : origin.join(', ') },
    local,
    options,
  );
}

/**
 * A Node request listener serving `handler` (SERVE-3): a request from a
 * foreign `Host` or `Origin` is answered `403` first (SERVE-6); any other
 * becomes a fetch `Request` whose signal aborts when the client disconnects, with
 * `req.body` (left by a body parser) passed as `parsedBody` and `req.auth`
 * as `authInfo`; the answer streams back with backpressure. Every path
 * reaches the handler: mount it where the endpoint lives.
 */
export function nodeListener(handler: FetchHandler, options: NodeListenerOptions = {}): NodeRequestListener {
  const logger = options.logger ?? consoleLogger;
  const sources = resolveRequestSource(options, 'nodeListener');
  const serve = async (req: NodeRequest, res: ServerResponse): Promise<void> => {
    const foreign = refuseForeignRequest(req, sources);
    if (foreign !== undefined) {
      await writeFetchResponse(foreign, res);
      return;
    }
    const request = await toFetchRequest(req, { signal: disconnectSignal(res) });
    const response = request instanceof Response ? request : await handler.fetch(request, fetchOptions(req));
    await writeFetchResponse(response, res);
  };
  return (req, res) => {
    serve(req, res).catch((error: unknown) => {
      logger.warn('MCP request failed', { error: String(error) });
      if (res.headersSent) {
        res.destroy();
        return;
      }
      writeFetchResponse(jsonRpcError(500, -32603, 'Internal server error'), res).catch(() => res.destroy());
    });
  };
}

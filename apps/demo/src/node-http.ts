/**
 * Serves the tracker over Streamable HTTP with Node's `http` module: a small
 * bridge between Node's request/response and the fetch-shaped handler core
 * provides, plus DNS-rebinding protection for a server bound to localhost.
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { consoleLogger, type ComposedServer, type Logger, type Store } from '@ext/core';
import type { ReferenceOrigin } from '@ext/data-references/server';
import { createServerCardHandler, type ServerCardHandler } from '@ext/manifest/server';
import { createHttpHandler as createV1HttpHandler } from '@ext/core/sdk-v1';
import { createHttpHandler } from '@ext/core/sdk-v2';
import {
  DEFAULT_MAX_REQUEST_BODY_SIZE,
  hostHeaderValidationResponse,
  localhostAllowedHostnames,
  localhostAllowedOrigins,
  originValidationResponse,
} from '@modelcontextprotocol/server';
import type { Target } from './connect.js';
import { CONSOLE_PATH, defaultConsoleDir, serveConsole, type ConsoleFiles } from './console-files.js';
import { checkReadiness, healthResponse, type ReadinessAnswer } from './readiness.js';
import {
  composeTracker,
  createStore,
  createTrackerServer,
  loadTrackerIndex,
  SERVER_INFO,
  startReferenceOrigin,
  type TrackerServerOptions,
} from './server.js';
import { createTrackerServerV1 } from './server-v1.js';
import { createDemoTokens, demoAuthenticate, type DemoTokens, type DemoUser } from './users.js';

export const DEFAULT_PORT = 3333;
export const DEFAULT_HOST = '127.0.0.1';
export const MCP_PATH = '/mcp';

/** A port number from configuration: an integer from 0 to 65535 (0 picks a free one); throws naming `what` otherwise. */
export function parsePort(raw: string, what: string): number {
  const port = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new RangeError(`${what} must be an integer from 0 to 65535, got ${JSON.stringify(raw)}`);
  }
  return port;
}

/** The port from `--port <n>` / `--port=<n>`, else `PORT`, else 3333; throws on a malformed value. */
export function resolvePort(argv: readonly string[], env: Readonly<Record<string, string | undefined>>): number {
  let raw: string | undefined;
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index];
    if (arg === '--port') raw = argv[index + 1] ?? '';
    else if (arg?.startsWith('--port=')) raw = arg.slice('--port='.length);
  }
  raw ??= env.PORT;
  if (raw === undefined || raw === '') return DEFAULT_PORT;
  return parsePort(raw, 'port');
}

/** The reference origin's port from `TRACKER_REFS_PORT`, validated like `PORT`; `undefined` (a free port) when unset. */
export function resolveRefsPort(env: Readonly<Record<string, string | undefined>>): number | undefined {
  const raw = env.TRACKER_REFS_PORT;
  return raw === undefined || raw === '' ? undefined : parsePort(raw, 'TRACKER_REFS_PORT');
}

/** The SDK line from `--sdk v1|v2` / `--sdk=<line>`, default v2; throws on anything else. */
export function resolveSdk(argv: readonly string[]): 'v1' | 'v2' {
  let raw: string | undefined;
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index];
    if (arg === '--sdk') raw = argv[index + 1] ?? '';
    else if (arg?.startsWith('--sdk=')) raw = arg.slice('--sdk='.length);
  }
  if (raw === undefined || raw === 'v2') return 'v2';
  if (raw === 'v1') return 'v1';
  throw new RangeError(`--sdk must be v1 or v2, got ${JSON.stringify(raw)}`);
}

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

export interface HttpServerOptions {
  /** Default 3333; 0 picks a free port. */
  readonly port?: number | undefined;
  /** Default 127.0.0.1. The Host/Origin checks assume a loopback address. */
  readonly host?: string | undefined;
  /** Where tickets and the extensions' state live. Default: a new in-memory store. */
  readonly store?: Store | undefined;
  readonly logger?: Logger | undefined;
  /** Default: the tracker's own composition ({@link composeTracker}). */
  readonly composed?: ComposedServer | undefined;
  /** Adds to each server instance (see `TrackerServerOptions.extend`). */
  readonly extend?: TrackerServerOptions['extend'];
  /** Pause between exported rows, in ms (default 0). */
  readonly exportPaceMs?: number | undefined;
  /**
   * Which SDK line serves: `v2` (default; both protocol eras) or `v1`
   * (`@modelcontextprotocol/sdk`, the 2025 era only). `extend` applies to v2 only.
   */
  readonly sdk?: 'v1' | 'v2' | undefined;
  /**
   * With the tracker's own composition: serve data references from an
   * origin on a port of its own (`export_report` then answers with a
   * reference, images may be uploaded out of band). Default `true`.
   */
  readonly references?: boolean | undefined;
  /**
   * `true`: serve every unauthenticated caller as the one shared principal
   * (local experiments, outside test suites that send no credentials).
   * Default `false`: every request needs a demo user's bearer token.
   */
  readonly anonymous?: boolean | undefined;
  /** The demo users' bearer tokens. Default: new random ones. */
  readonly tokens?: DemoTokens | undefined;
  /** With the tracker's own composition: the session-state secret (`composeTracker({ sessionSecret })`), so instances share it. */
  readonly sessionSecret?: string | undefined;
  /** With the tracker's own composition: the key that signs data-reference URLs (`startReferenceOrigin({ secret })`). */
  readonly refsSecret?: string | undefined;
  /** With the tracker's own composition: the reference origin's port (`TRACKER_REFS_PORT`). Default: a free one. */
  readonly refsPort?: number | undefined;
  /** Serve the console bundle's source map (`TRACKER_CONSOLE_SOURCEMAP=1`). Default `false`. */
  readonly consoleSourceMaps?: boolean | undefined;
}

export interface RunningHttpServer {
  /** The MCP endpoint, e.g. `http://127.0.0.1:3333/mcp`. */
  readonly url: URL;
  readonly composed: ComposedServer;
  readonly store: Store;
  readonly server: Server;
  /** Where the data references are served, when they are. */
  readonly origin: ReferenceOrigin | undefined;
  /** The server card: `GET /mcp/server-card` and `GET /.well-known/mcp/server-card.json`. */
  readonly cardUrl: URL;
  /** The demo users' bearer tokens; `undefined` when callers are anonymous. */
  readonly tokens: DemoTokens | undefined;
  /** Where a client connects as `user` (default alice; no token when anonymous). */
  readonly as: (user?: DemoUser) => Target;
  /** The web console, signed in as `user` (the token rides in the URL's fragment, which no request carries). */
  readonly consoleUrl: (user?: DemoUser) => URL;
  /** Stops accepting connections, closes every MCP session, then the store. */
  close(): Promise<void>;
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

const ALLOWED_HOSTS = localhostAllowedHostnames();
const ALLOWED_ORIGINS = localhostAllowedOrigins();

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

/** Starts the tracker on Streamable HTTP; resolves once it listens. */
export async function startHttpServer(options: HttpServerOptions = {}): Promise<RunningHttpServer> {
  const logger = options.logger ?? consoleLogger;
  const store = options.store ?? createStore();
  const origin =
    options.composed === undefined && options.references !== false
      ? await startReferenceOrigin(store, { logger, port: options.refsPort, secret: options.refsSecret })
      : undefined;
  const composed =
    options.composed ??
    composeTracker({ logger, origin, index: await loadTrackerIndex(logger), sessionSecret: options.sessionSecret });
  const host = options.host ?? DEFAULT_HOST;
  const buildV1 = () => createTrackerServerV1({ composed, store, logger, exportPaceMs: options.exportPaceMs });
  const buildV2 = () =>
    createTrackerServer({ composed, store, logger, extend: options.extend, exportPaceMs: options.exportPaceMs });
  const tokens = options.anonymous === true ? undefined : (options.tokens ?? createDemoTokens());
  const identity = tokens === undefined ? { anonymous: 'shared' as const } : { authenticate: demoAuthenticate(tokens) };
  const handler =
    options.sdk === 'v1'
      ? createV1HttpHandler(buildV1, { ...identity, logger })
      : createHttpHandler(buildV2, {
          ...identity,
          logger,
          onerror: (error) => {
            logger.warn('tracker: MCP handler error', { error: error.message });
          },
        });
  // One instance up front registers the tools, so the server card lists them before the first MCP request.
  await (options.sdk === 'v1' ? buildV1() : buildV2()).close();
  let authority = host;
  // The card names the endpoint, known once the server listens.
  const card: { current?: ServerCardHandler } = {};
  const server = createServer(
    createRequestListener(handler, () => `http://${authority}`, logger, {
      console: { dir: defaultConsoleDir(), sourceMaps: options.consoleSourceMaps },
      card: () => card.current,
      readiness: () => checkReadiness(store, logger),
    }),
  );
  server.listen(options.port ?? DEFAULT_PORT, host);
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  authority = host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
  const url = new URL(MCP_PATH, `http://${authority}`);
  card.current = createServerCardHandler({
    composed,
    serverInfo: { ...SERVER_INFO, description: 'A small project tracker composing every mcp-ext extension.' },
    endpointUrl: url.href,
    supportedProtocolVersions: options.sdk === 'v1' ? ['2025-11-25'] : ['2025-11-25', '2026-07-28'],
    sharedCallers: tokens === undefined,
  });

  let closing: Promise<void> | undefined;
  return {
    url,
    composed,
    store,
    server,
    origin,
    cardUrl: new URL(`${MCP_PATH}/server-card`, `http://${authority}`),
    tokens,
    as: (user = 'alice') => ({ kind: 'http', url, token: tokens?.[user] }),
    consoleUrl: (user = 'alice') =>
      new URL(`${CONSOLE_PATH}${tokens === undefined ? '' : `#token=${tokens[user]}`}`, `http://${authority}`),
    close() {
      closing ??= (async () => {
        await stopServing(server, handler);
        await origin?.close();
        await store.close();
      })();
      return closing;
    },
  };
}

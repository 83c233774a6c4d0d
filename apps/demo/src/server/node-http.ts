/**
 * Serves the tracker over Streamable HTTP with Node's `http` module, through
 * the shared request listener (`http-listener.ts`): the MCP endpoint of either
 * SDK line, the server card, the health paths and the web console.
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ConfigurationError, type ComposedServer, type Logger, type Store } from '@ext/core';
import { consoleLogger } from '@ext/core/kit';
import type { ReferenceOrigin } from '@ext/data-references/server';
import { createServerCardHandler, type ServerCardHandler } from '@ext/manifest/server';
import { createHttpHandler as createV1HttpHandler } from '@ext/core/sdk-v1';
import { createHttpHandler, isLoopbackAddress } from '@ext/core/sdk-v2';
import { DEFAULT_PORT } from './cli-args.js';
import type { Target } from '../client/connect.js';
import { CONSOLE_PATH, defaultConsoleDir } from '../console/console-files.js';
import { createRequestListener, MCP_PATH, stopServing } from './http-listener.js';
import { checkReadiness } from './readiness.js';
import { composeTracker, SERVER_INFO } from './compose.js';
import { createStore } from './store.js';
import { createTrackerServer, type TrackerServerOptions } from './server.js';
import { loadTrackerIndex } from './discovery.js';
import { startReferenceOrigin } from './reference-origin.js';
import { createTrackerServerV1 } from './server-v1.js';
import { createDemoTokens, demoAuthenticate, demoWhoami, type DemoTokens, type DemoUser } from './users.js';

export const DEFAULT_HOST = '127.0.0.1';

/** What either SDK line's HTTP handler offers the listener: requests in, and a close that ends every session. */
interface McpHandler {
  fetch(request: Request): Promise<Response>;
  close(): Promise<void>;
}

export interface HttpServerOptions {
  /** Default 3333; 0 picks a free port. */
  readonly port?: number | undefined;
  /**
   * Default 127.0.0.1 (only the loopback names at the port are served). Any
   * other address needs the demo users' tokens: `anonymous` is refused there.
   */
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

/** Starts the tracker on Streamable HTTP; resolves once it listens. */
export async function startHttpServer(options: HttpServerOptions = {}): Promise<RunningHttpServer> {
  const host = options.host ?? DEFAULT_HOST;
  if (options.anonymous === true && !isLoopbackAddress(host))
    throw new ConfigurationError(
      'UNIDENTIFIED_ON_NETWORK',
      `tracker: host ${host} lets other machines connect; serve anonymous callers on 127.0.0.1 only`,
    );
  const logger = options.logger ?? consoleLogger;
  const store = options.store ?? createStore();
  const { origin, composed } = await trackerComposition(options, store, logger);
  const tokens = options.anonymous === true ? undefined : (options.tokens ?? createDemoTokens());
  const handler = await mcpHandler(options, { composed, store, logger }, tokens);
  let authority = host;
  // The card names the endpoint, known once the server listens.
  const card: { current?: ServerCardHandler } = {};
  const server = createServer(
    createRequestListener(handler, () => `http://${authority}`, logger, {
      console: { dir: defaultConsoleDir(), sourceMaps: options.consoleSourceMaps },
      card: () => card.current,
      readiness: () => checkReadiness(store, logger),
      whoami: demoWhoami(tokens),
    }),
  );
  server.listen(options.port ?? DEFAULT_PORT, host);
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  authority = host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
  const url = new URL(MCP_PATH, `http://${authority}`);
  card.current = serverCard(composed, url, options.sdk, tokens === undefined);

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

/** The composition given, else the tracker's own, with its reference origin unless `references` is `false`. */
async function trackerComposition(
  options: HttpServerOptions,
  store: Store,
  logger: Logger,
): Promise<{ origin: ReferenceOrigin | undefined; composed: ComposedServer }> {
  if (options.composed !== undefined) return { origin: undefined, composed: options.composed };
  const origin =
    options.references === false
      ? undefined
      : await startReferenceOrigin(store, { logger, port: options.refsPort, secret: options.refsSecret });
  const index = await loadTrackerIndex(logger);
  return { origin, composed: composeTracker({ logger, origin, index, sessionSecret: options.sessionSecret }) };
}

/** The MCP endpoint of the SDK line asked for, behind the demo users' bearer gate (or one shared caller when anonymous). */
async function mcpHandler(
  options: HttpServerOptions,
  shared: { readonly composed: ComposedServer; readonly store: Store; readonly logger: Logger },
  tokens: DemoTokens | undefined,
): Promise<McpHandler> {
  const { logger } = shared;
  const buildV1 = () => createTrackerServerV1({ ...shared, exportPaceMs: options.exportPaceMs });
  const buildV2 = () => createTrackerServer({ ...shared, extend: options.extend, exportPaceMs: options.exportPaceMs });
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
  return handler;
}

/** The server card of the tracker listening at `url`. */
function serverCard(
  composed: ComposedServer,
  url: URL,
  sdk: 'v1' | 'v2' | undefined,
  sharedCallers: boolean,
): ServerCardHandler {
  return createServerCardHandler({
    composed,
    serverInfo: { ...SERVER_INFO, description: 'A small project tracker composing every mcp-ext extension.' },
    endpointUrl: url.href,
    supportedProtocolVersions: sdk === 'v1' ? ['2025-11-25'] : ['2025-11-25', '2026-07-28'],
    sharedCallers,
  });
}

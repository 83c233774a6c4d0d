/**
 * `listen(handler)`: an MCP handler of either SDK line served on a port in
 * one call, with Node's `http` module, at one path; and the way to stop it
 * that also ends the streams a server keeps open.
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ConfigurationError } from '../contract/errors.js';
import { jsonRpcError } from './http-body.js';
import { isLoopbackAddress, resolveRequestSource, type RequestSourceOptions } from './http-origin.js';
import { nonNegativeIntegerOption } from '../kit/options.js';
import type { Logger } from '../telemetry/logger.js';
import { nodeListener, type FetchHandler } from './node-listener.js';

const DEFAULT_LISTEN_PORT = 3000;
const DEFAULT_LISTEN_HOST = '127.0.0.1';
const DEFAULT_LISTEN_PATH = '/mcp';

/** A handler `listen` serves and, when it stops, closes: `createHttpHandler`'s, of either SDK line. */
export interface ServableHandler extends FetchHandler {
  close(): Promise<void>;
  /** Whether every request names its own caller; a handler that does not say is taken not to. */
  readonly identifiesCallers?: boolean | undefined;
  /** Documents served beside the endpoint (OAuth protected-resource metadata); asked for every other path. */
  readonly wellKnown?: ((request: Request) => Response | undefined) | undefined;
  /**
   * Pages and APIs served beside the endpoint (an approvals page): asked for
   * every other path before the well-known documents; `undefined` passes.
   */
  readonly pages?: ((request: Request) => Promise<Response | undefined>) | undefined;
}

/**
 * Where and what to serve. `allowedHosts` and `allowedOrigins` say which
 * `Host` names and page origins are answered (SERVE-6); by default, bound
 * to loopback, only `localhost`, `127.0.0.1` and `[::1]` at the port.
 */
export interface ListenOptions extends RequestSourceOptions {
  /** Default 3000; 0 picks a free port (read it from `url`). */
  readonly port?: number | undefined;
  /**
   * The address to bind. Default `127.0.0.1`: only this machine can connect.
   * Any other address needs a handler that identifies its callers (SERVE-7).
   */
  readonly host?: string | undefined;
  /** The endpoint's path. Default `/mcp`; any other path is answered `404`. */
  readonly path?: string | undefined;
  /** Where a request that failed unexpectedly is reported. Default: stderr. */
  readonly logger?: Logger | undefined;
}

export interface Listening {
  /** The endpoint, e.g. `http://127.0.0.1:3000/mcp`. */
  readonly url: URL;
  readonly server: Server;
  /** Closes the handler (its sessions and open streams) and the server; resolves once both are done. */
  close(): Promise<void>;
}

interface ListenSettings {
  readonly port: number;
  readonly host: string;
  readonly path: string;
  readonly sources: RequestSourceOptions;
}

function invalid(option: string, rule: string, value: unknown): ConfigurationError {
  return new ConfigurationError('INVALID_OPTION', `listen: ${option} must be ${rule}, got ${String(value)}`);
}

function settingsOf(handler: ServableHandler, options: ListenOptions): ListenSettings {
  const candidate = handler as Partial<ServableHandler> | undefined;
  if (typeof candidate?.fetch !== 'function' || typeof candidate.close !== 'function')
    throw invalid('handler', 'an object with fetch(request) and close()', handler);
  const port = nonNegativeIntegerOption('listen', 'port', options.port, DEFAULT_LISTEN_PORT);
  if (port > 65_535) throw invalid('port', 'an integer from 0 to 65535', port);
  const host = options.host ?? DEFAULT_LISTEN_HOST;
  if (typeof host !== 'string' || host.length === 0) throw invalid('host', 'a non-empty string', host);
  const path = options.path ?? DEFAULT_LISTEN_PATH;
  if (typeof path !== 'string' || !/^\/[^?#\s]*$/.test(path))
    throw invalid('path', 'a path starting with "/" (no query or fragment)', path);
  if (!isLoopbackAddress(host) && candidate.identifiesCallers !== true)
    throw new ConfigurationError(
      'UNIDENTIFIED_ON_NETWORK',
      `listen: host ${host} lets other machines connect, and the handler does not identify its callers; ` +
        "give createHttpHandler `authenticate` or `identify` (without `anonymous: 'shared'`), or bind 127.0.0.1",
    );
  return { port, host, path, sources: resolveRequestSource(options, 'listen') };
}

/** `handler` at `path`, its pages and well-known documents at theirs, and a short JSON-RPC error naming the endpoint everywhere else (SERVE-1). */
function atPath(handler: ServableHandler, path: string): FetchHandler {
  const beside = async (request: Request) =>
    (await handler.pages?.(request)) ??
    handler.wellKnown?.(request) ??
    jsonRpcError(404, -32000, `Not found: the MCP endpoint is ${path}`);
  return {
    fetch: (request, options) =>
      new URL(request.url).pathname === path ? handler.fetch(request, options) : beside(request),
  };
}

/** Stops accepting connections, closes the handler, then ends every connection still open (SERVE-2). */
async function stop(server: Server, handler: ServableHandler): Promise<void> {
  const stopped = new Promise<void>((resolve, reject) => {
    server.close((error) => {
      if (error) reject(error);
      else resolve();
    });
  });
  // Open SSE streams would keep server.close() waiting forever.
  try {
    await handler.close();
  } finally {
    server.closeAllConnections();
  }
  await stopped;
}

async function start(handler: ServableHandler, settings: ListenSettings, logger: Logger | undefined) {
  const server = createServer(nodeListener(atPath(handler, settings.path), { ...settings.sources, logger }));
  server.listen(settings.port, settings.host);
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const host = settings.host.includes(':') ? `[${settings.host}]` : settings.host;
  let closing: Promise<void> | undefined;
  return {
    url: new URL(settings.path, `http://${host}:${String(port)}`),
    server,
    close: () => (closing ??= stop(server, handler)),
  };
}

/**
 * Serves `handler` (`createHttpHandler`'s, of `@ext/core/sdk-v2` or
 * `@ext/core/sdk-v1`) over HTTP at `http://<host>:<port><path>` and resolves
 * once it listens. Bad options throw `ConfigurationError` `INVALID_OPTION`
 * at once, naming the option; a port in use rejects with Node's error.
 * `close()` closes the handler and the server, open SSE streams included.
 */
export function listen(handler: ServableHandler, options: ListenOptions = {}): Promise<Listening> {
  const settings = settingsOf(handler, options);
  return start(handler, settings, options.logger);
}

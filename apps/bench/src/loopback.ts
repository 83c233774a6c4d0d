/**
 * Real HTTP on loopback, shared by the transfer and multimodal benchmarks: a
 * server that counts its bytes, an MCP endpoint, a client, an RSS sampler.
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  composeServer,
  type ClientExtension,
  type ExtendedClient,
  type ExtendedServer,
  type ServerExtension,
  type Store,
} from '@ext/core';
import { silentLogger } from '@ext/core/kit';
import { extendClient } from '@ext/core/sdk-v2/client';
import { createHttpHandler, extendServer } from '@ext/core/sdk-v2/server';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { McpServer } from '@modelcontextprotocol/server';

const MODERN_PROTOCOL_VERSION = '2026-07-28';
const CLIENT_INFO = { name: 'bench-client', version: '0.0.0' };

/** A node:http server on 127.0.0.1 that counts every byte its sockets carry. */
export interface CountingServer {
  readonly url: string;
  /** Bytes read and written by all its sockets so far (headers, bodies, framing). */
  bytes(): number;
  close(): Promise<void>;
}

export async function countingServer(
  handle: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<CountingServer> {
  const live = new Set<Socket>();
  let closed = 0;
  const server: Server = createServer(handle);
  server.on('connection', (socket: Socket) => {
    live.add(socket);
    socket.once('close', () => {
      live.delete(socket);
      closed += socket.bytesRead + socket.bytesWritten;
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${String(port)}`,
    bytes: () => [...live].reduce((sum, socket) => sum + socket.bytesRead + socket.bytesWritten, closed),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
}

/** Node request -> fetch `Request`, body streamed. */
function toRequest(req: IncomingMessage, base: string): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (typeof value === 'string') headers.set(name, value);
    else if (Array.isArray(value)) for (const item of value) headers.append(name, item);
  }
  const init: RequestInit & { duplex?: 'half' } = { method: req.method ?? 'GET', headers };
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    init.body = Readable.toWeb(req) as ReadableStream<Uint8Array>;
    init.duplex = 'half';
  }
  return new Request(new URL(req.url ?? '/', base), init);
}

/** fetch `Response` -> node response, body streamed. */
async function sendResponse(res: ServerResponse, response: Response): Promise<void> {
  res.writeHead(response.status, Object.fromEntries(response.headers));
  if (response.body === null) {
    res.end();
    return;
  }
  await pipeline(Readable.fromWeb(response.body), res);
}

/** An MCP endpoint (2026-07-28 era, a server per request) with extensions, behind `/mcp`. */
export interface McpEndpoint {
  handle(req: IncomingMessage, res: ServerResponse, base: string): void;
  close(): Promise<void>;
}

export function mcpEndpoint(
  extensions: readonly ServerExtension[],
  store: Store,
  setup: (server: ExtendedServer) => void,
  maxRequestBodySize?: number,
): McpEndpoint {
  const composed = composeServer(extensions, { logger: silentLogger });
  // Core's handler, so callers are identified: the benchmark's one client is every caller, the one shared principal.
  const handler = createHttpHandler(
    () => {
      const mcp = new McpServer({ name: 'bench-server', version: '0.0.0' });
      setup(extendServer(mcp, composed, { store, logger: silentLogger }));
      return mcp;
    },
    { anonymous: 'shared', logger: silentLogger, maxRequestBodyBytes: maxRequestBodySize },
  );
  return {
    handle(req, res, base) {
      handler
        .fetch(toRequest(req, base))
        .then((response) => sendResponse(res, response))
        .catch((error: unknown) => {
          console.error('bench: an MCP request failed', error);
          if (!res.headersSent) res.writeHead(500).end();
          else res.destroy();
        });
    },
    close: () => handler.close(),
  };
}

/** An extended v2 client (2026-07-28 era) talking to `url` over real HTTP. */
export async function httpClient(url: string, extensions: readonly ClientExtension[]): Promise<ExtendedClient> {
  const client = new Client(CLIENT_INFO, { versionNegotiation: { mode: { pin: MODERN_PROTOCOL_VERSION } } });
  const extended = extendClient(client, extensions, { logger: silentLogger });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return extended;
}

/**
 * Samples this process's resident set size every 10 ms from `start()` to
 * `stop()`, which answers the peak rise over the size at the start (taken
 * after a full garbage collection).
 */
export class RssSampler {
  #before = 0;
  #peak = 0;
  #timer: NodeJS.Timeout | undefined;

  start(): void {
    globalThis.gc?.();
    this.#before = process.memoryUsage.rss();
    this.#peak = this.#before;
    clearInterval(this.#timer);
    this.#timer = setInterval(() => {
      this.#peak = Math.max(this.#peak, process.memoryUsage.rss());
    }, 10);
  }

  stop(): number {
    clearInterval(this.#timer);
    this.#timer = undefined;
    this.#peak = Math.max(this.#peak, process.memoryUsage.rss());
    return this.#peak - this.#before;
  }
}

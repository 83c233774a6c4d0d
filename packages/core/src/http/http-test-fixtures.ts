/**
 * For tests: a fetch-shaped handler served over real HTTP on 127.0.0.1 by
 * Node's `http` module, the way a host bridges it (the request's signal
 * aborts when the client goes away before the answer ended), and the raw
 * messages a legacy-era client sends.
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';

export interface ServedOverHttp {
  readonly url: URL;
  close(): Promise<void>;
}

function toRequest(req: IncomingMessage, base: string, signal: AbortSignal): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    for (const item of Array.isArray(value) ? value : value === undefined ? [] : [value]) headers.append(name, item);
  }
  const method = req.method ?? 'GET';
  const body = method === 'GET' || method === 'HEAD' ? undefined : (Readable.toWeb(req) as ReadableStream<Uint8Array>);
  return new Request(new URL(req.url ?? '/', base), { method, headers, body, signal, duplex: 'half' });
}

async function writeResponse(response: Response, res: ServerResponse): Promise<void> {
  res.writeHead(response.status, Object.fromEntries(response.headers));
  if (response.body === null) {
    res.end();
    return;
  }
  res.flushHeaders();
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  res.once('close', () => {
    reader.cancel().catch(() => undefined);
  });
  for (;;) {
    const { done, value } = await reader.read();
    if (done || res.destroyed) break;
    res.write(value);
  }
  res.end();
}

export async function serveOverHttp(handler: { fetch(request: Request): Promise<Response> }): Promise<ServedOverHttp> {
  let base = '';
  const server = createServer((req, res) => {
    const aborter = new AbortController();
    res.once('close', () => {
      if (!res.writableFinished) aborter.abort();
    });
    handler
      .fetch(toRequest(req, base, aborter.signal))
      .then((response) => writeResponse(response, res))
      .catch(() => {
        if (!res.headersSent) res.writeHead(500);
        res.end();
      });
  });
  const served = await onLoopback(server.listen(0, '127.0.0.1'));
  base = served.url.origin;
  return served;
}

/** A Node server told to listen on 127.0.0.1: its `/mcp` URL once it listens, and a close that ends open connections too. */
export async function onLoopback(server: Server): Promise<ServedOverHttp> {
  if (!server.listening) await once(server, 'listening');
  return {
    url: new URL(`http://127.0.0.1:${String((server.address() as AddressInfo).port)}/mcp`),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
}

export const LEGACY_HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
} as const;

export const INITIALIZE = {
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
} as const;

/** Opens a legacy-era session with raw requests, as a client would; resolves to its id. */
export async function openSession(
  url: URL,
  headers: Record<string, string> = {},
  capabilities: Record<string, unknown> = {},
): Promise<string> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { ...LEGACY_HEADERS, ...headers },
    body: JSON.stringify({ ...INITIALIZE, params: { ...INITIALIZE.params, capabilities } }),
  });
  await response.text();
  const id = response.headers.get('mcp-session-id');
  if (response.status !== 200 || id === null) throw new Error(`initialize answered ${String(response.status)}`);
  const initialized = await fetch(url, {
    method: 'POST',
    headers: { ...LEGACY_HEADERS, ...headers, 'mcp-session-id': id, 'mcp-protocol-version': '2025-11-25' },
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  });
  await initialized.text();
  return id;
}

/**
 * The gateway's own fetch against a real HTTP server: what the SDK's
 * transport relies on from a fetch (headers, JSON, an event stream read as
 * it comes, the errors of a refused or aborted request, a stream that
 * breaks off, redirects), and
 * what it is for: one keep-alive connection for many requests.
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { keepAliveFetch, type KeepAliveFetch } from './node-fetch.js';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Served {
  readonly url: string;
  /** Connections the server accepted. */
  readonly connections: Socket[];
}

async function serve(
  handler: (req: IncomingMessage, res: ServerResponse, body: string) => void,
  keepAliveTimeoutMs = 5000,
): Promise<Served> {
  const connections: Socket[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      handler(req, res, Buffer.concat(chunks).toString('utf8'));
    });
  });
  server.keepAliveTimeout = keepAliveTimeoutMs;
  server.on('connection', (socket: Socket) => connections.push(socket));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  cleanups.push(() => {
    server.closeAllConnections();
    return new Promise((resolve) => server.close(resolve));
  });
  return { url: `http://127.0.0.1:${String((server.address() as AddressInfo).port)}/mcp`, connections };
}

function client(options: { idleSocketMs?: number } = {}): KeepAliveFetch {
  const fetcher = keepAliveFetch(options);
  cleanups.push(() => {
    fetcher.close();
  });
  return fetcher;
}

describe('keepAliveFetch', () => {
  it('POSTs text with its headers and reads a JSON answer, many requests on one connection', async () => {
    const served = await serve((req, res, body) => {
      res.setHeader('content-type', 'application/json');
      res.setHeader('x-echo', String(req.headers['x-token']));
      res.end(JSON.stringify({ method: req.method, body: JSON.parse(body) as unknown }));
    });
    const { fetch } = client();
    for (let i = 0; i < 5; i++) {
      const response = await fetch(served.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-token': `t${String(i)}` },
        body: JSON.stringify({ i }),
      });
      expect(response.status).toBe(200);
      expect(response.headers.get('x-echo')).toBe(`t${String(i)}`);
      expect(await response.json()).toEqual({ method: 'POST', body: { i } });
    }
    expect(served.connections).toHaveLength(1);
  });

  it('drops a socket idle past its limit, or past the limit the server announces, before the server would', async () => {
    const ok = (_req: IncomingMessage, res: ServerResponse) => {
      res.setHeader('content-type', 'application/json');
      res.end('{}');
    };
    const post = (fetch: KeepAliveFetch['fetch'], url: string) =>
      fetch(url, { method: 'POST', body: '{}' }).then((response) => response.json());
    const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

    // Our own limit: 200 ms idle, then a fresh connection.
    const own = await serve(ok);
    const short = client({ idleSocketMs: 200 });
    await post(short.fetch, own.url);
    await post(short.fetch, own.url);
    expect(own.connections).toHaveLength(1);
    await pause(600);
    await post(short.fetch, own.url);
    expect(own.connections).toHaveLength(2);

    // The server's: Keep-Alive timeout=2 (Node's server says so) is left a second early, whatever our limit.
    const hinting = await serve(ok, 2000);
    const long = client({ idleSocketMs: 60_000 });
    await post(long.fetch, hinting.url);
    await pause(1500);
    await post(long.fetch, hinting.url);
    expect(hinting.connections).toHaveLength(2);
  });

  it('never cuts a request in progress: an event stream silent for longer than the idle limit still arrives', async () => {
    const served = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: first\n\n');
      setTimeout(() => {
        res.end('data: second\n\n');
      }, 700);
    });
    const { fetch } = client({ idleSocketMs: 200 });
    const response = await fetch(served.url, { method: 'GET' });
    expect(await response.text()).toBe('data: first\n\ndata: second\n\n');
  });

  it('reads an event stream as it comes, before the server ends it', async () => {
    let finish: (() => void) | undefined;
    const served = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: first\n\n');
      finish = () => res.end('data: last\n\n');
    });
    const response = await client().fetch(served.url, { method: 'GET' });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toBe('data: first\n\n');
    finish?.();
    const rest: string[] = [];
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      rest.push(new TextDecoder().decode(value));
    }
    expect(rest.join('')).toBe('data: last\n\n');
  });

  it('tells the listener of a request when its event stream breaks off, not when it ends or the caller aborts it', async () => {
    let cut: (() => void) | undefined;
    const served = await serve((req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: first\n\n');
      if (req.url === '/mcp?end') res.end('data: last\n\n');
      if (req.url === '/mcp?cut') cut = () => res.socket?.destroy();
    });
    const broken: string[] = [];
    const fetcher = keepAliveFetch({ onBrokenResponse: () => (error) => broken.push(error.message) });
    cleanups.push(() => {
      fetcher.close();
    });
    const post = (query: string, signal?: AbortSignal) =>
      fetcher.fetch(`${served.url}?${query}`, {
        method: 'POST',
        body: '{}',
        ...(signal === undefined ? {} : { signal }),
      });
    const rest = (reader: ReadableStreamDefaultReader<Uint8Array>) =>
      reader.read().then(
        (chunk) => (chunk.done ? 'ended' : 'more'),
        (error: unknown) => String(error),
      );

    expect(await (await post('end')).text()).toBe('data: first\n\ndata: last\n\n');
    const aborter = new AbortController();
    const aborted = (await post('hold', aborter.signal)).body?.getReader();
    await aborted?.read();
    aborter.abort();
    await (aborted === undefined ? undefined : rest(aborted));
    expect(broken).toEqual([]);

    const reader = (await post('cut')).body?.getReader();
    const first = (await reader?.read())?.value as Uint8Array | undefined;
    expect(new TextDecoder().decode(first)).toBe('data: first\n\n');
    cut?.();
    // The reader sees the error too; the listener hears of it whoever reads.
    await (reader === undefined ? undefined : rest(reader));
    await vi.waitFor(() => {
      expect(broken).toEqual(['the connection closed before the response ended']);
    });
  });

  it('answers 202 and 204 with no body', async () => {
    const served = await serve((req, res) => {
      res.writeHead(req.method === 'DELETE' ? 204 : 202);
      res.end();
    });
    const { fetch } = client();
    const accepted = await fetch(served.url, { method: 'POST', body: '{}' });
    expect(accepted.status).toBe(202);
    expect(await accepted.text()).toBe('');
    const deleted = await fetch(served.url, { method: 'DELETE' });
    expect(deleted.status).toBe(204);
    expect(deleted.body).toBeNull();
  });

  it('rejects as the global fetch does when nothing listens: TypeError "fetch failed", caused by ECONNREFUSED', async () => {
    const served = await serve((_req, res) => res.end());
    const url = served.url;
    await cleanups.pop()?.();
    const failure = await client()
      .fetch(url, { method: 'POST', body: '{}' })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(TypeError);
    expect((failure as TypeError).message).toBe('fetch failed');
    expect(((failure as TypeError).cause as { code?: string }).code).toBe('ECONNREFUSED');
  });

  it("rejects with the signal's reason when the request is aborted", async () => {
    const served = await serve(() => {
      // Never answers.
    });
    const aborter = new AbortController();
    const pending = client().fetch(served.url, { method: 'POST', body: '{}', signal: aborter.signal });
    aborter.abort();
    const failure = await pending.catch((error: unknown) => error);
    expect((failure as Error).name).toBe('AbortError');
  });

  it('follows a redirect, and leaves a body it does not send itself to the global fetch', async () => {
    const served = await serve((req, res, body) => {
      if (req.url === '/mcp') {
        res.writeHead(307, { location: '/moved' });
        res.end();
        return;
      }
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ url: req.url, body }));
    });
    const { fetch } = client();
    const redirected = await fetch(served.url, { method: 'POST', body: 'moved body' });
    expect(await redirected.json()).toEqual({ url: '/moved', body: 'moved body' });
    const streamed = await fetch(served.url.replace('/mcp', '/stream'), {
      method: 'POST',
      body: new Blob(['from a blob']),
    });
    expect(await streamed.json()).toEqual({ url: '/stream', body: 'from a blob' });
  });
});

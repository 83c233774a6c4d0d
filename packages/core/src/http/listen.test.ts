import { once } from 'node:events';
import { createServer, request as httpRequest, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServer as V1McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { serveTicketsV1 } from '../../examples/listen-v1.js';
import { serveTickets, ticketHandler } from '../../examples/listen-v2.js';
import { composeServer } from '../pipeline/compose.js';
import { ConfigurationError } from '../contract/errors.js';
import { LEGACY_HEADERS, onLoopback, openSession } from './http-test-fixtures.js';
import { listen, type Listening, type ServableHandler } from './listen.js';
import { silentLogger } from '../telemetry/logger.js';
import { nodeListener, type FetchHandlerOptions } from './node-listener.js';
import { createHttpHandler as createV1HttpHandler, extendServer as extendV1Server } from '../sdk-v1/index.js';

const running: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((stop) => stop()));
});

function track(serving: Listening): Listening {
  running.push(() => serving.close());
  return serving;
}

const textOf = (result: unknown): string | undefined => (result as { content: { text?: string }[] }).content[0]?.text;

async function callTicketV2(url: URL, era: 'legacy' | 'modern'): Promise<string | undefined> {
  const client = new Client(
    { name: 'c', version: '0' },
    era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {},
  );
  await client.connect(new StreamableHTTPClientTransport(url));
  try {
    expect(client.getProtocolEra() ?? 'legacy').toBe(era);
    return textOf(await client.callTool({ name: 'get_ticket', arguments: { id: 'T-1' } }));
  } finally {
    await client.close();
  }
}

async function callTicketV1(url: URL): Promise<string | undefined> {
  const client = new V1Client({ name: 'c', version: '0' });
  await client.connect(new V1Transport(url));
  try {
    return textOf(await client.callTool({ name: 'get_ticket', arguments: { id: 'T-1' } }));
  } finally {
    await client.close();
  }
}

/** A Node server of our own, for `nodeListener` without `listen`. */
async function serveNode(listener: (req: IncomingMessage, res: import('node:http').ServerResponse) => void) {
  const served = await onLoopback(createServer(listener).listen(0, '127.0.0.1'));
  running.push(() => served.close());
  return served.url;
}

describe('listen (SERVE-1, SERVE-2)', () => {
  it('serves a v2 server on the legacy era and on 2026-07-28 at http://127.0.0.1:<port>/mcp', async () => {
    const serving = track(await serveTickets(0));
    expect(serving.url.hostname).toBe('127.0.0.1');
    expect(serving.url.pathname).toBe('/mcp');
    expect(Number(serving.url.port)).toBe((serving.server.address() as AddressInfo).port);
    expect(await callTicketV2(serving.url, 'legacy')).toBe('ticket T-1');
    expect(await callTicketV2(serving.url, 'modern')).toBe('ticket T-1');
  });

  it('serves a v1 server', async () => {
    const serving = track(await serveTicketsV1(0));
    expect(await callTicketV1(serving.url)).toBe('ticket T-1');
  });

  it('answers every other path 404 with a short JSON body naming the endpoint', async () => {
    const serving = track(await listen(ticketHandler(), { port: 0, path: '/rpc' }));
    expect(serving.url.pathname).toBe('/rpc');
    for (const path of ['/mcp', '/', '/rpc/extra', '/RPC']) {
      const response = await fetch(new URL(path, serving.url), { method: 'POST', headers: LEGACY_HEADERS, body: '{}' });
      expect(response.status, path).toBe(404);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      expect(await response.json()).toEqual({
        jsonrpc: '2.0',
        error: { code: -32000, message: 'Not found: the MCP endpoint is /rpc' },
        id: null,
      });
    }
    // The endpoint itself, with a query string, is served.
    expect(await callTicketV2(new URL('/rpc?tenant=a', serving.url), 'modern')).toBe('ticket T-1');
  });

  it('close() ends an open SSE stream, closes the handler and the server, and resolves', async () => {
    const handler = ticketHandler();
    let handlerClosed = false;
    const observed: ServableHandler = {
      fetch: (request, options) => handler.fetch(request, options as Parameters<typeof handler.fetch>[1]),
      close: async () => {
        handlerClosed = true;
        await handler.close();
      },
    };
    const serving = await listen(observed, { port: 0 });
    const session = await openSession(serving.url);
    const stream = await fetch(serving.url, {
      headers: { accept: 'text/event-stream', 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' },
    });
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const reader = (stream.body as ReadableStream<Uint8Array>).getReader();

    await serving.close();
    expect(handlerClosed).toBe(true);
    expect(serving.server.listening).toBe(false);
    // The stream is over: it ends, or fails as its connection is cut; it never hangs.
    const ended = await reader.read().then(
      ({ done }) => (done ? 'ended' : 'data'),
      () => 'cut',
    );
    expect(['ended', 'cut']).toContain(ended);
    await expect(fetch(serving.url)).rejects.toThrow();
    // Closing again changes nothing.
    await serving.close();
  });

  it('refuses bad options with ConfigurationError INVALID_OPTION naming the option', () => {
    const handler = ticketHandler();
    running.push(() => handler.close());
    const cases: [Parameters<typeof listen>[1], RegExp][] = [
      [{ port: -1 }, /listen: port must be a non-negative integer, got -1/],
      [{ port: 1.5 }, /listen: port must be a non-negative integer, got 1.5/],
      [{ port: 65_536 }, /listen: port must be an integer from 0 to 65535, got 65536/],
      [{ host: '' }, /listen: host must be a non-empty string/],
      [{ path: 'mcp' }, /listen: path must be a path starting with "\/"/],
      [{ path: '/mcp?x=1' }, /listen: path must be a path starting with "\/"/],
    ];
    for (const [options, message] of cases) {
      let thrown: unknown;
      try {
        void listen(handler, options);
      } catch (error) {
        thrown = error;
      }
      expect(ConfigurationError.isInstance(thrown), JSON.stringify(options)).toBe(true);
      expect((thrown as ConfigurationError).code).toBe('INVALID_OPTION');
      expect((thrown as Error).message).toMatch(message);
    }
    expect(() => listen({ fetch: (request: Request) => handler.fetch(request) } as unknown as ServableHandler)).toThrow(
      /listen: handler must be/,
    );
  });

  it("rejects with Node's error when the port is taken", async () => {
    const first = track(await serveTickets(0));
    await expect(listen(ticketHandler(), { port: Number(first.url.port) })).rejects.toMatchObject({
      code: 'EADDRINUSE',
    });
  });
});

describe('nodeListener (SERVE-3, SERVE-4)', () => {
  it('hands a body parsed in front on as parsedBody and req.auth as authInfo, and serves v1 so', async () => {
    const composed = composeServer([], { logger: silentLogger });
    const v1 = createV1HttpHandler(() => {
      const mcp = new V1McpServer({ name: 'v1', version: '0' });
      extendV1Server(mcp, composed).registerTool(
        'get_ticket',
        { inputSchema: z.object({ id: z.string() }) },
        (args) => ({
          content: [{ type: 'text', text: `ticket ${args.id}` }],
        }),
      );
      return mcp;
    });
    const seen: FetchHandlerOptions[] = [];
    const bodies: string[] = [];
    const listener = nodeListener({
      fetch: async (request, options = {}) => {
        seen.push(options);
        bodies.push(request.method === 'POST' ? await request.clone().text() : '');
        return v1.fetch(request, options as Parameters<typeof v1.fetch>[1]);
      },
    });
    running.push(() => v1.close());
    // A body parser and an authentication middleware of our own, as Express would run them.
    const url = await serveNode((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        Object.assign(req, {
          body: text === '' ? undefined : (JSON.parse(text) as unknown),
          auth: { token: 't', clientId: 'app', scopes: ['read'] },
        });
        listener(req, res);
      });
    });
    expect(await callTicketV1(url)).toBe('ticket T-1');
    const posts = seen.filter((options) => options.parsedBody !== undefined);
    expect(posts.length).toBeGreaterThan(0);
    expect(posts.map((options) => (options.parsedBody as { method?: string }).method)).toContain('tools/call');
    expect(seen.every((options) => options.authInfo?.clientId === 'app')).toBe(true);
    // The request it built carried no second copy of the body.
    expect(bodies.every((body) => body === '')).toBe(true);
  });

  it("aborts the request's signal when the client disconnects before the answer", async () => {
    let aborted: () => void = () => undefined;
    const abortedSeen = new Promise<void>((resolve) => {
      aborted = resolve;
    });
    const url = await serveNode(
      nodeListener({
        fetch: (request) =>
          new Promise<Response>((resolve) => {
            request.signal.addEventListener('abort', () => {
              aborted();
              resolve(new Response(null, { status: 499 }));
            });
          }),
      }),
    );
    const client = new AbortController();
    const pending = fetch(url, { method: 'POST', body: '{}', signal: client.signal });
    await new Promise((resolve) => setTimeout(resolve, 100));
    client.abort();
    await expect(pending).rejects.toThrow();
    await abortedSeen;
  });

  it('streams a response with backpressure and stops reading it when the client goes away', async () => {
    const chunk = new Uint8Array(64 * 1024).fill(0x61);
    let pulled = 0;
    let cancelled: () => void = () => undefined;
    const cancelSeen = new Promise<void>((resolve) => {
      cancelled = resolve;
    });
    const url = await serveNode(
      nodeListener({
        fetch: () =>
          Promise.resolve(
            new Response(
              new ReadableStream<Uint8Array>({
                pull(controller) {
                  pulled += chunk.byteLength;
                  controller.enqueue(chunk);
                },
                cancel() {
                  cancelled();
                },
              }),
            ),
          ),
      }),
    );
    // A client that reads the headers, then nothing for a while.
    const req = httpRequest(url, { method: 'GET' });
    req.end();
    const [response] = (await once(req, 'response')) as [IncomingMessage];
    response.pause();
    await new Promise((resolve) => setTimeout(resolve, 300));
    // Unbounded, an endless stream would be pulled as fast as memory allows; socket buffers hold a few MiB at most.
    expect(pulled).toBeLessThan(32 * 1024 * 1024);
    const before = pulled;
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(pulled - before).toBeLessThan(1024 * 1024);
    response.destroy();
    req.destroy();
    await cancelSeen;
  });

  it('writes a JSON answer whole with its Content-Length; a JSON body over 1 MiB and an event stream stream (SERVE-5)', async () => {
    const answers: Record<string, () => Response> = {
      '/json': () => Response.json({ jsonrpc: '2.0', id: 1, result: { text: 'é'.repeat(3) } }),
      '/large': () => Response.json('x'.repeat(2 * 1024 * 1024)),
      '/events': () => new Response('data: {}\n\n', { headers: { 'content-type': 'text/event-stream' } }),
    };
    const url = await serveNode(
      nodeListener({
        fetch: (request) =>
          Promise.resolve(answers[new URL(request.url).pathname]?.() ?? new Response(null, { status: 404 })),
      }),
    );
    const fetched = async (path: string) => {
      const req = httpRequest(url, { method: 'POST', path });
      req.end();
      const [response] = (await once(req, 'response')) as [IncomingMessage];
      const chunks: Buffer[] = [];
      for await (const chunk of response) chunks.push(chunk as Buffer);
      return { headers: response.headers, body: Buffer.concat(chunks) };
    };
    const json = await fetched('/json');
    expect(json.headers['content-length']).toBe(String(json.body.byteLength));
    expect(json.headers['transfer-encoding']).toBeUndefined();
    expect(JSON.parse(json.body.toString('utf8'))).toEqual({ jsonrpc: '2.0', id: 1, result: { text: 'ééé' } });
    const large = await fetched('/large');
    expect(large.headers['transfer-encoding']).toBe('chunked');
    expect(large.body.byteLength).toBe(2 * 1024 * 1024 + 2);
    const events = await fetched('/events');
    expect(events.headers['transfer-encoding']).toBe('chunked');
    expect(events.headers['content-length']).toBeUndefined();
    expect(events.body.toString('utf8')).toBe('data: {}\n\n');
  });

  it('refuses a method fetch cannot carry with 405, a target that is no URL with 400, a handler failure with 500', async () => {
    const failing = await serveNode(
      nodeListener(
        {
          fetch: () => Promise.reject(new Error('boom')),
        },
        { logger: silentLogger },
      ),
    );
    const status = async (method: string, path = '/mcp'): Promise<number> => {
      const req = httpRequest(failing, { method, path });
      req.end();
      const [response] = (await once(req, 'response')) as [IncomingMessage];
      response.resume();
      return response.statusCode ?? 0;
    };
    expect(await status('TRACE')).toBe(405);
    expect(await status('GET', 'http://[bad/mcp')).toBe(400);
    expect(await status('POST')).toBe(500);
  });
});

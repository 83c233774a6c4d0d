import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { McpServer, PROTOCOL_VERSION_META_KEY } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { composeServer } from '../pipeline/compose.js';
import { silentLogger } from '../telemetry/logger.js';
import { createHttpHandler, DEFAULT_MAX_REQUEST_BODY_BYTES, extendServer, type DualEraHttpHandler } from './index.js';

const URL_ = 'http://mcp.test/mcp';
const MODERN = { versionNegotiation: { mode: { pin: '2026-07-28' } } } as const;

function echoHandler(options: Parameters<typeof createHttpHandler>[1] = {}): {
  handler: DualEraHttpHandler;
  built: () => number;
} {
  const composed = composeServer([], { logger: silentLogger });
  let built = 0;
  const handler = createHttpHandler(() => {
    built += 1;
    const mcp = new McpServer({ name: 'http-test', version: '0' });
    extendServer(mcp, composed).registerTool('echo', { inputSchema: z.object({ text: z.string() }) }, ({ text }) => ({
      content: [{ type: 'text', text: String(text.length) }],
    }));
    return mcp;
  }, options);
  // Without a stated identity choice the handler builds one server at creation (IDENT-7); count what requests build.
  built = 0;
  return { handler, built: () => built };
}

const open: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((close) => close()));
});

async function connect(handler: DualEraHttpHandler, era: 'legacy' | 'modern'): Promise<Client> {
  const client = new Client({ name: 'c', version: '0' }, era === 'modern' ? MODERN : {});
  await client.connect(
    new StreamableHTTPClientTransport(new URL(URL_), { fetch: (url, init) => handler.fetch(new Request(url, init)) }),
  );
  open.push(async () => {
    await client.close();
    await handler.close();
  });
  return client;
}

function post(body: string | ReadableStream<Uint8Array>, headers: Record<string, string> = {}): Request {
  return new Request(URL_, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body,
    duplex: 'half',
  });
}

function chunked(bytes: number): ReadableStream<Uint8Array> {
  let sent = 0;
  return new ReadableStream({
    pull(controller) {
      if (sent >= bytes) {
        controller.close();
        return;
      }
      const chunk = new Uint8Array(Math.min(64 * 1024, bytes - sent)).fill(0x20);
      sent += chunk.byteLength;
      controller.enqueue(chunk);
    },
  });
}

const textOf = (result: unknown): string | undefined => (result as { content: { text?: string }[] }).content[0]?.text;

describe('createHttpHandler (sdk-v2, CORE-26)', () => {
  for (const era of ['legacy', 'modern'] as const) {
    it(`serves a body under a raised maxRequestBodyBytes on the ${era} era`, async () => {
      const { handler } = echoHandler({ maxRequestBodyBytes: 8 * 1024 * 1024 });
      const client = await connect(handler, era);
      const text = 'x'.repeat(DEFAULT_MAX_REQUEST_BODY_BYTES + 1024);
      expect(textOf(await client.callTool({ name: 'echo', arguments: { text } }))).toBe(String(text.length));
    });

    it(`answers 413 for a body over the default limit on the ${era} era, and the server stays usable`, async () => {
      const { handler } = echoHandler();
      const client = await connect(handler, era);
      await expect(
        client.callTool({ name: 'echo', arguments: { text: 'x'.repeat(DEFAULT_MAX_REQUEST_BODY_BYTES) } }),
      ).rejects.toThrow(/413|Payload Too Large/);
      expect(textOf(await client.callTool({ name: 'echo', arguments: { text: 'abc' } }))).toBe('3');
    });
  }

  it('refuses a declared Content-Length over the limit before reading, and a chunked body once it passes the limit', async () => {
    const { handler, built } = echoHandler({ maxRequestBodyBytes: 1024 });
    open.push(() => handler.close());
    const declared = await handler.fetch(post('{}', { 'content-length': '2048' }));
    expect(declared.status).toBe(413);
    expect(await declared.json()).toEqual({
      jsonrpc: '2.0',
      error: { code: -32000, message: 'Payload Too Large: Request body must not exceed 1024 bytes' },
      id: null,
    });
    const streamed = await handler.fetch(post(chunked(10 * 1024 * 1024)));
    expect(streamed.status).toBe(413);
    expect(built()).toBe(0);
  });

  it('leaves bodies that are not JSON to the SDK: a parse error, not a crash', async () => {
    const { handler } = echoHandler();
    open.push(() => handler.close());
    for (const body of ['{not json', '']) {
      const response = await handler.fetch(post(body));
      expect(response.status).toBeGreaterThanOrEqual(400);
      expect(response.status).toBeLessThan(500);
      const answer = (await response.json()) as { error?: { code?: number } };
      expect(answer.error?.code).toBe(-32700);
    }
  });

  it('sends a message carrying the 2026-07-28 claim to the modern path even when its envelope is invalid', async () => {
    const { handler } = echoHandler();
    open.push(() => handler.close());
    const body = {
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/list',
      params: { _meta: { [PROTOCOL_VERSION_META_KEY]: 42 } },
    };
    const response = await handler.fetch(post(JSON.stringify(body)));
    expect(response.status).toBe(400);
    expect(response.headers.get('mcp-session-id')).toBeNull();
    expect(((await response.json()) as { id?: unknown; error?: { message?: string } }).error?.message).toMatch(
      /envelope/i,
    );
  });

  it('serves a body a parser in front already read, given as parsedBody', async () => {
    const { handler } = echoHandler();
    const client = await connect(handler, 'legacy');
    const before = await client.callTool({ name: 'echo', arguments: { text: 'abc' } });
    expect(textOf(before)).toBe('3');
    // A fresh session, initialized by hand with a drained request and the parsed body beside it.
    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
    };
    const drained = post(JSON.stringify(initialize));
    await drained.text();
    const response = await handler.fetch(drained, { parsedBody: initialize });
    expect(response.status).toBe(200);
    expect(response.headers.get('mcp-session-id')).toMatch(/.+/);
    expect(await response.text()).toContain('"serverInfo"');
  });

  it('refuses a maxRequestBodyBytes that is not a positive integer, naming the option', () => {
    for (const value of [0, -1, 1.5, Number.NaN]) {
      expect(() =>
        createHttpHandler(() => new McpServer({ name: 's', version: '0' }), { maxRequestBodyBytes: value }),
      ).toThrow(/maxRequestBodyBytes must be a positive integer/);
    }
  });
});

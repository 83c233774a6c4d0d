/**
 * CORE-33: a body that is not valid UTF-8 is refused as a JSON-RPC parse
 * error by both SDK lines' HTTP handlers, before the SDK reads it (which
 * would replace the bad bytes and serve the call with changed arguments).
 */
import { McpServer as McpServerV1 } from '@modelcontextprotocol/sdk/server/mcp.js';
import { McpServer as McpServerV2, PROTOCOL_VERSION_META_KEY } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { composeServer } from '../pipeline/compose.js';
import { readBody } from './http-body.js';
import { INITIALIZE, LEGACY_HEADERS } from './http-test-fixtures.js';
import { silentLogger } from '../telemetry/logger.js';
import { createHttpHandler as createHttpHandlerV1, extendServer as extendServerV1 } from '../sdk-v1/index.js';
import { createHttpHandler as createHttpHandlerV2, extendServer as extendServerV2 } from '../sdk-v2/index.js';

const URL_ = 'http://mcp.test/mcp';
type Handler = { fetch(request: Request): Promise<Response>; close(): Promise<void> };

const open: Handler[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((handler) => handler.close()));
});

function handlerFor(line: 'v1' | 'v2'): { handler: Handler; calls: string[] } {
  const composed = composeServer([], { logger: silentLogger });
  const calls: string[] = [];
  const echo = ({ text }: { text: string }) => {
    calls.push(text);
    return { content: [{ type: 'text' as const, text }] };
  };
  const options = { anonymous: 'shared' as const, logger: silentLogger };
  const handler =
    line === 'v1'
      ? createHttpHandlerV1(() => {
          const mcp = new McpServerV1({ name: 'utf8-test', version: '0' });
          extendServerV1(mcp, composed).registerTool('echo', { inputSchema: z.object({ text: z.string() }) }, echo);
          return mcp;
        }, options)
      : createHttpHandlerV2(() => {
          const mcp = new McpServerV2({ name: 'utf8-test', version: '0' });
          extendServerV2(mcp, composed).registerTool('echo', { inputSchema: z.object({ text: z.string() }) }, echo);
          return mcp;
        }, options);
  open.push(handler);
  return { handler, calls };
}

/** A tools/call of `echo` whose `text` argument is `before`, the raw bytes `bytes`, then `after`. */
function callBytes(bytes: readonly number[], meta: Record<string, unknown> = {}): Uint8Array {
  const [head, tail] = JSON.stringify({
    jsonrpc: '2.0',
    id: 5,
    method: 'tools/call',
    params: { name: 'echo', arguments: { text: 'a\u0000b' }, _meta: meta },
  }).split('\\u0000');
  return Buffer.concat([Buffer.from(head ?? ''), Buffer.from(bytes), Buffer.from(tail ?? '')]);
}

function chunks(parts: readonly Uint8Array[]): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (const part of parts) controller.enqueue(part);
      controller.close();
    },
  });
}

async function openSession(handler: Handler): Promise<Record<string, string>> {
  const response = await handler.fetch(
    new Request(URL_, { method: 'POST', headers: LEGACY_HEADERS, body: JSON.stringify(INITIALIZE) }),
  );
  await response.text();
  return {
    ...LEGACY_HEADERS,
    'mcp-session-id': response.headers.get('mcp-session-id') ?? '',
    'mcp-protocol-version': '2025-11-25',
  };
}

const MODERN_META = {
  [PROTOCOL_VERSION_META_KEY]: '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

describe.each(['v1', 'v2'] as const)('bodies that are not UTF-8 on %s (CORE-33)', (line) => {
  it('refuses a tool call whose argument bytes include 0xff: 400, -32700, and the tool does not run', async () => {
    const { handler, calls } = handlerFor(line);
    const headers = await openSession(handler);
    for (const bytes of [[0xff], [0xc3], [0xed, 0xa0, 0x80], [0xe2, 0x82]]) {
      const response = await handler.fetch(new Request(URL_, { method: 'POST', headers, body: callBytes(bytes) }));
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({
        jsonrpc: '2.0',
        error: { code: -32700, message: 'Parse error: the request body is not valid UTF-8' },
        id: null,
      });
    }
    expect(calls).toEqual([]);
  });

  it('serves valid UTF-8, also when a character is split between chunks', async () => {
    const { handler, calls } = handlerFor(line);
    const headers = await openSession(handler);
    const body = callBytes([0xe2, 0x82, 0xac]);
    const split = body.indexOf(0x82);
    const response = await handler.fetch(
      new Request(URL_, {
        method: 'POST',
        headers,
        body: chunks([body.subarray(0, split), body.subarray(split)]),
        duplex: 'half',
      }),
    );
    expect(response.status).toBe(200);
    await response.text();
    expect(calls).toEqual(['a\u20acb']);
  });
});

describe('bodies that are not UTF-8 on the 2026-07-28 era (CORE-33)', () => {
  it('are refused the same way', async () => {
    const { handler, calls } = handlerFor('v2');
    const response = await handler.fetch(
      new Request(URL_, { method: 'POST', headers: LEGACY_HEADERS, body: callBytes([0xff], MODERN_META) }),
    );
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { code: number } }).error.code).toBe(-32700);
    expect(calls).toEqual([]);
  });
});

describe('readBody', () => {
  it('stops at the first malformed sequence, and at the end for a truncated one', async () => {
    await expect(
      readBody(new Request(URL_, { method: 'POST', body: new Uint8Array([0x7b, 0xff]) }), 1024),
    ).resolves.toEqual({ kind: 'not-utf8' });
    await expect(
      readBody(new Request(URL_, { method: 'POST', body: new Uint8Array([0x22, 0xe2, 0x82]) }), 1024),
    ).resolves.toEqual({ kind: 'not-utf8' });
    await expect(readBody(new Request(URL_, { method: 'POST', body: '"\u20ac"' }), 1024)).resolves.toEqual({
      kind: 'text',
      text: '"\u20ac"',
    });
  });
});

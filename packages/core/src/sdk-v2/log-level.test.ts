import {
  CLIENT_CAPABILITIES_META_KEY,
  LOG_LEVEL_META_KEY,
  McpServer,
  PROTOCOL_VERSION_META_KEY,
} from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import { composeServer } from '../pipeline/compose.js';
import { silentLogger } from '../telemetry/logger.js';
import { createHttpHandler, extendServer, type DualEraHttpHandler } from './index.js';

const handlers: DualEraHttpHandler[] = [];
afterEach(async () => {
  await Promise.all(handlers.splice(0).map((handler) => handler.close()));
});

/** A server whose one tool logs at `debug` and at `warning` through `ctx.notify`. */
function noisyServer(): DualEraHttpHandler {
  const composed = composeServer([], { logger: silentLogger });
  const handler = createHttpHandler(() => {
    const mcp = new McpServer({ name: 'log-test', version: '0' }, { capabilities: { logging: {} } });
    extendServer(mcp, composed).registerTool('noisy', {}, async (_args, ctx) => {
      await ctx.notify('notifications/message', { level: 'debug', data: 'detail' });
      await ctx.notify('notifications/message', { level: 'warning', data: 'careful' });
      return { content: [{ type: 'text', text: 'done' }] };
    });
    return mcp;
  });
  handlers.push(handler);
  return handler;
}

/** The levels of the log messages a 2026-07-28 call of `noisy` carried on its response. */
async function loggedLevels(handler: DualEraHttpHandler, logLevel: string | undefined): Promise<string[]> {
  const meta: Record<string, unknown> = {
    [PROTOCOL_VERSION_META_KEY]: '2026-07-28',
    [CLIENT_CAPABILITIES_META_KEY]: {},
    ...(logLevel === undefined ? {} : { [LOG_LEVEL_META_KEY]: logLevel }),
  };
  const response = await handler.fetch(
    new Request('http://mcp.test/mcp', {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': 'noisy',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'noisy', arguments: {}, _meta: meta },
      }),
    }),
  );
  const frames = (await response.text())
    .split(/\r?\n/)
    .map((line) => line.replace(/^data:\s*/, '').trim())
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { method?: string; params?: { level?: string }; result?: unknown });
  expect(frames.some((frame) => frame.result !== undefined)).toBe(true);
  return frames.filter((frame) => frame.method === 'notifications/message').map((frame) => frame.params!.level!);
}

describe('log messages on 2026-07-28 (CORE-39)', () => {
  it('sends none when the request asked for no logs', async () => {
    expect(await loggedLevels(noisyServer(), undefined)).toEqual([]);
  });

  it('sends those at or above the level the request asked for', async () => {
    const handler = noisyServer();
    expect(await loggedLevels(handler, 'warning')).toEqual(['warning']);
    expect(await loggedLevels(handler, 'debug')).toEqual(['debug', 'warning']);
  });
});

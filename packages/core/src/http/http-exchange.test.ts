/**
 * CORE-34: on the legacy era, a client that goes away in the middle of a
 * call cancels it, over real HTTP, on both SDK lines. The client here is
 * raw fetch: it sends no `notifications/cancelled`, it only disconnects.
 */
import { McpServer as McpServerV1 } from '@modelcontextprotocol/sdk/server/mcp.js';
import { McpServer as McpServerV2 } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import { composeServer } from '../pipeline/compose.js';
import { LEGACY_HEADERS, openSession, serveOverHttp } from './http-test-fixtures.js';
import { silentLogger } from '../telemetry/logger.js';
import { createHttpHandler as createHttpHandlerV1, extendServer as extendServerV1 } from '../sdk-v1/index.js';
import { createHttpHandler as createHttpHandlerV2, extendServer as extendServerV2 } from '../sdk-v2/index.js';
import type { ToolResult } from '../contract/types.js';

type Line = 'v1' | 'v2-legacy';

/** What the slow tool saw: that it started, and whether its signal aborted. */
interface Observed {
  readonly started: Promise<void>;
  readonly aborted: Promise<'aborted' | 'ran to the end'>;
}

function slowTool(observed: { start: () => void; end: (how: 'aborted' | 'ran to the end') => void }) {
  return async (_args: unknown, ctx: { signal: AbortSignal }): Promise<ToolResult> => {
    observed.start();
    const how = await new Promise<'aborted' | 'ran to the end'>((resolve) => {
      const timer = setTimeout(() => {
        resolve('ran to the end');
      }, 5_000);
      ctx.signal.addEventListener('abort', () => {
        clearTimeout(timer);
        resolve('aborted');
      });
    });
    observed.end(how);
    return { content: [{ type: 'text', text: how }] };
  };
}

function handlerFor(line: Line): {
  handler: { fetch(request: Request): Promise<Response>; close(): Promise<void> };
  observed: Observed;
} {
  const composed = composeServer([], { logger: silentLogger });
  let start = (): void => undefined;
  let end = (_how: 'aborted' | 'ran to the end'): void => undefined;
  const observed: Observed = {
    started: new Promise((resolve) => (start = resolve)),
    aborted: new Promise((resolve) => (end = resolve)),
  };
  const tool = slowTool({
    start: () => {
      start();
    },
    end: (how) => {
      end(how);
    },
  });
  const options = { anonymous: 'shared' as const, logger: silentLogger };
  if (line === 'v1') {
    const handler = createHttpHandlerV1(() => {
      const mcp = new McpServerV1({ name: 'cancel-test', version: '0' });
      extendServerV1(mcp, composed).registerTool('slow', {}, tool);
      return mcp;
    }, options);
    return { handler, observed };
  }
  const handler = createHttpHandlerV2(() => {
    const mcp = new McpServerV2({ name: 'cancel-test', version: '0' });
    extendServerV2(mcp, composed).registerTool('slow', {}, tool);
    return mcp;
  }, options);
  return { handler, observed };
}

const open: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((close) => close()));
});

describe.each(['v1', 'v2-legacy'] as const)('a legacy-era client that goes away on %s (CORE-34)', (line) => {
  it("cancels its call: the tool's signal aborts", async () => {
    const { handler, observed } = handlerFor(line);
    const served = await serveOverHttp(handler);
    open.push(async () => {
      await handler.close();
      await served.close();
    });
    const session = await openSession(served.url);
    const aborter = new AbortController();
    const call = fetch(served.url, {
      method: 'POST',
      headers: { ...LEGACY_HEADERS, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'slow', arguments: {} } }),
      signal: aborter.signal,
    }).then((response) => response.text());
    await observed.started;
    aborter.abort();
    await expect(call).rejects.toThrow();
    await expect(observed.aborted).resolves.toBe('aborted');
  });

  it('leaves a call whose client stays to run to its end, and the session serves on', async () => {
    const { handler } = handlerFor(line);
    const served = await serveOverHttp(handler);
    open.push(async () => {
      await handler.close();
      await served.close();
    });
    const session = await openSession(served.url);
    const headers = { ...LEGACY_HEADERS, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' };
    const listed = await fetch(served.url, {
      method: 'POST',
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(listed.status).toBe(200);
    expect(await listed.text()).toContain('"slow"');
    const again = await fetch(served.url, {
      method: 'POST',
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(await again.text()).toContain('"slow"');
  });
});

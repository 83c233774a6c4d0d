// The README's serving recipes, run as they are written (examples/*.ts), over real HTTP with real SDK clients.
import type { Server } from 'node:http';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { connectModern } from '../../examples/choose-era.js';
import { ticketHandler } from '../../examples/listen-v2.js';
import { expressApp, expressAppWithJson } from '../../examples/serve-express.js';
import { honoApp } from '../../examples/serve-hono.js';
import { onLoopback } from './http-test-fixtures.js';
import { listen } from './listen.js';
import type { FetchHandlerOptions } from './node-listener.js';

const running: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((stop) => stop()));
});

const textOf = (result: unknown): string | undefined => (result as { content: { text?: string }[] }).content[0]?.text;

async function callTicket(url: URL, era: 'legacy' | 'modern'): Promise<string | undefined> {
  const client = new Client(
    { name: 'c', version: '0' },
    era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {},
  );
  await client.connect(new StreamableHTTPClientTransport(url));
  try {
    return textOf(await client.callTool({ name: 'get_ticket', arguments: { id: 'T-7' } }));
  } finally {
    await client.close();
  }
}

/** The ticket handler, recording what each request brought beside itself. */
function observedHandler() {
  const handler = ticketHandler();
  const seen: { method: string; options: FetchHandlerOptions; version: string | null }[] = [];
  return {
    seen,
    handler: {
      fetch: (request: Request, options: FetchHandlerOptions = {}) => {
        seen.push({ method: request.method, options, version: request.headers.get('mcp-protocol-version') });
        return handler.fetch(request, options as Parameters<typeof handler.fetch>[1]);
      },
      close: () => handler.close(),
    },
  };
}

async function serveExpress(app: { listen(port: number, host: string): Server }): Promise<URL> {
  const served = await onLoopback(app.listen(0, '127.0.0.1'));
  running.push(() => served.close());
  return served.url;
}

describe('serving recipes (SERVE-3)', () => {
  for (const era of ['legacy', 'modern'] as const) {
    it(`Express, app.all('/mcp', nodeListener(handler)), serves an SDK client on the ${era} era`, async () => {
      const { handler, seen } = observedHandler();
      running.push(() => handler.close());
      const url = await serveExpress(expressApp(handler));
      expect(await callTicket(url, era)).toBe('ticket T-7');
      // Nothing parsed the body in front: the handler read it itself.
      expect(seen.some((entry) => entry.method === 'POST')).toBe(true);
      expect(seen.every((entry) => entry.options.parsedBody === undefined)).toBe(true);
    });

    it(`Express behind express.json() serves an SDK client on the ${era} era, from the parsed body`, async () => {
      const { handler, seen } = observedHandler();
      running.push(() => handler.close());
      const url = await serveExpress(expressAppWithJson(handler));
      expect(await callTicket(url, era)).toBe('ticket T-7');
      const parsed = seen.filter((entry) => entry.options.parsedBody !== undefined);
      expect(parsed.map((entry) => (entry.options.parsedBody as { method?: string }).method)).toContain('tools/call');
    });

    it(`Hono, app.all('/mcp', (c) => handler.fetch(c.req.raw)), serves an SDK client on the ${era} era`, async () => {
      const handler = ticketHandler();
      const app = honoApp(handler);
      const serving = await listen(
        { fetch: async (request) => app.fetch(request), close: () => handler.close() },
        { port: 0 },
      );
      running.push(() => serving.close());
      expect(await callTicket(serving.url, era)).toBe('ticket T-7');
    });
  }

  it('a client built as "Choosing the protocol era" says lands on 2026-07-28, with no initialize', async () => {
    const { handler, seen } = observedHandler();
    const serving = await listen(handler, { port: 0 });
    running.push(() => serving.close());
    const extended = await connectModern(serving.url);
    running.push(() => extended.close());
    expect(extended.era).toBe('modern');
    await extended.listTools();
    const posts = seen.filter((entry) => entry.method === 'POST');
    expect(posts.length).toBeGreaterThan(0);
    expect(new Set(posts.map((entry) => entry.version))).toEqual(new Set(['2026-07-28']));
    // And a default client, for contrast, opens the legacy era with initialize.
    const legacy = new Client({ name: 'c', version: '0' });
    await legacy.connect(new StreamableHTTPClientTransport(serving.url));
    running.push(() => legacy.close());
    expect(legacy.getProtocolEra()).toBe('legacy');
  });
});

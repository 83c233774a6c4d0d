import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { composeServer, ConfigurationError, extensionId, type ComposedServer } from '@ext/core';
import { silentLogger } from '@ext/core/kit';
import { extendServer } from '@ext/core/sdk-v2';
import { seedValidators } from '@ext/core/testing';
import { confirmationServer } from '@ext/confirmation/server';
import { McpServer } from '@modelcontextprotocol/server';
import { Compile } from 'typebox/compile';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { createServerCardHandler, manifestServer, SERVER_CARD_MEDIA_TYPE, type ServerCardHandler } from './server.js';
import { MANIFEST_ID, ServerCardSchema, type ServiceManifest } from './schema.js';

const seedManifest = seedValidators().check('service-manifest');
const validCard = Compile(ServerCardSchema);
const SERVER_INFO = {
  name: 'shop',
  version: '2.1.0',
  title: 'Shop',
  description: 'Orders and invoices',
  websiteUrl: 'https://shop.example',
};

/** A composition with its tools registered, the way a v2 HTTP factory would build one instance. */
function composition(): ComposedServer {
  const composed = composeServer([manifestServer({ ttlSeconds: 120 }), confirmationServer()], { logger: silentLogger });
  const server = extendServer(new McpServer(SERVER_INFO), composed);
  server.registerTool(
    'get_order',
    { description: 'Reads an order', inputSchema: z.object({ id: z.string() }) },
    () => ({ content: [] }),
  );
  server.registerTool(
    'delete_order',
    {
      description: 'Deletes an order',
      inputSchema: z.object({ id: z.string() }),
      _meta: {
        [extensionId('confirmation')]: {
          requires_confirmation: true,
          risk_level: 'destructive',
          confirmation_message: 'Delete {id}?',
        },
      },
    },
    () => ({ content: [] }),
  );
  return composed;
}

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(
    servers.splice(0).map(
      (server) =>
        new Promise<void>((resolve) =>
          server.close(() => {
            resolve();
          }),
        ),
    ),
  );
});

/** A real HTTP server on 127.0.0.1: card paths go to the card handler, everything else is 404 (where the MCP endpoint would be). */
async function listen(handler: ServerCardHandler): Promise<string> {
  const server = createServer((request, response) => {
    void handler.handleNode(request, response).then((handled) => {
      if (!handled) response.writeHead(404).end('elsewhere');
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`;
}

function manifestOf(card: unknown): ServiceManifest {
  return (card as { _meta: Record<string, ServiceManifest> })._meta[MANIFEST_ID] as ServiceManifest;
}

describe('the static server card over HTTP', () => {
  it('MAN-14 MAN-16: serves the card at <mcpPath>/server-card and the well-known path, with the manifest under _meta', async () => {
    const base = await listen(
      createServerCardHandler({
        composed: composition(),
        serverInfo: SERVER_INFO,
        endpointUrl: 'https://shop.example/mcp',
      }),
    );
    for (const path of ['/mcp/server-card', '/.well-known/mcp/server-card.json']) {
      const response = await fetch(`${base}${path}`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(response.headers.get('cache-control')).toBe('public, max-age=120');
      expect(response.headers.get('access-control-allow-origin')).toBe('*');
      const card: unknown = await response.json();
      expect(validCard.Check(card)).toBe(true);
      expect(card).toMatchObject({
        name: 'shop',
        version: '2.1.0',
        title: 'Shop',
        description: 'Orders and invoices',
        websiteUrl: 'https://shop.example/',
        remotes: [{ type: 'streamable-http', url: 'https://shop.example/mcp' }],
      });
      const manifest = manifestOf(card);
      expect(seedManifest(manifest).errors).toBe('');
      expect(manifest.server).toMatchObject({ name: 'shop', version: '2.1.0', mcp_spec_version: '2025-11-25' });
      expect(manifest.tools.map((tool) => [tool.name, tool.requires_confirmation])).toEqual([
        ['delete_order', true],
        ['get_order', false],
      ]);
    }
    expect((await fetch(`${base}/mcp`)).status).toBe(404);
  });

  it('MAN-14: answers 304 to a current If-None-Match, and serves the card media type when asked for it', async () => {
    const base = await listen(createServerCardHandler({ composed: composition(), serverInfo: SERVER_INFO }));
    const first = await fetch(`${base}/mcp/server-card`, { headers: { accept: SERVER_CARD_MEDIA_TYPE } });
    expect(first.headers.get('content-type')).toBe(SERVER_CARD_MEDIA_TYPE);
    const etag = first.headers.get('etag');
    expect(etag).toMatch(/^"[0-9a-f]{64}"$/);
    const card: unknown = await first.json();
    expect(card).not.toHaveProperty('remotes');
    const again = await fetch(`${base}/mcp/server-card`, { headers: { 'if-none-match': etag ?? '' } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
    const stale = await fetch(`${base}/mcp/server-card`, { headers: { 'if-none-match': '"old"' } });
    expect(stale.status).toBe(200);
  });

  it('MAN-14: HEAD has headers only, OPTIONS answers the CORS preflight, other methods get 405', async () => {
    const base = await listen(createServerCardHandler({ composed: composition(), serverInfo: SERVER_INFO }));
    const head = await fetch(`${base}/mcp/server-card`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('etag')).not.toBeNull();
    expect(await head.text()).toBe('');
    const preflight = await fetch(`${base}/.well-known/mcp/server-card.json`, { method: 'OPTIONS' });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-methods')).toBe('GET, HEAD, OPTIONS');
    const post = await fetch(`${base}/mcp/server-card`, { method: 'POST', body: '{}' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
  });

  it('MAN-14: the card follows tools registered later (new etag)', async () => {
    const composed = composition();
    const handler = createServerCardHandler({ composed, serverInfo: SERVER_INFO, mcpPath: '/', wellKnown: false });
    expect(handler.paths).toEqual(['/server-card']);
    const base = await listen(handler);
    const before = await fetch(`${base}/server-card`);
    const etag = before.headers.get('etag') ?? '';
    extendServer(new McpServer(SERVER_INFO), composed).registerTool('refund', { description: 'Refunds' }, () => ({
      content: [],
    }));
    const after = await fetch(`${base}/server-card`, { headers: { 'if-none-match': etag } });
    expect(after.status).toBe(200);
    expect(manifestOf(await after.json()).tools.map((tool) => tool.name)).toEqual([
      'delete_order',
      'get_order',
      'refund',
    ]);
    expect((await fetch(`${base}/.well-known/mcp/server-card.json`)).status).toBe(404);
  });
});

describe('the fetch-style card handler', () => {
  it('MAN-14: answers Requests the same way, and 404 off its paths', async () => {
    const handler = createServerCardHandler({ composed: composition(), serverInfo: SERVER_INFO, mcpPath: '/api/mcp/' });
    const ok = await handler.fetch(new Request('http://shop.example/api/mcp/server-card'));
    expect(ok.status).toBe(200);
    expect(manifestOf(await ok.json()).server.name).toBe('shop');
    const cached = await handler.fetch(
      new Request('http://shop.example/api/mcp/server-card', {
        headers: { 'if-none-match': `W/${ok.headers.get('etag') ?? ''}` },
      }),
    );
    expect(cached.status).toBe(304);
    expect((await handler.fetch(new Request('http://shop.example/api/mcp'))).status).toBe(404);
    expect(handler.card()).toMatchObject({ name: 'shop', _meta: { [MANIFEST_ID]: { manifest_version: '0.1.0' } } });
  });

  it('says on the card when the endpoint does not tell callers apart (core IDENT-7)', () => {
    const composed = composition();
    expect(
      manifestOf(createServerCardHandler({ composed, serverInfo: SERVER_INFO, sharedCallers: true }).card()).auth
        ?.methods,
    ).toEqual(['none']);
    expect(
      manifestOf(createServerCardHandler({ composed, serverInfo: SERVER_INFO }).card()).auth?.methods,
    ).toBeUndefined();
  });

  it('MAN-14: refuses a configuration it cannot serve, naming the option', () => {
    const composed = composition();
    expect(() =>
      createServerCardHandler({ composed: composeServer([], { logger: silentLogger }), serverInfo: SERVER_INFO }),
    ).toThrow(/compose manifestServer\(\)/);
    expect(() => createServerCardHandler({ composed, serverInfo: SERVER_INFO, mcpPath: 'mcp' })).toThrow(/mcpPath/);
    expect(() => createServerCardHandler({ composed, serverInfo: SERVER_INFO, endpointUrl: '/mcp' })).toThrow(
      ConfigurationError,
    );
  });
});

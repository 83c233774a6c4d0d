/** The README's server half: a shop whose orders are placed once per key, however often a call is retried. */
// #region server
import { composeServer, MemoryStore } from '@ext/core';
import { createHttpHandler, extendServer, listen } from '@ext/core/sdk-v2/server';
import { McpServer, requireBearerAuth } from '@modelcontextprotocol/server';
import { errorsServer } from '@ext/errors/server';
import { idempotencyServer } from '@ext/idempotency/server';
import * as z from 'zod';

const composed = composeServer([errorsServer(), idempotencyServer({ defaultTtlSeconds: 3600 })]);
// Many instances behind a load balancer share one store (e.g. @ext/store-redis).
const store = new MemoryStore();

const handler = createHttpHandler(
  () => {
    const mcp = new McpServer({ name: 'shop', version: '1.0.0' });
    const server = extendServer(mcp, composed, { store });
    server.registerTool(
      'place_order',
      { inputSchema: z.object({ sku: z.string(), quantity: z.number() }) },
      async ({ sku, quantity }) => {
        const order = await orders.create(sku, quantity); // runs once per key
        return { content: [{ type: 'text', text: `order ${order.id}` }] };
      },
    );
    server.registerTool(
      'get_order',
      { inputSchema: z.object({ id: z.string() }), annotations: { readOnlyHint: true } }, // takes no part
      async ({ id }) => ({ content: [{ type: 'text', text: await orders.describe(id) }] }),
    );
    return mcp;
  },
  { authenticate: requireBearerAuth({ verifier: tokenVerifier }) }, // who is calling: @ext/core's README
);
await listen(handler, { port: 3000 });
// #endregion server

declare const orders: {
  create(sku: string, quantity: number): Promise<{ id: string }>;
  describe(id: string): Promise<string>;
};
declare const tokenVerifier: OAuthTokenVerifier; // checks your authorization server's access tokens

import type { OAuthTokenVerifier } from '@modelcontextprotocol/server';

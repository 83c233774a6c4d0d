/** The README's server half: a shop whose manifest and server card are assembled from what it registers. */
// #region server
import { composeServer } from '@ext/core';
import { createHttpHandler, extendServer } from '@ext/core/sdk-v2/server';
import { McpServer, requireBearerAuth } from '@modelcontextprotocol/server';
import { CONFIRMATION_ID } from '@ext/confirmation';
import { confirmationServer } from '@ext/confirmation/server';
import { errorsServer } from '@ext/errors/server';
import { createServerCardHandler, manifestServer } from '@ext/manifest/server';
import * as z from 'zod';

const composed = composeServer([
  errorsServer(),
  manifestServer({ auth: { methods: ['bearer_token'] }, rateLimits: { requestsPerMinute: 60 } }),
  confirmationServer(),
]);
const serverInfo = { name: 'shop', version: '1.4.0', description: 'Orders and invoices' };

function factory(): McpServer {
  const mcp = new McpServer(serverInfo);
  const server = extendServer(mcp, composed);
  server.registerTool(
    'get_order',
    { description: 'Reads an order', inputSchema: z.object({ id: z.string() }) },
    async ({ id }) => ({ content: [{ type: 'text', text: await orderSummary(id) }] }),
  );
  server.registerTool(
    'delete_order',
    {
      description: 'Deletes an order',
      inputSchema: z.object({ id: z.string() }),
      _meta: {
        [CONFIRMATION_ID]: {
          requires_confirmation: true,
          risk_level: 'destructive',
          confirmation_message: 'Delete order {id}?',
        },
      },
    },
    async ({ id }) => {
      await deleteOrder(id);
      return { content: [{ type: 'text', text: `deleted ${id}` }] };
    },
  );
  return mcp;
}

factory(); // one instance up front, so the card lists the tools before the first MCP request
// Who is calling: see @ext/core's README.
const mcp = createHttpHandler(factory, { authenticate: requireBearerAuth({ verifier: tokenVerifier }) });
const card = createServerCardHandler({ composed, serverInfo, endpointUrl: 'https://shop.example/mcp' });

// Any fetch-style server (Deno.serve, Bun.serve, a worker's fetch): the card beside the MCP endpoint.
export function route(request: Request): Promise<Response> {
  return card.paths.includes(new URL(request.url).pathname) ? card.fetch(request) : mcp.fetch(request);
}
// #endregion server

declare function orderSummary(id: string): Promise<string>;
declare function deleteOrder(id: string): Promise<void>;
declare const tokenVerifier: OAuthTokenVerifier; // checks your authorization server's access tokens

import type { OAuthTokenVerifier } from '@modelcontextprotocol/server';

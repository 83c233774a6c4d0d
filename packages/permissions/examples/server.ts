/** The README's server half: a helpdesk whose tools need scopes, served to OAuth-authenticated callers. */
// #region server
import { composeServer } from '@ext/core';
import { createHttpHandler, extendServer, listen } from '@ext/core/sdk-v2/server';
import { McpServer, requireBearerAuth } from '@modelcontextprotocol/server';
import { errorsServer } from '@ext/errors/server';
import { PERMISSIONS_ID } from '@ext/permissions';
import { permissionsServer } from '@ext/permissions/server';
import * as z from 'zod';

const composed = composeServer([
  errorsServer(),
  permissionsServer({
    scopes: [
      { name: 'tickets:read', description: 'read tickets', tools: ['get_ticket'], autoGrant: true },
      { name: 'tickets:delete', description: 'delete tickets', tools: [] },
    ],
    elevationUrl: 'https://auth.example.com/grant',
    sessionTtlSeconds: 900, // inactivity timeout
  }),
]);

const handler = createHttpHandler(
  () => {
    const mcp = new McpServer({ name: 'helpdesk', version: '1.0.0' });
    const server = extendServer(mcp, composed);
    server.registerTool('get_ticket', { inputSchema: z.object({ id: z.string() }) }, async ({ id }) => ({
      content: [{ type: 'text', text: await tickets.describe(id) }],
    }));
    server.registerTool(
      'delete_ticket',
      {
        inputSchema: z.object({ id: z.string() }),
        // Either here or in the scope's `tools` list; an undeclared scope fails at registration.
        _meta: { [PERMISSIONS_ID]: { required_scopes: ['tickets:delete'] } },
      },
      async ({ id }) => ({ content: [{ type: 'text', text: await tickets.remove(id) }] }),
    );
    return mcp;
  },
  { authenticate: requireBearerAuth({ verifier: tokenVerifier }) }, // who is calling: @ext/core's README
);
await listen(handler, { port: 3000 });
// #endregion server

declare const tickets: { describe(id: string): Promise<string>; remove(id: string): Promise<string> };
declare const tokenVerifier: OAuthTokenVerifier; // checks your authorization server's access tokens and their scopes

import type { OAuthTokenVerifier } from '@modelcontextprotocol/server';

/** The core README's server half: a tracker on core with this package composed, a store, and bearer-token callers. */
// #region core-server
import { McpServer, requireBearerAuth } from '@modelcontextprotocol/server';
import { composeServer, MemoryStore } from '@ext/core';
import { createHttpHandler, extendServer } from '@ext/core/sdk-v2/server';
import { ERRORS_ID, toolError } from '@ext/errors';
import { errorsServer } from '@ext/errors/server';
import * as z from 'zod';

// Compose once; behind HTTP the SDK builds a server per request.
const composed = composeServer([errorsServer()]);
const store = new MemoryStore(); // where the extensions keep state; @ext/store-sqlite or @ext/store-redis to share it

export const handler = createHttpHandler(
  () => {
    const mcp = new McpServer({ name: 'tracker', version: '1.0.0' });
    const server = extendServer(mcp, composed, { store }); // before any tool is registered
    server.registerTool('get_ticket', { inputSchema: z.object({ id: z.string() }) }, async ({ id }, ctx) => {
      // ctx.negotiated(ERRORS_ID): { id, settings } when the client speaks it, else undefined
      ctx.logger.debug?.('get_ticket', { ticket: id, errors: ctx.negotiated(ERRORS_ID)?.id });
      const title = await ticketTitle(id);
      if (title === undefined) {
        throw toolError.permanent({
          code: 'RESOURCE_NOT_FOUND',
          message: `No ticket ${id}`,
          suggestion: 'Check the id.',
        });
      }
      return { content: [{ type: 'text', text: title }] };
    });
    return mcp;
  },
  { authenticate: requireBearerAuth({ verifier: tokenVerifier }) }, // how callers are identified: see "Who is calling"
);
// handler.fetch(request) serves both eras: 2026-07-28 per request, 2025-11-25 with sessions;
// await listen(handler) serves it at http://127.0.0.1:3000/mcp (see "Serving over HTTP").
// #endregion core-server

import type { OAuthTokenVerifier } from '@modelcontextprotocol/server';

/** Your ticket store: the title of ticket `id`, or undefined when there is none. */
declare function ticketTitle(id: string): Promise<string | undefined>;
/** Checks a bearer token with your authorization server. */
declare const tokenVerifier: OAuthTokenVerifier;

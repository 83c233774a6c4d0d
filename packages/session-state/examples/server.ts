/** The README's server half: a document reader whose cursor travels with the client in a sealed token. */
// #region server
import { composeServer } from '@ext/core';
import { createHttpHandler, extendServer } from '@ext/core/sdk-v2/server';
import { McpServer, requireBearerAuth } from '@modelcontextprotocol/server';
import { errorsServer } from '@ext/errors/server';
import { sessionState, sessionStateServer } from '@ext/session-state/server';
import * as z from 'zod';

const composed = composeServer([
  errorsServer(),
  sessionStateServer({
    // Newest first: the first key seals, every key opens. 32+ bytes each (openssl rand -base64 32);
    // a missing or short secret fails here, at start, with INVALID_OPTION.
    keys: [{ id: '2026-03', secret: process.env.SESSION_KEY_2026_03 ?? '' }],
    serverName: 'docs',
    ttlSeconds: 3600,
  }),
]);

// A new McpServer per request: the state travels with the client, not in this process.
const handler = createHttpHandler(
  () => {
    const mcp = new McpServer({ name: 'docs', version: '1.0.0' });
    const server = extendServer(mcp, composed);
    server.registerTool('open_document', { inputSchema: z.object({ id: z.string() }) }, ({ id }, ctx) => {
      sessionState<{ file: string; cursor: number }>(ctx).set({ file: id, cursor: 0 });
      return { content: [{ type: 'text', text: `opened ${id}` }] };
    });
    server.registerTool('read_next', {}, async (_args, ctx) => {
      const session = sessionState<{ file: string; cursor: number }>(ctx);
      const current = session.get();
      if (current === undefined) return { content: [{ type: 'text', text: 'open a document first' }], isError: true };
      const page = await docs.page(current.file, current.cursor);
      session.set({ ...current, cursor: current.cursor + 1 });
      return { content: [{ type: 'text', text: page }] };
    });
    return mcp;
  },
  { authenticate: requireBearerAuth({ verifier }) }, // who is calling: @ext/core's README
);
// #endregion server

declare const docs: { page(file: string, index: number): Promise<string> };
declare const verifier: import('@modelcontextprotocol/server').OAuthTokenVerifier;

export { handler };

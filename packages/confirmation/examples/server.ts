/** The README's server half: a repository host whose deletions and archivals wait for a person's yes. */
// #region server
import { composeServer } from '@ext/core';
import { createHttpHandler, extendServer, listen } from '@ext/core/sdk-v2/server';
import { McpServer, requireBearerAuth } from '@modelcontextprotocol/server';
import { errorsServer } from '@ext/errors/server';
import { CONFIRMATION_ID } from '@ext/confirmation';
import { confirmationServer } from '@ext/confirmation/server';
import * as z from 'zod';

const composed = composeServer([
  errorsServer(),
  confirmationServer({ grants: { maxCalls: 20, maxDurationSeconds: 300 } }),
]);

const handler = createHttpHandler(
  () => {
    const mcp = new McpServer({ name: 'git', version: '1.0.0' });
    // Several instances share their tokens through one store (in memory when it is left out).
    const server = extendServer(mcp, composed, { store: sharedStore });
    server.registerTool(
      'delete_repo',
      {
        inputSchema: z.object({ repo: z.string() }),
        _meta: { [CONFIRMATION_ID]: { risk_level: 'destructive', confirmation_message: 'Permanently delete {repo}?' } },
      },
      async ({ repo }) => ({ content: [{ type: 'text', text: await repositories.remove(repo) }] }),
    );
    server.registerTool(
      'archive_repo',
      {
        inputSchema: z.object({ repo: z.string() }),
        _meta: { [CONFIRMATION_ID]: { risk_level: 'reversible', confirmation_message: 'Archive {repo}?' } },
      },
      async ({ repo }) => ({ content: [{ type: 'text', text: await repositories.archive(repo) }] }),
    );
    return mcp;
  },
  { authenticate: requireBearerAuth({ verifier: tokenVerifier }) }, // who is calling: @ext/core's README
);
await listen(handler, { port: 3000 });
// #endregion server

declare const sharedStore: Store; // e.g. @ext/store-redis, the same for every instance
declare const repositories: { remove(repo: string): Promise<string>; archive(repo: string): Promise<string> };
declare const tokenVerifier: OAuthTokenVerifier; // checks your authorization server's access tokens

import type { Store } from '@ext/core';
import type { OAuthTokenVerifier } from '@modelcontextprotocol/server';

/** The README's server half: idempotency records kept in one SQLite file, shared by every per-request server. */
// #region server
import { composeServer } from '@ext/core';
import { createHttpHandler, extendServer, listen } from '@ext/core/sdk-v2/server';
import { McpServer, requireBearerAuth } from '@modelcontextprotocol/server';
import { idempotencyServer } from '@ext/idempotency/server';
import { createSqliteStore } from '@ext/store-sqlite';

const store = createSqliteStore({ path: './state/mcp.db' });
const composed = composeServer([idempotencyServer()]);

const handler = createHttpHandler(
  () => {
    const mcp = new McpServer({ name: 'shop', version: '1.0.0' });
    extendServer(mcp, composed, { store }); // every per-request server shares the one store
    return mcp;
  },
  { authenticate: requireBearerAuth({ verifier: tokenVerifier }) }, // who is calling: @ext/core's README
);

const listening = await listen(handler, { port: 3000 });
process.on('SIGTERM', () => {
  void listening.close().then(() => store.close()); // sessions end before the store closes
});
// #endregion server

declare const tokenVerifier: OAuthTokenVerifier; // checks your authorization server's access tokens

import type { OAuthTokenVerifier } from '@modelcontextprotocol/server';

/** The README's importing server: a spreadsheet server that fetches other servers' references under a policy. */
// #region importer
import { composeServer, MemoryStore } from '@ext/core';
import { createHttpHandler, extendServer, listen } from '@ext/core/sdk-v2/server';
import { McpServer, requireBearerAuth } from '@modelcontextprotocol/server';
import { errorsServer } from '@ext/errors/server';
import { createReferenceOrigin, dataReferencesServer, registerDataReferenceTools } from '@ext/data-references/server';

const store = new MemoryStore();
const origin = createReferenceOrigin({ secret: process.env.REFS_SECRET ?? '', store, serverName: 'sheets' });
await origin.listen({ port: 8081 }); // a dedicated HTTP server; sets baseUrl

const composed = composeServer([
  errorsServer(),
  dataReferencesServer({
    origin, // optional: keep each import as this server's own reference
    import: {
      allowedOrigins: ['https://analytics.example.com'], // exact origins; nothing else is fetched
      maxBytes: 2 * 1024 ** 3,
      // sink: fileSink('/var/lib/imports'), or your own writable (default: into the origin)
    },
  }),
]);

const handler = createHttpHandler(
  () => {
    const mcp = new McpServer({ name: 'sheets', version: '1.0.0' });
    const server = extendServer(mcp, composed, { store });
    registerDataReferenceTools(server); // optional: the import_from_ref tool, for tools-only clients
    return mcp;
  },
  { authenticate: requireBearerAuth({ verifier: tokenVerifier }) }, // who is calling: @ext/core's README
);
await listen(handler, { port: 3001 });
// #endregion importer

declare const tokenVerifier: OAuthTokenVerifier; // checks your authorization server's access tokens

import type { OAuthTokenVerifier } from '@modelcontextprotocol/server';

/** The README's "Who is calling": the four ways an HTTP endpoint states how its callers are identified. */
// #region who-is-calling
import { requireBearerAuth } from '@modelcontextprotocol/server';
import { createHttpHandler } from '@ext/core/sdk-v2/server';

createHttpHandler(createServer, { authenticate: requireBearerAuth({ verifier: tokenVerifier }) }); // OAuth 2.1 bearer tokens
createHttpHandler(createServer, { identify: (request) => apiKeyOwners.get(request.headers.get('x-api-key') ?? '') });
createHttpHandler(createServer, { anonymous: 'refuse' }); // authentication runs in front: fetch(request, { authInfo })
createHttpHandler(createServer, { anonymous: 'shared' }); // a local experiment: callers are not told apart
// #endregion who-is-calling

import type { McpServer, OAuthTokenVerifier } from '@modelcontextprotocol/server';

/** Your server factory: a new McpServer, extended, with its tools (see "Server half"). */
declare function createServer(): McpServer;
/** Checks a bearer token with your authorization server. */
declare const tokenVerifier: OAuthTokenVerifier;
/** API key to the name of its holder. */
declare const apiKeyOwners: ReadonlyMap<string, string>;

/** The README's "OAuth resource server": tokens from your identity provider, verified by `@ext/core/oauth`, served beyond loopback. */
// #region oauth-resource
import { oauthResource } from '@ext/core/oauth';
import { createHttpHandler, listen } from '@ext/core/sdk-v2/server';

const oauth = oauthResource({
  issuer: 'https://idp.example.com', // tokens must carry it as `iss`; its keys are discovered from its metadata
  audience: 'https://mcp.example.com/mcp', // this server's URL (RFC 8707): tokens for another resource are refused
  claims: { roles: 'realm_access.roles' }, // where roles or groups are read from, for policies
});
const handler = createHttpHandler(createServer, { authenticate: oauth.authenticate, wellKnown: oauth.wellKnown });
// 401 names the metadata (`/.well-known/oauth-protected-resource/mcp`), which `listen` serves beside the endpoint.
await listen(handler, { host: '0.0.0.0', port: 8443, allowedHosts: ['mcp.example.com'] });
// #endregion oauth-resource

import type { McpServer } from '@modelcontextprotocol/server';

/** Your server factory: a new McpServer, extended, with its tools (see "Server half"). */
declare function createServer(): McpServer;

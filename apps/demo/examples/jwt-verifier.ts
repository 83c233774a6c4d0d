/** The README's real authorization server: access tokens checked as JWTs against the issuer's published keys. */
// #region jwt-verifier
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { OAuthError, OAuthErrorCode, requireBearerAuth, type OAuthTokenVerifier } from '@modelcontextprotocol/server';
import { createHttpHandler } from '@ext/core/sdk-v2/server';

const issuer = 'https://auth.example.com';
const audience = 'https://tracker.example.com/mcp'; // this server's resource identifier
const jwks = createRemoteJWKSet(new URL(`${issuer}/.well-known/jwks.json`));
const verifier: OAuthTokenVerifier = {
  async verifyAccessToken(token) {
    const { payload } = await jwtVerify(token, jwks, { issuer, audience }).catch(() => {
      throw new OAuthError(OAuthErrorCode.InvalidToken, 'invalid or expired access token');
    });
    return {
      token,
      clientId:
        typeof payload.client_id === 'string' ? payload.client_id : typeof payload.azp === 'string' ? payload.azp : '',
      scopes: typeof payload.scope === 'string' ? payload.scope.split(' ') : [],
      expiresAt: payload.exp,
      extra: { iss: payload.iss, sub: payload.sub }, // the principal: oauth:<iss>#<sub>
    };
  },
};
const handler = createHttpHandler(buildTrackerServer, { authenticate: requireBearerAuth({ verifier }) });
// #endregion jwt-verifier

declare function buildTrackerServer(): McpServer; // builds the tracker and extends it (src/server.ts)

import type { McpServer } from '@modelcontextprotocol/server';

export { handler };

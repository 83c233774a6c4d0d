/** The README's client half: asks before calling, negotiates a session with more scopes, and sums up the grant. */
// #region client
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { extendClient } from '@ext/core/sdk-v2/client';
import { errorsClient } from '@ext/errors/client';
import { negotiateScopes, permissionsClient, preflight, summarize } from '@ext/permissions/client';

const sdkClient = new Client({ name: 'triage-bot', version: '1.0.0' });
const client = extendClient(sdkClient, [errorsClient(), permissionsClient()]); // before connect
await sdkClient.connect(
  new StreamableHTTPClientTransport(new URL('https://helpdesk.example/mcp'), {
    requestInit: { headers: { authorization: `Bearer ${accessToken}` } },
  }),
);

const check = await preflight(client, 'delete_ticket');
// { allowed: false, missing_scopes: ['tickets:delete'], elevation_url: 'https://…', reason: '…' }

if (check?.allowed === false) {
  const answer = await negotiateScopes(client, ['tickets:read', 'tickets:delete'], { justification: 'triage' });
  console.log(answer?.granted_scopes, answer?.denied_scopes); // [...], [{ scope, reason }]
  // answer.session { token, expires_at, … }: the session token now goes with every call (params._meta),
  // refreshing the session as it is used.
}

const summary = await summarize(client);
console.log(summary?.text); // "Can read tickets. Cannot delete tickets (needs tickets:delete)."
console.log(summary?.tools); // [{ name: 'delete_ticket', allowed: false, missingScopes: ['tickets:delete'] }, …]
// #endregion client

declare const accessToken: string; // the user's OAuth access token for the helpdesk

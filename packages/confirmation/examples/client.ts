/** The README's client half: one callback asks the host's user, on every path and for batches and grants. */
// #region client
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { extendClient } from '@ext/core/sdk-v2/client';
import {
  callManyWithConfirmation,
  callWithConfirmation,
  confirmationClient,
  confirmationElicitationHandler,
  grantMeta,
  requestGrant,
  type ConfirmCallback,
} from '@ext/confirmation/client';

// The host implements one callback: a terminal prompt, a web dialog...
const confirm: ConfirmCallback = async (request) =>
  request.kind === 'batch'
    ? askUser(`Approve ${request.calls.length} ${request.riskLevel} operations?`)
    : request.kind === 'grant'
      ? askUser(`Allow ${request.maxCalls} calls of ${request.tool} for ${request.durationSeconds}s?`)
      : askUser(`${request.message} (${request.riskLevel})`);

const sdkClient = new Client({ name: 'host', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } });
// Path (a): the same callback answers the server's in-band prompts. The handler registers as it is:
sdkClient.setRequestHandler('elicitation/create', confirmationElicitationHandler(confirm));
// (SDK v1: sdkClient.setRequestHandler(ElicitRequestSchema, confirmationElicitationHandler(confirm)))
const client = extendClient(sdkClient, [confirmationClient()]); // before connect
await sdkClient.connect(
  new StreamableHTTPClientTransport(new URL('https://git.example/mcp'), {
    requestInit: { headers: { authorization: `Bearer ${accessToken}` } },
  }),
);

await callWithConfirmation(client, 'delete_repo', { repo: 'old' }, { confirm });
// Fifty deletions, one dialog, one audited approval:
const deletions = staleRepos.map((repo) => ({ name: 'delete_repo', arguments: { repo } }));
await callManyWithConfirmation(client, deletions, { confirm });
// Or one bounded, time-boxed grant:
const grant = await requestGrant(client, 'archive_repo', { maxCalls: 10, durationSeconds: 60, confirm });
if (grant) await client.callTool('archive_repo', { repo: 'x' }, { meta: grantMeta(grant) });
// #endregion client

declare function askUser(question: string): Promise<boolean>; // your dialog: true only on an explicit yes
declare const staleRepos: string[];
declare const accessToken: string; // the user's OAuth access token for the git server

/** The README's client half: an agent that asks for compact JSON, and markdown for one call shown to a person. */
// #region client
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { extendClient } from '@ext/core/sdk-v2/client';
import { contentNegotiationClient, getAppliedFeatures, overrideFeatures } from '@ext/content-negotiation/client';

const capabilities = { sampling: {} };
const client = new Client({ name: 'agent', version: '1.0.0' }, { capabilities });
const extended = extendClient(client, [
  contentNegotiationClient({ features: ['agent', 'format=json', 'verbosity=compact'], capabilities }),
]);
const url = new URL('http://127.0.0.1:3333/mcp');
await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { 'x-api-key': apiKey } } }));

const json = await extended.callTool('get_ticket', { id: 'T-1' });
getAppliedFeatures(json); // { format: 'json', verbosity: 'compact', features: ['format=json', 'verbosity=compact'] }

// For one call only, e.g. to show the ticket to the user; each tag replaces the declared one of its dimension:
const forPerson = overrideFeatures(['human', 'format=markdown', 'verbosity=standard']);
const shown = await extended.callTool('get_ticket', { id: 'T-1' }, { meta: forPerson });
showToUser(shown.content);
// #endregion client

declare const apiKey: string;
declare function showToUser(content: unknown[]): void;

/** The core README's client half: an extended client pinned to the 2026-07-28 era, reading a structured error. */
// #region core-client
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { PROTOCOL_VERSIONS } from '@ext/core';
import { extendClient } from '@ext/core/sdk-v2/client';
import { errorsClient, getStructuredError } from '@ext/errors/client';

// Pinned to the 2026-07-28 era; without the option the client speaks the 2025 era (see "Choosing the protocol era").
const client = new Client(
  { name: 'app', version: '1.0.0' },
  { versionNegotiation: { mode: { pin: PROTOCOL_VERSIONS.modern } } },
);
const extended = extendClient(client, [errorsClient()]); // before connect
const url = new URL('http://127.0.0.1:3333/mcp');
// A server that identifies its callers wants credentials on every request (see "Who is calling").
const headers = { authorization: `Bearer ${accessToken}` };
await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }));
const result = await extended.callTool('get_ticket', { id: 'T-404' });
getStructuredError(result); // { code: 'RESOURCE_NOT_FOUND', category: 'permanent', ... }; undefined on success
// #endregion core-client

/** The access token your OAuth client obtained for this server. */
declare const accessToken: string;

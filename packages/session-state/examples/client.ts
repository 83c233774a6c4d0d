/** The README's client half: the client keeps the session token and sends it back by itself. */
// #region client
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { extendClient } from '@ext/core/sdk-v2/client';
import { errorsClient } from '@ext/errors/client';
import { createTokenJar, sessionStateClient } from '@ext/session-state/client';

const jar = createTokenJar(); // optional: lets the host inspect or clear tokens
const sdkClient = new Client({ name: 'reader', version: '1.0.0' });
const client = extendClient(sdkClient, [errorsClient(), sessionStateClient({ jar })]);
const url = new URL('http://127.0.0.1:3333/mcp');
await sdkClient.connect(
  new StreamableHTTPClientTransport(url, { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
);

await client.callTool('open_document', { id: 'doc-42' }); // the token is kept...
await client.callTool('read_next'); // ...and replayed, with no code of yours
// #endregion client

declare const token: string;

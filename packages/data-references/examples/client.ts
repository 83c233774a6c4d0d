/** The README's client half: moves an export from one server to another by reference, and uploads raw bytes. */
// #region client
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { extendClient } from '@ext/core/sdk-v2/client';
import { errorsClient } from '@ext/errors/client';
import { dataReferencesClient, importReference, referencesIn, uploadData } from '@ext/data-references/client';

// One extended client per server, extended before it connects.
async function connect(url: string) {
  const sdkClient = new Client({ name: 'host', version: '1.0.0' });
  const client = extendClient(sdkClient, [errorsClient(), dataReferencesClient()]);
  const headers = { authorization: `Bearer ${accessToken}` };
  await sdkClient.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client;
}
const analytics = await connect('https://analytics.example.com/mcp');
const sheets = await connect('https://sheets.example.com/mcp');

const exported = await analytics.callTool('export_events', { from: '2026-03-01', to: '2026-03-15' });
const [reference] = referencesIn(exported);
if (reference !== undefined) {
  const answer = await importReference(sheets, reference); // the bytes go from analytics to sheets directly
  console.log(answer);
  // { status: 'imported', imported_resource_id, size_bytes } or { status: 'failed', error: { code, category, ... } }
}

const upload = await uploadData(analytics, pngBytes, { mimeType: 'image/png' }); // raw bytes, one PUT
if (upload !== undefined) await analytics.callTool('analyze_image', { image: upload });
// #endregion client

declare const pngBytes: Uint8Array; // the image to send
declare const accessToken: string; // the user's OAuth access token for both servers

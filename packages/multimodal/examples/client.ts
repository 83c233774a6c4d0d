/** The README's client half: reads a tool's media declaration and sends it an image, raw when both sides can. */
// #region client
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { extendClient } from '@ext/core/sdk-v2/client';
import { dataReferencesClient } from '@ext/data-references/client';
import { errorsClient } from '@ext/errors/client';
import { binaryInput, multimodalClient, toolMediaTypes } from '@ext/multimodal/client';

const sdkClient = new Client({ name: 'viewer', version: '1.0.0' });
const client = extendClient(sdkClient, [
  errorsClient(),
  dataReferencesClient(),
  multimodalClient({ mimeTypes: ['image/*'] }),
]);
const url = new URL('http://127.0.0.1:3000/mcp');
await sdkClient.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { 'x-api-key': apiKey } } }));

const tool = (await client.listTools()).find(({ name }) => name === 'describe_image');
if (tool) toolMediaTypes(tool); // { input_types, output_types, max_input_size_bytes, ... }

const image = await binaryInput(client, pngBytes, { mimeType: 'image/png' });
// a DataReference (raw bytes uploaded with one PUT) when both sides support it,
// else { type: 'image', data: <base64>, mimeType: 'image/png' }
await client.callTool('describe_image', { image });
// #endregion client

declare const apiKey: string;
declare const pngBytes: Uint8Array;

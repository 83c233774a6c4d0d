/** The README's client half: reads the shop's manifest once, then keeps it current. */
// #region client
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { extendClient } from '@ext/core/sdk-v2/client';
import { createManifestReader, manifestClient } from '@ext/manifest/client';

const sdkClient = new Client({ name: 'planner', version: '1.0.0' });
const client = extendClient(sdkClient, [manifestClient()]); // before connect
await sdkClient.connect(
  new StreamableHTTPClientTransport(new URL('https://shop.example/mcp'), {
    requestInit: { headers: { authorization: `Bearer ${accessToken}` } },
  }),
);

const manifest = createManifestReader(client);
await manifest.toolsRequiringConfirmation(); // ['delete_order']
await manifest.costlyTools(); // metered or requires_approval
await manifest.slowTools(); // latency "minutes" ('seconds' for a lower bar)
const document = await manifest.get(); // the whole ServiceManifest, or undefined without the extension
manifest.onChange((next) => {
  replan(next);
});
// #endregion client

declare const accessToken: string; // the user's OAuth access token for the shop
declare function replan(manifest: ServiceManifest): void;

import type { ServiceManifest } from '@ext/manifest';

export { document };

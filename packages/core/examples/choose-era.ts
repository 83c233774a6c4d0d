/** Recipe: choosing the protocol era of a v2 client, the SDK's one option `versionNegotiation.mode`. */
// #region choose-era
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { PROTOCOL_VERSIONS } from '@ext/core';
import { extendClient } from '@ext/core/sdk-v2/client';

export async function connectModern(url: URL) {
  // 'legacy' (the SDK's default): initialize and a session; { pin }: exactly that revision, no fallback;
  // 'auto': probes with server/discover and falls back to initialize.
  const client = new Client(
    { name: 'app', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: PROTOCOL_VERSIONS.modern } } }, // '2026-07-28'
  );
  const extended = extendClient(client, []); // your client halves (errorsClient(), ...), before connect
  await client.connect(new StreamableHTTPClientTransport(url));
  return extended; // extended.era === 'modern'
}
// #endregion choose-era

/** The README's client half: plain calls get a key each, and a retry loop reuses one key. */
// #region client
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { extendClient } from '@ext/core/sdk-v2/client';
import { errorsClient, withRetry } from '@ext/errors/client';
import { callIdempotent, getReplayInfo, idempotencyClient, idempotentCall } from '@ext/idempotency/client';

const sdkClient = new Client({ name: 'shop-assistant', version: '1.0.0' });
const client = extendClient(sdkClient, [errorsClient(), idempotencyClient()]); // before connect
await sdkClient.connect(
  new StreamableHTTPClientTransport(new URL('https://shop.example/mcp'), {
    requestInit: { headers: { authorization: `Bearer ${accessToken}` } },
  }),
);

// Every plain call gets a fresh key (one logical call, one key).
await client.callTool('place_order', { sku: 'A-1', quantity: 2 });

// A retry loop must reuse the key: bind it once, retry the attempt.
const placeOrder = idempotentCall(client, 'place_order', { sku: 'A-1', quantity: 2 });
const result = await withRetry(placeOrder, { maxAttempts: 4 });
// or, equivalently (retry gets the same attempt function, key included):
await callIdempotent(client, 'place_order', { sku: 'A-1', quantity: 2 }, { retry: (attempt) => withRetry(attempt) });

getReplayInfo(result); // { idempotency_key, was_replay, original_timestamp } or undefined
// #endregion client

declare const accessToken: string; // the user's OAuth access token for the shop

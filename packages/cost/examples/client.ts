/** The README's client half: reads what calls cost, and keeps a budget the host sets. */
// #region client
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { extendClient } from '@ext/core/sdk-v2/client';
import { errorsClient } from '@ext/errors/client';
import { BudgetExceededError, costClient, costGuard, getCostInfo, getCostStatus } from '@ext/cost/client';

const sdkClient = new Client({ name: 'assistant', version: '1.0.0' });
const client = extendClient(sdkClient, [errorsClient(), costClient()]); // before connect
await sdkClient.connect(
  new StreamableHTTPClientTransport(new URL('https://analytics.example/mcp'), {
    requestInit: { headers: { authorization: `Bearer ${accessToken}` } },
  }),
);

const result = await client.callTool('export_analytics', { range: 'q1' });
getCostInfo(result);
// { units_used: 5, estimated_units: 5, unit_label: 'API calls',
//   quota: { limit: 12, used: 5, remaining: 7, resets_at: '2026-03-16T09:30:00.000Z', window_seconds: 86400 },
//   rate_limits: { requests_per_minute: { limit: 2, remaining: 1, resets_at: '…' } } }

await getCostStatus(client, ['export_analytics']); // the caller's standing now, without using anything

// A budget the host sets: calls it cannot pay are refused before they are sent.
const guard = costGuard(client, { budget: { 'API calls': 20, credits: 3 } });
await guard.describe('export_analytics', { subject: 'this export' });
// "This export takes minutes and uses 5 of your 7 remaining API calls (the quota resets at 2026-03-16T09:30:00.000Z)."
try {
  await guard.callTool('export_analytics', { range: 'q2' });
} catch (error) {
  if (!BudgetExceededError.isInstance(error)) throw error;
  console.log(error.message); // nothing was sent
}
guard.remaining('API calls'); // what is left, calls in flight included
// #endregion client

declare const accessToken: string; // the user's OAuth access token for the analytics server

/** The README's client half: two tool calls as one transaction, rolled back when the second fails. */
// #region client
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { extendClient } from '@ext/core/sdk-v2/client';
import { idempotencyClient } from '@ext/idempotency/client';
import { beginTransaction, transactionsClient } from '@ext/transactions/client';

const sdkClient = new Client({ name: 'app', version: '1.0.0' });
const client = extendClient(sdkClient, [idempotencyClient(), transactionsClient()]);
const url = new URL('http://127.0.0.1:3333/mcp');
await sdkClient.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { 'x-api-key': apiKey } } }));

const tx = await beginTransaction(client, { description: 'Create and link' });
const created = await tx.callTool('create_ticket', { title: 'Migrate' });
const linked = await tx.callTool('link_doc', { ticket_id: created.structuredContent?.id, doc: 'design.md' });
if (linked.isError) {
  const outcome = await tx.rollback('linking failed');
  // outcome.status: 'rolled_back' | 'partially_rolled_back'
  // outcome.steps_compensated: [{ step_id, tool, status, error? }, ...] newest first
  console.log(outcome.status, outcome.steps_compensated);
} else {
  await tx.commit();
}
// #endregion client

declare const apiKey: string;

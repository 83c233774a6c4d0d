/** The README's saga: one step on each of three servers, committed together or rolled back together. */
// #region saga
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { extendClient } from '@ext/core/sdk-v2/client';
import { idempotencyClient } from '@ext/idempotency/client';
import { runSaga, transactionsClient } from '@ext/transactions/client';

async function connect(url: string) {
  const sdkClient = new Client({ name: 'launcher', version: '1.0.0' });
  const client = extendClient(sdkClient, [idempotencyClient(), transactionsClient()]);
  await sdkClient.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}
const [jira, wiki, chat] = await Promise.all([
  connect('https://jira.example.com/mcp'),
  connect('https://wiki.example.com/mcp'),
  connect('https://chat.example.com/mcp'),
]);

const outcome = await runSaga([
  { client: jira, server: 'jira', tool: 'create_ticket', arguments: { title: 'Launch' } },
  {
    client: wiki,
    server: 'wiki',
    tool: 'link_doc',
    arguments: (previous) => ({ ticket_id: previous[0]?.structuredContent?.id, doc: 'plan' }),
  },
  { client: chat, server: 'chat', tool: 'post_message', arguments: { text: 'Launched' } },
]);
if (outcome.status !== 'committed') {
  console.log(outcome.failure); // { phase, index, server, tool, error }
  for (const p of outcome.participants) console.log(p.server, p.status, p.stepsCompensated);
}
// #endregion saga

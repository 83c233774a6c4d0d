/** The README's tools for clients that can only call tools: the four operations served as tools, over stdio. */
// #region tools
import { McpServer } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { extendServer } from '@ext/core/sdk-v2/server';
import { idempotencyServer } from '@ext/idempotency/server';
import { registerTransactionTools, transactionsServer } from '@ext/transactions/server';

const transactions = transactionsServer({
  compensations: {
    create_ticket: (_args, result, ctx) => deleteTicket(result.structuredContent?.id, ctx.idempotencyKey),
  },
  exposeAsTools: true,
});
const mcp = new McpServer({ name: 'tickets', version: '1.0.0' });
const server = extendServer(mcp, [idempotencyServer(), transactions]);
registerTransactionTools(server); // begin_transaction, commit_transaction, rollback_transaction, transaction_status
// ...register create_ticket and the other tools on `server`, then:
await mcp.connect(new StdioServerTransport());
// #endregion tools

declare function deleteTicket(ticketId: unknown, idempotencyKey: string): Promise<void>;

/** The README's server half: ticket tools whose effects a transaction can undo, on a durable store, over HTTP. */
// #region server
import { McpServer } from '@modelcontextprotocol/server';
import { composeServer } from '@ext/core';
import { createHttpHandler, extendServer } from '@ext/core/sdk-v2/server';
import { idempotencyServer } from '@ext/idempotency/server';
import { createSqliteStore } from '@ext/store-sqlite';
import { transactionsServer } from '@ext/transactions/server';
import * as z from 'zod';

const store = createSqliteStore({ path: 'state.db' });
const transactions = transactionsServer({
  compensations: {
    create_ticket: {
      description: (_args, result) => `Delete ticket ${String(result.structuredContent?.id)}`,
      tool: 'delete_ticket',
      parameters: (_args, result) => ({ ticket_id: result.structuredContent?.id }),
      // Pass the key downstream: a compensation re-run after a crash must not act twice.
      compensate: async (_args, _result, ctx) => {
        await jira.deleteIssue(String(ctx.parameters?.ticket_id), { idempotencyKey: ctx.idempotencyKey });
      },
    },
    // The short form: just the function.
    link_doc: async (args, _result, ctx) => confluence.unlink(String(args.doc), ctx.idempotencyKey),
  },
});
const composed = composeServer([idempotencyServer(), transactions]);

const handler = createHttpHandler(
  () => {
    const mcp = new McpServer({ name: 'tickets', version: '1.0.0' });
    const server = extendServer(mcp, composed, { store });
    server.registerTool('create_ticket', { inputSchema: z.object({ title: z.string() }) }, async ({ title }) => {
      const id = await jira.createIssue(title);
      return { content: [{ type: 'text', text: `Created ${id}` }], structuredContent: { id } };
    });
    server.registerTool(
      'link_doc',
      { inputSchema: z.object({ ticket_id: z.string(), doc: z.string() }) },
      async ({ ticket_id, doc }) => {
        await confluence.link(doc, ticket_id);
        return { content: [{ type: 'text', text: `Linked ${doc} to ${ticket_id}` }] };
      },
    );
    return mcp;
  },
  { identify: (request) => keyOwner(request.headers.get('x-api-key') ?? '') }, // who is calling: core's README
);

// One recovery pass before serving: what timed out while the server was down
// is rolled back and rollbacks a crash interrupted are finished, with no
// request needed; then the sweeper timer runs. (extendServer would start the
// same on the first request; start lets you wait for it and read its report.)
const report = await transactions.start(store);
// #endregion server

declare const jira: {
  createIssue(title: string): Promise<string>;
  deleteIssue(id: string, options: { idempotencyKey: string }): Promise<void>;
};
declare const confluence: {
  link(doc: string, ticketId: string): Promise<void>;
  unlink(doc: string, idempotencyKey: string): Promise<void>;
};
declare function keyOwner(key: string): string | undefined;

export { handler, report };

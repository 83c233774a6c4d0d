/** The README's server half: tools that cite the sources they read, one citation or one per row. */
// #region server
import { McpServer } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { extendServer } from '@ext/core/sdk-v2/server';
import { cite, provenanceOf, provenanceServer } from '@ext/provenance/server';
import * as z from 'zod';

const mcp = new McpServer({ name: 'finance', version: '1.0.0' });
const server = extendServer(mcp, [provenanceServer()]);
server.registerTool('get_revenue', { inputSchema: z.object({ quarter: z.string() }) }, async ({ quarter }, ctx) => {
  const row = await ledger.read(quarter);
  cite(ctx, { source: 'invoice_v2.pdf', location: { page: 3 }, retrievedAt: new Date(), confidence: 'exact' });
  return { content: [{ type: 'text', text: `${quarter}: ${row.total}` }], structuredContent: row };
});

server.registerTool('sum_sheet', {}, async (_args, ctx) => {
  const provenance = provenanceOf(ctx);
  let total = 0;
  for (const row of await sheet.rows()) {
    total += row.amount;
    // Skip the bookkeeping when no client will see it.
    if (provenance.active) {
      provenance.add({ source: 'forecast.xlsx', location: { cell: `B${row.index}` }, confidence: 'derived' });
    }
  }
  return { content: [{ type: 'text', text: `total ${total}` }], structuredContent: { total } };
});
await mcp.connect(new StdioServerTransport());
// #endregion server

declare const ledger: { read(quarter: string): Promise<{ quarter: string; total: number }> };
declare const sheet: { rows(): Promise<{ index: number; amount: number }[]> };

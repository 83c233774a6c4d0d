/** The README's server half: one tool that answers an agent with JSON and a person with markdown. */
// #region server
import { McpServer } from '@modelcontextprotocol/server';
import { composeServer } from '@ext/core';
import { createHttpHandler, extendServer } from '@ext/core/sdk-v2/server';
import { contentNegotiationServer, render } from '@ext/content-negotiation/server';
import * as z from 'zod';

const composed = composeServer([contentNegotiationServer()]);

const handler = createHttpHandler(
  () => {
    const mcp = new McpServer({ name: 'tracker', version: '1.0.0' });
    const server = extendServer(mcp, composed);
    server.registerTool('get_ticket', { inputSchema: z.object({ id: z.string() }) }, async ({ id }, ctx) => {
      const ticket = await loadTicket(id);
      return render(ctx, {
        data: { ticket },
        markdown: ({ ticket }, verbosity) =>
          verbosity === 'compact'
            ? `${ticket.id}: ${ticket.title}`
            : `### ${ticket.id}: ${ticket.title}\n\n- Status: ${ticket.status}`,
      });
    });
    return mcp;
  },
  { identify: (request) => keyOwner(request.headers.get('x-api-key') ?? '') }, // who is calling: core's README
);
// #endregion server

declare function loadTicket(id: string): Promise<{ id: string; title: string; status: string }>;
declare function keyOwner(key: string): string | undefined;

export { handler };

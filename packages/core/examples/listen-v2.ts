/** Recipe: an MCP server of the v2 SDK line served on both protocol eras in one call, `listen`. */
// #region listen-v2
import { McpServer } from '@modelcontextprotocol/server';
import { composeServer } from '@ext/core';
import { createHttpHandler, extendServer, listen } from '@ext/core/sdk-v2/server';
import * as z from 'zod';

const composed = composeServer([]); // the extensions you chose (errorsServer(), ...), composed once

export function ticketHandler() {
  // Called per request on 2026-07-28 and per session on the legacy era.
  return createHttpHandler(() => {
    const mcp = new McpServer({ name: 'tickets', version: '1.0.0' });
    const server = extendServer(mcp, composed);
    server.registerTool('get_ticket', { inputSchema: z.object({ id: z.string() }) }, ({ id }) => ({
      content: [{ type: 'text', text: `ticket ${id}` }],
    }));
    return mcp;
  });
}

export function serveTickets(port = 3000) {
  // Resolves to { url, server, close() } once it listens: url is http://127.0.0.1:3000/mcp (port 0 picks a free one);
  // close() closes the handler and the server, open streams included.
  return listen(ticketHandler(), { port });
}
// #endregion listen-v2

/** Recipe: the same server on the v1 SDK line (`@modelcontextprotocol/sdk`, the 2025 era), served with `listen`. */
// #region listen-v1
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { composeServer } from '@ext/core';
import { createHttpHandler, extendServer, listen } from '@ext/core/sdk-v1';
import * as z from 'zod';

const composed = composeServer([]); // the extensions you chose, composed once

export function serveTicketsV1(port = 3000) {
  // A session (and a server built here) per `initialize`.
  const handler = createHttpHandler(() => {
    const mcp = new McpServer({ name: 'tickets', version: '1.0.0' });
    const server = extendServer(mcp, composed);
    server.registerTool('get_ticket', { inputSchema: z.object({ id: z.string() }) }, ({ id }) => ({
      content: [{ type: 'text', text: `ticket ${id}` }],
    }));
    return mcp;
  });
  return listen(handler, { port }); // { url, server, close() }
}
// #endregion listen-v1

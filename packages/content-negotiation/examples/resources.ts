/** The README's resources and prompts: their presentation resolved from the client's capabilities (SDK v1, stdio). */
// #region resources
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { extendServer } from '@ext/core/sdk-v1';
import { contentNegotiationServer, renderPrompt, renderResource } from '@ext/content-negotiation/server';

const negotiation = contentNegotiationServer();
const mcp = new McpServer({ name: 'tracker', version: '1.0.0' });
extendServer(mcp, [negotiation]);
// What the client declared at initialize, plus the request's own `_meta` (a per-request override).
const presentationOf = (meta: unknown) =>
  negotiation.presentationFor({ peerExtensions: mcp.server.getClientCapabilities()?.extensions, meta });

mcp.registerResource('ticket', 'tracker://tickets/T-1', {}, async (uri, extra) =>
  renderResource(presentationOf(extra._meta), { uri: uri.href, data: { ticket: await loadTicket('T-1') } }),
);
mcp.registerPrompt('summarize', {}, async (extra) =>
  renderPrompt(presentationOf(extra._meta), {
    data: { ticket: await loadTicket('T-1') },
    preamble: 'Summarize this ticket.',
  }),
);
await mcp.connect(new StdioServerTransport());
// #endregion resources

declare function loadTicket(id: string): Promise<{ id: string; title: string; status: string }>;

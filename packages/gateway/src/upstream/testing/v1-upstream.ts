/** Test support: a low-level SDK v1 server (2025 era only) over Streamable HTTP, at a free port. */
import { randomUUID } from 'node:crypto';
import { silentLogger } from '@ext/core/kit';
import { listen } from '@ext/core/sdk-v2/server';
import { Server as V1Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport as V1Transport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { bodyOf } from './request-body.js';

/* eslint-disable @typescript-eslint/no-deprecated -- the low-level v1 Server answers JSON-RPC errors that McpServer would turn into tool errors */
function buildV1(): V1Server {
  const server = new V1Server({ name: 'v1-upstream', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [
      { name: 'echo', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } },
      { name: 'crash', description: 'Answers a JSON-RPC internal error.', inputSchema: { type: 'object' } },
    ],
  }));
  server.setRequestHandler(CallToolRequestSchema, (request) => {
    if (request.params.name === 'crash') throw new McpError(ErrorCode.InternalError, 'database is down');
    if (request.params.name !== 'echo') throw new McpError(ErrorCode.InvalidParams, `no tool ${request.params.name}`);
    return { content: [{ type: 'text', text: String(request.params.arguments?.text) }] };
  });
  return server;
}
/* eslint-enable @typescript-eslint/no-deprecated */

/** A low-level SDK v1 server (2025 era only) over Streamable HTTP, at a free port. */
export async function serveV1(): Promise<{ readonly url: string; close(): Promise<void> }> {
  const sessions = new Map<string, V1Transport>();
  const listening = await listen(
    {
      async fetch(request: Request): Promise<Response> {
        const parsedBody = await bodyOf(request);
        const id = request.headers.get('mcp-session-id');
        const known = id === null ? undefined : sessions.get(id);
        if (known !== undefined) return known.handleRequest(request, { parsedBody });
        if (id !== null) return new Response('Unknown session', { status: 404 });
        const transport: V1Transport = new V1Transport({
          sessionIdGenerator: randomUUID,
          onsessioninitialized: (sessionId) => {
            sessions.set(sessionId, transport);
          },
        });
        await buildV1().connect(transport);
        return transport.handleRequest(request, { parsedBody });
      },
      async close() {
        await Promise.all([...sessions.values()].map((transport) => transport.close()));
      },
    },
    { port: 0, logger: silentLogger },
  );
  return { url: String(listening.url), close: () => listening.close() };
}

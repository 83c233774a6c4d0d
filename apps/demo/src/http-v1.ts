/**
 * Streamable HTTP for the v1 tracker: the v1 SDK's web-standard transport,
 * one session (and one server instance) per `initialize`, behind the same
 * fetch-shaped interface the v2 handler has, so `startHttpServer` serves
 * either line with the same Node bridge and Host/Origin checks.
 */
import { randomUUID } from 'node:crypto';
import type { DualEraHttpHandler } from '@ext/core/sdk-v2';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';

function jsonRpcError(status: number, message: string): Response {
  return Response.json({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }, { status });
}

/** Serves v1 servers built by `factory`, one per session (the v1 SDK speaks the 2025 protocol era only). */
export function createV1HttpHandler(factory: () => McpServer): DualEraHttpHandler {
  const sessions = new Map<string, { transport: WebStandardStreamableHTTPServerTransport; server: McpServer }>();
  return {
    async fetch(request) {
      const id = request.headers.get('mcp-session-id');
      if (id !== null) {
        const existing = sessions.get(id);
        return existing ? existing.transport.handleRequest(request) : jsonRpcError(404, 'Unknown session');
      }
      if (request.method !== 'POST') return jsonRpcError(400, 'Start a session with initialize first');
      const server = factory();
      const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: randomUUID,
        onsessioninitialized: (sessionId) => {
          sessions.set(sessionId, { transport, server });
        },
        onsessionclosed: (sessionId) => {
          sessions.delete(sessionId);
        },
      });
      await server.connect(transport);
      const response = await transport.handleRequest(request);
      // Anything but an initialize leaves no session behind: release its server now.
      if (transport.sessionId === undefined) await server.close();
      return response;
    },
    async close() {
      const open = [...sessions.values()];
      sessions.clear();
      await Promise.all(open.map(({ server }) => server.close()));
    },
  };
}

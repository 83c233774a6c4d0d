import { randomUUID } from 'node:crypto';
import {
  WebStandardStreamableHTTPServerTransport,
  createMcpHandler,
  isLegacyRequest,
  type AuthInfo,
  type McpServer,
} from '@modelcontextprotocol/server';

export interface HttpHandlerOptions {
  /** Reports out-of-band errors of the SDK's handler. */
  readonly onerror?: ((error: Error) => void) | undefined;
}

/** A fetch-shaped MCP endpoint serving both protocol eras. */
export interface DualEraHttpHandler {
  fetch(request: Request, options?: { authInfo?: AuthInfo | undefined }): Promise<Response>;
  /** Closes every open legacy session and the modern handler. */
  close(): Promise<void>;
}

/**
 * Serves one MCP endpoint on both eras with extension negotiation intact:
 * 2026-07-28 requests go to the SDK's `createMcpHandler` (a server per
 * request, capabilities read from each request's envelope); 2025-era
 * requests go to a sessionful Streamable HTTP transport, because the SDK's
 * own legacy leg is stateless and never sees `initialize`, so the client's
 * extensions would be unknown. `factory` builds a server (call
 * `extendServer` in it with a composition made once).
 */
export function createHttpHandler(factory: () => Promise<McpServer> | McpServer, options: HttpHandlerOptions = {}): DualEraHttpHandler {
  const build = async (): Promise<McpServer> => factory();
  const modern = createMcpHandler(build, { legacy: 'reject', onerror: options.onerror });
  const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>();

  const legacy = async (request: Request, authInfo: AuthInfo | undefined): Promise<Response> => {
    const id = request.headers.get('mcp-session-id');
    if (id !== null) {
      const existing = sessions.get(id);
      return existing ? existing.handleRequest(request, { authInfo }) : new Response('Unknown session', { status: 404 });
    }
    const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      onsessioninitialized: (sessionId) => {
        sessions.set(sessionId, transport);
      },
      onsessionclosed: (sessionId) => {
        sessions.delete(sessionId);
      },
    });
    const server = await build();
    await server.connect(transport);
    return transport.handleRequest(request, { authInfo });
  };

  return {
    async fetch(request, requestOptions = {}) {
      return (await isLegacyRequest(request)) ? legacy(request, requestOptions.authInfo) : modern.fetch(request, { authInfo: requestOptions.authInfo });
    },
    async close() {
      await Promise.all([...sessions.values()].map((transport) => transport.close()));
      sessions.clear();
      await modern.close();
    },
  };
}

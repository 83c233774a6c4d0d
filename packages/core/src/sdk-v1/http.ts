/**
 * Streamable HTTP for the v1 SDK line: the SDK's web-standard transport,
 * one session (and one server instance) per `initialize`, behind a
 * fetch-shaped handler that identifies each caller first.
 */
import { randomUUID } from 'node:crypto';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { assertIdentityStated, createCallerGate, principalOf, statesIdentity, warnIfShared, type HttpIdentityOptions } from '../http-identity.js';
import { consoleLogger, type Logger } from '../logger.js';
import { compositionOf } from './server.js';

export interface HttpHandlerOptions extends HttpIdentityOptions<AuthInfo> {
  /** Where the start-up warning of `anonymous: 'shared'` goes. Default: stderr. */
  readonly logger?: Logger | undefined;
}

export interface HttpRequestOptions {
  /** The caller, when authentication ran in front of the handler (takes precedence over `identify` and `authenticate`). */
  readonly authInfo?: AuthInfo | undefined;
}

/** A fetch-shaped MCP endpoint (the 2025 protocol era: v1 speaks no other). */
export interface HttpHandler {
  fetch(request: Request, options?: HttpRequestOptions): Promise<Response>;
  /** Closes every open session. */
  close(): Promise<void>;
}

function jsonRpcError(status: number, message: string): Response {
  return Response.json({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }, { status });
}

interface Session {
  readonly transport: WebStandardStreamableHTTPServerTransport;
  readonly server: McpServer;
  /** The caller that opened it: no one else may use it. */
  readonly principal: string | undefined;
}

/**
 * Serves v1 servers built by `factory` (call `extendServer` in it with a
 * composition made once), one per session. The caller is identified as
 * the options say (core SPEC, IDENT-6); unless they say how, `factory` is
 * called once right away and a composition that keeps per-caller state is
 * refused (IDENT-7).
 */
export function createHttpHandler(factory: () => McpServer, options: HttpHandlerOptions = {}): HttpHandler {
  const gate = createCallerGate(options, 'createHttpHandler');
  if (!statesIdentity(options)) {
    const probe = factory();
    try {
      assertIdentityStated(compositionOf(probe), options, 'createHttpHandler');
    } finally {
      probe.close().catch(() => undefined);
    }
  }
  warnIfShared(options, options.logger ?? consoleLogger, 'createHttpHandler');
  const sessions = new Map<string, Session>();

  const open = async (request: Request, authInfo: AuthInfo | undefined): Promise<Response> => {
    if (request.method !== 'POST') return jsonRpcError(400, 'Start a session with initialize first');
    const server = factory();
    const principal = principalOf(authInfo);
    const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      onsessioninitialized: (sessionId) => {
        sessions.set(sessionId, { transport, server, principal });
      },
      onsessionclosed: (sessionId) => {
        sessions.delete(sessionId);
      },
    });
    await server.connect(transport);
    const response = await transport.handleRequest(request, { authInfo });
    // Anything but an initialize leaves no session behind: release its server now.
    if (transport.sessionId === undefined) await server.close();
    return response;
  };

  return {
    async fetch(request, requestOptions = {}) {
      const caller = await gate(request, requestOptions.authInfo);
      if (caller instanceof Response) return caller;
      const id = request.headers.get('mcp-session-id');
      if (id === null) return open(request, caller);
      const session = sessions.get(id);
      // A session serves the caller that opened it; to anyone else it does not exist.
      if (session === undefined || session.principal !== principalOf(caller)) return jsonRpcError(404, 'Unknown session');
      return session.transport.handleRequest(request, { authInfo: caller });
    },
    async close() {
      const all = [...sessions.values()];
      sessions.clear();
      await Promise.all(all.map(({ server }) => server.close()));
    },
  };
}

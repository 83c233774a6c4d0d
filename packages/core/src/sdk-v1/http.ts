/**
 * Streamable HTTP for the v1 SDK line: the SDK's web-standard transport,
 * one session (and one server instance) per `initialize`, behind a
 * fetch-shaped handler that identifies each caller first, reads each body
 * once as strict UTF-8 (or takes the one a body parser read), bounds and
 * expires the sessions, and cancels the calls of a client that went away.
 */
import { randomUUID } from 'node:crypto';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import {
  assertIdentityStated,
  createCallerGate,
  identifiesCallers,
  principalOf,
  sessionOwnerOf,
  statesIdentity,
  warnIfShared,
  type HttpIdentityOptions,
} from '../http/http-identity.js';
import {
  DEFAULT_MAX_REQUEST_BODY_BYTES,
  isJsonPost,
  jsonRpcError,
  opensSession,
  readJsonBody,
} from '../http/http-body.js';
import { openingExchange, serveInSession } from '../http/http-exchange.js';
import { isRefusal, resolveSessionLimits, SessionTable, type SessionLimits } from '../http/http-sessions.js';
import { consoleLogger, type Logger } from '../telemetry/logger.js';
import { compositionOf } from '../pipeline/server-adapter.js';

export interface HttpHandlerOptions extends HttpIdentityOptions<AuthInfo> {
  /** Where the start-up warning of `anonymous: 'shared'` goes. Default: stderr. */
  readonly logger?: Logger | undefined;
  /**
   * Bounds on the sessions (core SPEC, CORE-32): at most `max` open at once
   * (default 1,000; a further `initialize` gets `503` with `Retry-After`),
   * each closed and forgotten after `idleTimeoutMs` without a request
   * (default 15 minutes).
   */
  readonly sessions?: SessionLimits | undefined;
}

export interface HttpRequestOptions {
  /** The caller, when authentication ran in front of the handler (takes precedence over `identify` and `authenticate`). */
  readonly authInfo?: AuthInfo | undefined;
  /**
   * The body, already parsed, when something in front of the handler read
   * it (a body parser); the request's own body is then left alone.
   */
  readonly parsedBody?: unknown;
}

/** A fetch-shaped MCP endpoint (the 2025 protocol era: v1 speaks no other). */
export interface HttpHandler {
  fetch(request: Request, options?: HttpRequestOptions): Promise<Response>;
  /** Whether every request names its own caller (`listen` serves beyond loopback only then). */
  readonly identifiesCallers?: boolean | undefined;
  /** The identity scheme's documents beside the endpoint (OAuth metadata), when it has any. */
  readonly wellKnown?: ((request: Request) => Response | undefined) | undefined;
  /** Closes every open session. */
  close(): Promise<void>;
}

interface Session {
  readonly transport: WebStandardStreamableHTTPServerTransport;
  readonly server: McpServer;
  /** The caller that opened it: no one else may use it. */
  readonly principal: string | undefined;
}

/** A request as the transport gets it: the body read once (strict UTF-8, CORE-33) and handed on parsed. */
type Incoming = { readonly request: Request; readonly body: unknown };

async function readIncoming(request: Request, parsedBody: unknown): Promise<Incoming | Response> {
  if (parsedBody !== undefined || !isJsonPost(request)) return { request, body: parsedBody };
  const read = await readJsonBody(request, DEFAULT_MAX_REQUEST_BODY_BYTES);
  if (read instanceof Response) return read;
  // Empty or not JSON: the SDK answers that, from a copy of the bytes.
  return 'text' in read
    ? { request: new Request(request, { body: read.text }), body: undefined }
    : { request, body: read.parsed };
}

/**
 * Serves v1 servers built by `factory` (call `extendServer` in it with a
 * composition made once), one per session, at most `sessions.max` at once,
 * each closed once idle (CORE-32). The caller is identified as the options
 * say (core SPEC, IDENT-6); unless they say how, `factory` is called once
 * right away and a composition that keeps per-caller state is refused
 * (IDENT-7).
 */
export function createHttpHandler(factory: () => McpServer, options: HttpHandlerOptions = {}): HttpHandler {
  const limits = resolveSessionLimits(options.sessions, 'createHttpHandler');
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
  const sessions = new SessionTable<Session>(limits, (session) => {
    session.server.close().catch(() => undefined);
  });
  const open = opener(factory, sessions);

  const existing = async (
    id: string,
    { request, body }: Incoming,
    authInfo: AuthInfo | undefined,
  ): Promise<Response> => {
    const session = sessions.get(id);
    // A session serves the caller that opened it; to anyone else it does not exist.
    if (session === undefined || session.principal !== principalOf(authInfo))
      return jsonRpcError(404, -32000, 'Unknown session');
    return serveInSession(sessions, id, { request, body, transport: session.transport, authInfo });
  };

  return {
    identifiesCallers: identifiesCallers(options),
    wellKnown: options.wellKnown,
    async fetch(request, requestOptions = {}) {
      const caller = await gate(request, requestOptions.authInfo);
      if (caller instanceof Response) return caller;
      const incoming = await readIncoming(request, requestOptions.parsedBody);
      if (incoming instanceof Response) return incoming;
      const id = request.headers.get('mcp-session-id');
      return id === null ? open(incoming, caller) : existing(id, incoming, caller);
    },
    async close() {
      await Promise.all(sessions.clear().map(({ server }) => server.close()));
    },
  };
}

/** Opens a session for an `initialize` (a server and a transport of its own), or answers 503 when the table is full. */
function opener(factory: () => McpServer, sessions: SessionTable<Session>) {
  return async ({ request, body }: Incoming, authInfo: AuthInfo | undefined): Promise<Response> => {
    if (request.method !== 'POST') return jsonRpcError(400, -32000, 'Start a session with initialize first');
    const opening = opensSession(body);
    // Only an initialize opens a session; anything else is refused by the SDK and its server released below.
    const held = opening ? sessions.reserve(sessionOwnerOf(authInfo)) : undefined;
    if (held !== undefined && isRefusal(held)) return sessions.refusalResponse(held);
    const reservation = held;
    const server = factory();
    const principal = principalOf(authInfo);
    const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      onsessioninitialized: (sessionId) => {
        reservation?.open(sessionId, { transport, server, principal });
      },
      onsessionclosed: (sessionId) => {
        sessions.delete(sessionId);
      },
    });
    // Anything but an initialize leaves no session behind: its server is released at once.
    return openingExchange(
      sessions,
      reservation,
      { request, body, transport, authInfo },
      () => server.connect(transport),
      () => server.close(),
    );
  };
}

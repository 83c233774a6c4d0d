/**
 * The v2 line's dual-era HTTP handler: 2026-07-28 requests go to the SDK's
 * per-request handler, 2025-era ones to a bounded table of sessions, with
 * the caller identified before either sees the request.
 */
import { randomUUID } from 'node:crypto';
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
import { DEFAULT_MAX_REQUEST_BODY_BYTES, isJsonPost, opensSession, readJsonBody } from '../http/http-body.js';
import { openingExchange, serveInSession, transportOptions } from '../http/http-exchange.js';
import { refuseInputResponses } from '../pipeline/input-responses.js';
import {
  isRefusal,
  resolveSessionLimits,
  SessionTable,
  type ResolvedSessionLimits,
  type SessionLimits,
} from '../http/http-sessions.js';
import { isRecord } from '../kit/records.js';
import { consoleLogger, type Logger } from '../telemetry/logger.js';
import { compositionOf } from '../pipeline/server-adapter.js';
import {
  WebStandardStreamableHTTPServerTransport,
  createMcpHandler,
  isLegacyRequest,
  PROTOCOL_VERSION_META_KEY,
  type AuthInfo,
  type McpServer,
} from '@modelcontextprotocol/server';

export { DEFAULT_MAX_REQUEST_BODY_BYTES };

export interface HttpHandlerOptions extends HttpIdentityOptions<AuthInfo> {
  /** Where the start-up warning of `anonymous: 'shared'` goes. Default: stderr. */
  readonly logger?: Logger | undefined;
  /** Reports out-of-band errors of the SDK's handler. */
  readonly onerror?: ((error: Error) => void) | undefined;
  /**
   * The largest request body accepted, in bytes, on both eras (default
   * {@link DEFAULT_MAX_REQUEST_BODY_BYTES}); a larger one is answered `413`
   * without being read further.
   */
  readonly maxRequestBodyBytes?: number | undefined;
  /**
   * Bounds on the legacy-era sessions (core SPEC, CORE-32): at most `max`
   * open at once (default 1,000; a further `initialize` gets `503` with
   * `Retry-After`), each closed and forgotten after `idleTimeoutMs` without
   * a request (default 15 minutes).
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

/** A fetch-shaped MCP endpoint serving both protocol eras. */
export interface DualEraHttpHandler {
  fetch(request: Request, options?: HttpRequestOptions): Promise<Response>;
  /** Whether every request names its own caller (`listen` serves beyond loopback only then). */
  readonly identifiesCallers?: boolean | undefined;
  /** The identity scheme's documents beside the endpoint (OAuth metadata), when it has any. */
  readonly wellKnown?: ((request: Request) => Response | undefined) | undefined;
  /** Closes every open legacy session and the modern handler. */
  close(): Promise<void>;
}

/** The handler `createHttpHandler` returns: it also tells listening clients of changes. */
export interface NotifyingHttpHandler extends DualEraHttpHandler {
  /**
   * Tells the 2026-07-28 clients listening for it (`subscriptions/listen`)
   * that the tool list changed (CORE-44). A 2025-era session is told by its
   * own server (`McpServer.sendToolListChanged`), which outlives the request.
   */
  toolsChanged(): void;
}

/**
 * A message that names a method other than `initialize` and carries the
 * 2026-07-28 envelope claim (the protocol-version key in `params._meta`) is
 * never legacy, whatever else it holds: the SDK serves or refuses it on the
 * modern path. Knowing that spares a second classification, which validates
 * the whole envelope, of most modern requests.
 */
function claimsModernEra(body: unknown): boolean {
  if (!isRecord(body)) return false;
  const { method, params } = body;
  if (typeof method !== 'string' || method === 'initialize' || typeof params !== 'object' || params === null)
    return false;
  const meta = (params as { _meta?: unknown })._meta;
  return isRecord(meta) && PROTOCOL_VERSION_META_KEY in meta;
}

/** A legacy-era session: its transport (which holds its server) and the caller that opened it. */
interface LegacySession {
  readonly transport: WebStandardStreamableHTTPServerTransport;
  readonly principal: string | undefined;
}

type Sessions = SessionTable<LegacySession>;

/** A request of an open session; to any caller but the one that opened it, the session does not exist. */
async function serveSession(
  table: Sessions,
  id: string,
  request: Request,
  authInfo: AuthInfo | undefined,
  parsedBody: unknown,
): Promise<Response> {
  const session = table.get(id);
  if (session === undefined || session.principal !== principalOf(authInfo))
    return new Response('Unknown session', { status: 404 });
  return serveInSession(table, id, { request, body: parsedBody, transport: session.transport, authInfo });
}

/** A request without a session: an `initialize` opens one if the table has room (503 otherwise); anything else the SDK refuses. */
async function openSession(
  table: Sessions,
  build: () => Promise<McpServer>,
  request: Request,
  authInfo: AuthInfo | undefined,
  parsedBody: unknown,
): Promise<Response> {
  const opening = opensSession(parsedBody);
  const held = opening ? table.reserve(sessionOwnerOf(authInfo)) : undefined;
  if (held !== undefined && isRefusal(held)) return table.refusalResponse(held);
  const reservation = held;
  const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: randomUUID,
    onsessioninitialized: (sessionId) => {
      reservation?.open(sessionId, { transport, principal: principalOf(authInfo) });
    },
    onsessionclosed: (sessionId) => {
      table.delete(sessionId);
    },
  });
  return openingExchange(table, reservation, { request, body: parsedBody, transport, authInfo }, async () => {
    const server = await build();
    await server.connect(transport);
  });
}

/**
 * The 2025-era leg: a sessionful transport per `initialize`, at most
 * `limits.max` of them, each closed once idle (CORE-32); a client that goes
 * away cancels the calls it was waiting for (CORE-34).
 */
function legacySessions(build: () => Promise<McpServer>, limits: ResolvedSessionLimits) {
  const table: Sessions = new SessionTable<LegacySession>(limits, (session) => {
    session.transport.close().catch(() => undefined);
  });
  return {
    serve: (request: Request, authInfo: AuthInfo | undefined, parsedBody: unknown): Promise<Response> => {
      const id = request.headers.get('mcp-session-id');
      return id === null
        ? openSession(table, build, request, authInfo, parsedBody)
        : serveSession(table, id, request, authInfo, parsedBody);
    },
    close: async (): Promise<void> => {
      await Promise.all(table.clear().map(({ transport }) => transport.close()));
    },
  };
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
export function createHttpHandler(
  factory: () => Promise<McpServer> | McpServer,
  options: HttpHandlerOptions = {},
): NotifyingHttpHandler {
  const maxBytes = options.maxRequestBodyBytes ?? DEFAULT_MAX_REQUEST_BODY_BYTES;
  if (!Number.isSafeInteger(maxBytes) || maxBytes <= 0) {
    throw new RangeError(
      `createHttpHandler: maxRequestBodyBytes must be a positive integer, got ${String(options.maxRequestBodyBytes)}`,
    );
  }
  const limits = resolveSessionLimits(options.sessions, 'createHttpHandler');
  const gate = createCallerGate(options, 'createHttpHandler');
  const build = checkedFactory(factory, options);
  warnIfShared(options, options.logger ?? consoleLogger, 'createHttpHandler');
  const modern = createMcpHandler(build, { legacy: 'reject', onerror: options.onerror });
  const legacy = legacySessions(build, limits);

  const route = async (request: Request, authInfo: AuthInfo | undefined, parsedBody: unknown): Promise<Response> =>
    !claimsModernEra(parsedBody) && (await isLegacyRequest(request, parsedBody))
      ? legacy.serve(request, authInfo, parsedBody)
      : (refuseInputResponses(parsedBody) ?? modern.fetch(request, transportOptions(authInfo, parsedBody)));

  return {
    identifiesCallers: identifiesCallers(options),
    wellKnown: options.wellKnown,
    async fetch(request, requestOptions = {}) {
      const caller = await gate(request, requestOptions.authInfo);
      if (caller instanceof Response) return caller;
      if (requestOptions.parsedBody !== undefined || !isJsonPost(request))
        return route(request, caller, requestOptions.parsedBody);
      // The body is read once here and handed on parsed: routing and serving then neither clone nor re-read it.
      const read = await readJsonBody(request, maxBytes);
      if (read instanceof Response) return read;
      // Empty or not JSON: the SDK answers that, from a copy of the bytes.
      if ('text' in read) return route(new Request(request, { body: read.text }), caller, undefined);
      return route(request, caller, read.parsed);
    },
    toolsChanged() {
      modern.notify.toolsChanged();
    },
    async close() {
      await legacy.close();
      await modern.close();
    },
  };
}

/**
 * The factory, with the start-up check of IDENT-7 on the servers it
 * builds. Unless the author stated how callers are identified, a
 * synchronous factory is called once right away, so a composition that
 * keeps per-caller state fails here, at start; an asynchronous one is
 * checked as it builds (every request then fails until the option is set).
 */
function checkedFactory(
  factory: () => Promise<McpServer> | McpServer,
  options: HttpHandlerOptions,
): () => Promise<McpServer> {
  if (statesIdentity(options)) return async () => factory();
  const check = (server: McpServer): McpServer => {
    assertIdentityStated(compositionOf(server), options, 'createHttpHandler');
    return server;
  };
  const probe = factory();
  if (!(probe instanceof Promise)) {
    try {
      check(probe);
    } finally {
      probe.close().catch(() => undefined);
    }
  } else {
    // Not awaited here: its failure is the first build's failure below.
    probe
      .then(
        (server) => server.close(),
        () => undefined,
      )
      .catch(() => undefined);
  }
  return async () => check(await factory());
}

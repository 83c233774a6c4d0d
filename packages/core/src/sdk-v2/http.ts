import { randomUUID } from 'node:crypto';
import { assertIdentityStated, createCallerGate, principalOf, statesIdentity, warnIfShared, type HttpIdentityOptions } from '../http-identity.js';
import { consoleLogger, type Logger } from '../logger.js';
import { compositionOf } from './server.js';
import {
  WebStandardStreamableHTTPServerTransport,
  createMcpHandler,
  isLegacyRequest,
  PROTOCOL_VERSION_META_KEY,
  type AuthInfo,
  type McpServer,
} from '@modelcontextprotocol/server';

/** The SDK's default bound on a request body: 4 MiB. */
export const DEFAULT_MAX_REQUEST_BODY_BYTES = 4 * 1024 * 1024;

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
  /** Closes every open legacy session and the modern handler. */
  close(): Promise<void>;
}

type BodyRead = { readonly kind: 'text'; readonly text: string } | { readonly kind: 'too-large' } | { readonly kind: 'unreadable' };

/** Reads a body as UTF-8 text, stopping as soon as it grows past `maxBytes`. */
async function readBody(request: Request, maxBytes: number): Promise<BodyRead> {
  if (Number(request.headers.get('content-length')) > maxBytes) return { kind: 'too-large' };
  if (request.body === null) return { kind: 'text', text: '' };
  const reader = (request.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  const parts: string[] = [];
  let received = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      received += value.byteLength;
      if (received > maxBytes) {
        await reader.cancel().catch(() => undefined);
        return { kind: 'too-large' };
      }
      parts.push(decoder.decode(value, { stream: true }));
    }
  } catch {
    return { kind: 'unreadable' };
  } finally {
    reader.releaseLock();
  }
  parts.push(decoder.decode());
  return { kind: 'text', text: parts.join('') };
}

function jsonRpcError(status: number, code: number, message: string): Response {
  return Response.json({ jsonrpc: '2.0', error: { code, message }, id: null }, { status });
}

/**
 * A message that names a method other than `initialize` and carries the
 * 2026-07-28 envelope claim (the protocol-version key in `params._meta`) is
 * never legacy, whatever else it holds: the SDK serves or refuses it on the
 * modern path. Knowing that spares a second classification, which validates
 * the whole envelope, of most modern requests.
 */
function claimsModernEra(body: unknown): boolean {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return false;
  const { method, params } = body as { method?: unknown; params?: unknown };
  if (typeof method !== 'string' || method === 'initialize' || typeof params !== 'object' || params === null) return false;
  const meta = (params as { _meta?: unknown })._meta;
  return typeof meta === 'object' && meta !== null && !Array.isArray(meta) && PROTOCOL_VERSION_META_KEY in meta;
}

function isJsonPost(request: Request): boolean {
  return request.method.toUpperCase() === 'POST' && /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i.test(request.headers.get('content-type') ?? '');
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
  const maxBytes = options.maxRequestBodyBytes ?? DEFAULT_MAX_REQUEST_BODY_BYTES;
  if (!Number.isSafeInteger(maxBytes) || maxBytes <= 0) {
    throw new RangeError(`createHttpHandler: maxRequestBodyBytes must be a positive integer, got ${String(options.maxRequestBodyBytes)}`);
  }
  const gate = createCallerGate(options, 'createHttpHandler');
  const build = checkedFactory(factory, options);
  warnIfShared(options, options.logger ?? consoleLogger, 'createHttpHandler');
  const modern = createMcpHandler(build, { legacy: 'reject', onerror: options.onerror });
  const sessions = new Map<string, { readonly transport: WebStandardStreamableHTTPServerTransport; readonly principal: string | undefined }>();

  const legacy = async (request: Request, authInfo: AuthInfo | undefined, parsedBody: unknown): Promise<Response> => {
    const forward = { authInfo, ...(parsedBody !== undefined && { parsedBody }) };
    const id = request.headers.get('mcp-session-id');
    if (id !== null) {
      const existing = sessions.get(id);
      // A session serves the caller that opened it; to anyone else it does not exist.
      if (existing === undefined || existing.principal !== principalOf(authInfo)) return new Response('Unknown session', { status: 404 });
      return existing.transport.handleRequest(request, forward);
    }
    const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      onsessioninitialized: (sessionId) => {
        sessions.set(sessionId, { transport, principal: principalOf(authInfo) });
      },
      onsessionclosed: (sessionId) => {
        sessions.delete(sessionId);
      },
    });
    const server = await build();
    await server.connect(transport);
    return transport.handleRequest(request, forward);
  };

  const route = async (request: Request, authInfo: AuthInfo | undefined, parsedBody: unknown): Promise<Response> =>
    !claimsModernEra(parsedBody) && (await isLegacyRequest(request, parsedBody))
      ? legacy(request, authInfo, parsedBody)
      : modern.fetch(request, { authInfo, ...(parsedBody !== undefined && { parsedBody }) });

  return {
    async fetch(request, requestOptions = {}) {
      const caller = await gate(request, requestOptions.authInfo);
      if (caller instanceof Response) return caller;
      if (requestOptions.parsedBody !== undefined || !isJsonPost(request)) return route(request, caller, requestOptions.parsedBody);
      // The body is read once here and handed on parsed: routing and serving then neither clone nor re-read it.
      const read = await readBody(request, maxBytes);
      if (read.kind === 'too-large') return jsonRpcError(413, -32000, `Payload Too Large: Request body must not exceed ${String(maxBytes)} bytes`);
      if (read.kind === 'unreadable') return jsonRpcError(400, -32700, 'Parse error: the request body could not be read');
      let parsed: unknown;
      try {
        parsed = read.text === '' ? undefined : JSON.parse(read.text);
      } catch {
        parsed = undefined;
      }
      // Empty or not JSON: the SDK answers that, from a copy of the bytes.
      if (parsed === undefined) return route(new Request(request, { body: read.text }), caller, undefined);
      return route(request, caller, parsed);
    },
    async close() {
      await Promise.all([...sessions.values()].map(({ transport }) => transport.close()));
      sessions.clear();
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
function checkedFactory(factory: () => Promise<McpServer> | McpServer, options: HttpHandlerOptions): () => Promise<McpServer> {
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
    probe.then((server) => server.close(), () => undefined).catch(() => undefined);
  }
  return async () => check(await factory());
}

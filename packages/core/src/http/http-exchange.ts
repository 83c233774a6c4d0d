/**
 * One request and its answer on a legacy-era (2025) HTTP session, followed
 * to their end by both SDK lines' handlers: when the answer ended (the
 * session may then become idle, CORE-32), and whether the client went away
 * first (its calls are then cancelled, CORE-34).
 *
 * On the 2026-07-28 era the SDK hands the request's abort signal to the
 * handler itself. The legacy transports do not: a client that disconnects
 * only cancels the response stream, and the tool runs on to its end. The
 * protocol's own way to stop a call is `notifications/cancelled`, so that
 * is what the transport is handed on the client's behalf.
 */
import { requestIdsOf } from './http-body.js';

/** The part of both lines' web-standard transports this needs. */
export interface LegacyTransport<A> {
  readonly sessionId?: string | undefined;
  handleRequest(request: Request, options?: { authInfo?: A | undefined; parsedBody?: unknown }): Promise<Response>;
}

const GONE_REASON = 'The client went away before the answer was complete';
const NULL_BODY_STATUSES = new Set([101, 204, 205, 304]);

/**
 * `response` with its body watched: `end` runs once when the body was read
 * to its end, failed, or was cancelled by whoever reads it; at once when
 * there is no body.
 */
export function onResponseEnd(response: Response, end: () => void): Response {
  // These statuses carry no body, and a Response built with one would throw.
  if (response.body === null || NULL_BODY_STATUSES.has(response.status)) {
    end();
    return response;
  }
  let ended = false;
  const finish = (): void => {
    if (ended) return;
    ended = true;
    end();
  };
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) {
          finish();
          controller.close();
        } else controller.enqueue(value);
      } catch (error) {
        finish();
        controller.error(error);
      }
    },
    async cancel(reason) {
      finish();
      await reader.cancel(reason);
    },
  });
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
}

/**
 * Hands `transport` a `notifications/cancelled` for each request id, as the
 * client would send it on its session; the SDK then aborts each handler's
 * signal (`ctx.signal`). Failures are dropped: there is nobody left to tell.
 */
export function cancelRequests<A>(
  transport: LegacyTransport<A>,
  original: Request,
  ids: readonly (string | number)[],
  authInfo: A | undefined,
): void {
  const sessionId = transport.sessionId;
  if (sessionId === undefined) return;
  const headers = new Headers({
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-session-id': sessionId,
  });
  const version = original.headers.get('mcp-protocol-version');
  if (version !== null) headers.set('mcp-protocol-version', version);
  for (const requestId of ids) {
    const notification = {
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId, reason: GONE_REASON },
    };
    transport
      .handleRequest(new Request(original.url, { method: 'POST', headers }), { authInfo, parsedBody: notification })
      .then((response) => response.body?.cancel())
      .catch(() => undefined);
  }
}

/**
 * Follows one exchange of a session: `end` runs once, when the answer
 * ended or the request's signal aborted (the client is gone, whether or not
 * the host cancels the answer's body), whichever comes first; an abort
 * before the end also cancels the calls the request carried. The listener
 * is removed at the end, so a late abort never reaches a later call that
 * reuses an id.
 */
export function followExchange<A>(
  exchange: {
    readonly request: Request;
    readonly body: unknown;
    readonly response: Response;
    readonly transport: LegacyTransport<A>;
    readonly authInfo: A | undefined;
  },
  end: () => void,
): Response {
  const { request, response } = exchange;
  const signal = request.signal as AbortSignal | undefined;
  let over = false;
  const finish = (): void => {
    if (over) return;
    over = true;
    signal?.removeEventListener('abort', gone);
    end();
  };
  const gone = (): void => {
    if (over) return;
    const ids = requestIdsOf(exchange.body);
    if (ids.length > 0) cancelRequests(exchange.transport, request, ids, exchange.authInfo);
    finish();
  };
  if (signal?.aborted === true) gone();
  else signal?.addEventListener('abort', gone, { once: true });
  return onResponseEnd(response, finish);
}

/** The options a transport's `handleRequest` is given: the caller, and the body when it was read already. */
export function transportOptions<A>(authInfo: A | undefined, body: unknown): { authInfo?: A; parsedBody?: unknown } {
  return { authInfo, ...(body !== undefined && { parsedBody: body }) };
}

/** One exchange of a session: the request, its body as read, the session's transport and the caller. */
interface SessionExchange<A> {
  readonly request: Request;
  readonly body: unknown;
  readonly transport: LegacyTransport<A>;
  readonly authInfo: A | undefined;
}

/**
 * Serves one request of open session `id` on its transport: the session is
 * busy from now until the exchange ends ({@link followExchange}), when it
 * may become idle.
 */
export async function serveInSession<A>(
  sessions: { enter(id: string): void; leave(id: string): void },
  id: string,
  exchange: SessionExchange<A>,
): Promise<Response> {
  sessions.enter(id);
  let response: Response;
  try {
    response = await exchange.transport.handleRequest(
      exchange.request,
      transportOptions(exchange.authInfo, exchange.body),
    );
  } catch (error) {
    sessions.leave(id);
    throw error;
  }
  return followExchange({ ...exchange, response }, () => {
    sessions.leave(id);
  });
}

/**
 * Serves a request that has no session yet on a new transport, once
 * `connect` connected a server to it: an `initialize` opens a session there,
 * which is followed to the end of this exchange; anything else leaves none
 * (then `sessionless` runs before the answer is returned). The table's
 * reservation is released either way, and a session opened before a
 * failure is left, lest it count as busy for ever and never expire.
 */
export async function openingExchange<A>(
  sessions: { leave(id: string): void },
  reservation: { release(): void } | undefined,
  exchange: SessionExchange<A>,
  connect: () => Promise<void>,
  sessionless?: () => Promise<void>,
): Promise<Response> {
  const { transport } = exchange;
  let response: Response;
  try {
    await connect();
    response = await transport.handleRequest(exchange.request, transportOptions(exchange.authInfo, exchange.body));
  } catch (error) {
    if (transport.sessionId !== undefined) sessions.leave(transport.sessionId);
    throw error;
  } finally {
    reservation?.release();
  }
  const sessionId = transport.sessionId;
  if (sessionId === undefined) {
    await sessionless?.();
    return response;
  }
  return followExchange({ ...exchange, response }, () => {
    sessions.leave(sessionId);
  });
}

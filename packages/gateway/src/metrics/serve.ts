/**
 * The operations endpoints, as a fetch handler that answers their paths and
 * passes (`undefined`) on any other: `/healthz` (alive: 200 while the process
 * serves), `/readyz` (200 ready, 503 not, with each check's state) and the
 * Prometheus metrics. Beside the MCP endpoint the metrics need an operator:
 * the caller identified as the endpoint identifies callers, holding the
 * metrics scope; on an address of their own they need nothing.
 */
import type { ReadinessBody } from './readiness.js';

export const HEALTH_PATH = '/healthz';
export const READY_PATH = '/readyz';

export interface OperationsRoutes {
  /** Where the metrics are served; `undefined`: not here. */
  readonly metricsPath?: string | undefined;
  /** The metrics in the Prometheus text format, and its content type. */
  readonly scrape?: (() => Promise<{ readonly text: string; readonly contentType: string }>) | undefined;
  /** A refusal of a scrape (`401`, `403`), or `undefined` to serve it. Absent: every scrape is served. */
  readonly authorize?: ((request: Request) => Promise<Response | undefined>) | undefined;
  readonly ready: () => Promise<ReadinessBody>;
}

const NO_STORE = { 'cache-control': 'no-store' };

/** A JSON answer nothing keeps. */
export function jsonAnswer(body: unknown, status: number, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json', ...NO_STORE, ...headers },
  });
}

/** A refusal in the shape of the approvals API's: `{ error: { code, message } }`. */
export function jsonRefusal(status: number, code: string, message: string): Response {
  return jsonAnswer({ error: { code, message } }, status, status === 401 ? { 'www-authenticate': 'Bearer' } : {});
}

function notAllowed(): Response {
  return jsonAnswer({ error: { code: 'METHOD_NOT_ALLOWED', message: 'Use GET' } }, 405, { allow: 'GET, HEAD' });
}

/** The answer to GET on `path`, `undefined` for a path that is not one of ours. */
async function answer(routes: OperationsRoutes, path: string, request: Request): Promise<Response | undefined> {
  if (path === HEALTH_PATH) return jsonAnswer({ status: 'alive' }, 200);
  if (path === READY_PATH) {
    const body = await routes.ready();
    return jsonAnswer(body, body.status === 'ready' ? 200 : 503);
  }
  if (path !== routes.metricsPath || routes.scrape === undefined) return undefined;
  const refusal = await routes.authorize?.(request);
  if (refusal !== undefined) return refusal;
  const { text, contentType } = await routes.scrape();
  return new Response(text, { status: 200, headers: { 'content-type': contentType, ...NO_STORE } });
}

/** The handler of the operations endpoints. */
export function operationsHandler(routes: OperationsRoutes): (request: Request) => Promise<Response | undefined> {
  const paths = new Set([HEALTH_PATH, READY_PATH, ...(routes.metricsPath === undefined ? [] : [routes.metricsPath])]);
  return async (request) => {
    const path = new URL(request.url).pathname;
    if (!paths.has(path)) return undefined;
    if (request.method !== 'GET' && request.method !== 'HEAD') return notAllowed();
    const response = await answer(routes, path, request);
    // HEAD: the status and headers of GET, without the body.
    return request.method === 'HEAD' && response !== undefined
      ? new Response(null, { status: response.status, headers: response.headers })
      : response;
  };
}

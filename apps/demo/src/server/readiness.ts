/**
 * The demo server's health endpoints: `/healthz` (liveness: the process
 * answers) and `/readyz` (readiness: the store serves now, as its optional
 * `health()` says). A store without `health()` cannot tell, so it counts as
 * ready; one whose check throws or takes longer than a second does not,
 * since a load balancer would otherwise keep sending it traffic.
 */
import type { Logger, Store, StoreHealth } from '@ext/core';

export const LIVENESS_PATH = '/healthz';
export const READINESS_PATH = '/readyz';
/** The longest a readiness check waits for the store. */
export const READINESS_TIMEOUT_MS = 1_000;

/** What `/readyz` answers, as JSON. */
export interface ReadinessAnswer {
  readonly status: 'ready' | 'unavailable';
  readonly store: { readonly ok: boolean; readonly detail?: string | undefined };
}

function timeout(ms: number): { readonly expired: Promise<'timeout'>; cancel(): void } {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => {
      resolve('timeout');
    }, ms);
    // A probe never keeps the process alive.
    timer.unref();
  });
  return {
    expired,
    cancel: () => {
      clearTimeout(timer);
    },
  };
}

/** The store's health, bounded by `timeoutMs`; failures are logged, not shown (they may name internals). */
async function storeHealth(store: Store, timeoutMs: number, logger: Logger): Promise<StoreHealth> {
  if (typeof store.health !== 'function') return { ok: true, detail: 'the store does not report its health' };
  const limit = timeout(timeoutMs);
  try {
    const answer = await Promise.race([store.health(), limit.expired]);
    if (answer === 'timeout') {
      logger.warn('tracker: the store health check timed out', { timeoutMs });
      return { ok: false, detail: `the store did not answer its health check within ${String(timeoutMs)} ms` };
    }
    return { ok: answer.ok, ...(typeof answer.detail === 'string' && { detail: answer.detail }) };
  } catch (error) {
    logger.warn('tracker: the store health check failed', { error: String(error) });
    return { ok: false, detail: 'the store health check failed' };
  } finally {
    limit.cancel();
  }
}

/** Readiness now: `ready` when the store is healthy (or cannot tell). */
export async function checkReadiness(
  store: Store,
  logger: Logger,
  timeoutMs = READINESS_TIMEOUT_MS,
): Promise<ReadinessAnswer> {
  const health = await storeHealth(store, timeoutMs, logger);
  return { status: health.ok ? 'ready' : 'unavailable', store: health };
}

/** The HTTP answer of a health path: 200 or 503 with JSON, 405 for a method other than GET or HEAD. */
export async function healthResponse(
  pathname: string,
  method: string,
  readiness: () => Promise<ReadinessAnswer>,
): Promise<Response | undefined> {
  if (pathname !== LIVENESS_PATH && pathname !== READINESS_PATH) return undefined;
  const headers = { 'cache-control': 'no-store' };
  if (method !== 'GET' && method !== 'HEAD')
    return new Response('Method not allowed', { status: 405, headers: { ...headers, allow: 'GET, HEAD' } });
  if (pathname === LIVENESS_PATH) return Response.json({ status: 'ok' }, { headers });
  const answer = await readiness();
  return Response.json(answer, { status: answer.status === 'ready' ? 200 : 503, headers });
}

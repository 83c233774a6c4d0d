/**
 * The official Events draft's methods (`events/list`, `events/poll`,
 * `events/stream`, `events/subscribe`, `events/unsubscribe`), served over
 * the same event log, catalog and hubs as this package's own methods.
 */
import { randomUUID } from 'node:crypto';
import { ANONYMOUS_PRINCIPAL, lazyValidator, type MethodHandler, type RequestContext, type Store } from '@ext/core';
import { checkCallbackUrl, checkSecret } from './callback-url.js';
import { matchFailed } from './delivery.js';
import { checkCursor, readHead } from './event-log.js';
import { scanLog, selects, toNotification, type Selector } from './feed.js';
import { checkSubscription, parseWith, type RequestFailure } from './requests.js';
import type { EventsRuntime } from './runtime.js';
import {
  sketchInvalid,
  unknownEvent,
  unknownSubscription,
  webhookForbidden,
  webhookUnsupported,
} from './sketch-errors.js';
import { skipOlderThan, toOccurrence, waitForAppend } from './sketch-feed.js';
import {
  decodeSketchCursor,
  encodeSketchCursor,
  SKETCH_FIELD_HINTS,
  SKETCH_METHODS,
  SKETCH_NOTIFICATIONS,
  SKETCH_SUBSCRIPTION_META,
  SketchListParamsSchema,
  SketchPollParamsSchema,
  SketchStreamParamsSchema,
  SketchSubscribeParamsSchema,
  SketchUnsubscribeParamsSchema,
  type SketchDeliveryMode,
  type SketchEventDescriptor,
  type SketchPollResult,
  type SketchSubscribeResult,
} from './sketch-wire.js';
import { busChannel, busMessageToJson, logStream } from './store-layout.js';
import { deliverWebhook } from './webhook-delivery.js';
import {
  parseWebhookRecord,
  parseWebhookStatus,
  toJson,
  webhookKey,
  webhookStatusKey,
  webhookSubscriptionId,
  type WebhookRecord,
} from './webhook-records.js';

/** Most log entries one poll reads before answering `hasMore`. */
const MAX_SCAN = 10_000;
const DEFAULT_MAX_EVENTS = 100;

const listParams = lazyValidator(SketchListParamsSchema);
const pollParams = lazyValidator(SketchPollParamsSchema);
const streamParams = lazyValidator(SketchStreamParamsSchema);
const subscribeParams = lazyValidator(SketchSubscribeParamsSchema);
const unsubscribeParams = lazyValidator(SketchUnsubscribeParamsSchema);

function parsed<T>(result: { ok: true; value: T } | { ok: false; failure: RequestFailure }): T {
  if (!result.ok) throw sketchInvalid(result.failure);
  return result.value;
}

function invalidCursor(): RequestFailure {
  return {
    code: 'INVALID_INPUT',
    field: 'cursor',
    pointer: '/cursor',
    message: 'Invalid cursor: pass a cursor this server returned, or null to start from now',
  };
}

/** The event type and arguments checked against the catalog: unknown name → NotFound, bad arguments → -32602. */
function checkTarget(rt: EventsRuntime, name: string, args: Readonly<Record<string, unknown>>): void {
  if (!rt.catalog.has(name)) throw unknownEvent(name, rt.supported);
  const failure = checkSubscription([name], args, rt.catalog);
  if (failure === undefined) return;
  // Our filter is the draft's `arguments`.
  const pointer = failure.pointer.replace(/^\/filter/, '/arguments');
  throw sketchInvalid({ ...failure, field: 'arguments', pointer });
}

/** The log position a request's cursor names (`null`/absent: the head, i.e. now); refuses a cursor not minted here. */
async function startOf(
  rt: EventsRuntime,
  store: Store,
  cursor: string | null | undefined,
): Promise<{ readonly position: string; readonly fromNow: boolean }> {
  if (cursor === null || cursor === undefined) {
    return { position: await readHead(store, rt.config.keyPrefix), fromNow: true };
  }
  const position = decodeSketchCursor(cursor);
  if (position === undefined) throw sketchInvalid(invalidCursor());
  try {
    await checkCursor(store, rt.config.keyPrefix, position);
  } catch {
    throw sketchInvalid(invalidCursor());
  }
  return { position, fromNow: false };
}

/** Where replay begins once the `maxAgeMs` floor is applied (ignored for "now", as the draft says). */
async function floored(
  rt: EventsRuntime,
  store: Store,
  start: { readonly position: string; readonly fromNow: boolean },
  maxAgeMs: number | undefined,
): Promise<{ readonly start: string; readonly truncated: boolean }> {
  if (maxAgeMs === undefined || start.fromNow) return { start: start.position, truncated: false };
  return skipOlderThan(store, logStream(rt.config.keyPrefix), start.position, rt.config.now() - maxAgeMs);
}

function deliveryModes(rt: EventsRuntime): SketchDeliveryMode[] {
  return rt.config.webhooks === undefined ? ['poll', 'push'] : ['poll', 'push', 'webhook'];
}

function list(rt: EventsRuntime, params: Record<string, unknown>): { events: SketchEventDescriptor[] } {
  const request = parsed(parseWith(listParams, params, SKETCH_METHODS.list, SKETCH_FIELD_HINTS));
  // One page: no cursor this server returned exists, so any cursor is one it did not mint.
  if (request.cursor !== undefined) throw sketchInvalid(invalidCursor());
  const delivery = deliveryModes(rt);
  return {
    events: [...rt.catalog.values()].map(({ descriptor }) => ({
      name: descriptor.name,
      description: descriptor.description,
      delivery: [...delivery],
      inputSchema: descriptor.filter_schema,
      payloadSchema: descriptor.payload_schema,
    })),
  };
}

async function poll(
  rt: EventsRuntime,
  params: Record<string, unknown>,
  ctx: RequestContext,
): Promise<SketchPollResult> {
  const { config, catalog } = rt;
  const request = parsed(parseWith(pollParams, params, SKETCH_METHODS.poll, SKETCH_FIELD_HINTS));
  const args = request.arguments ?? {};
  checkTarget(rt, request.name, args);
  const { store } = ctx;
  const nextPollMs = config.pollIntervalSeconds * 1000;
  const start = await startOf(rt, store, request.cursor);
  // A null cursor bootstraps: no events, the position to poll from next.
  if (start.fromNow) {
    return { events: [], cursor: encodeSketchCursor(start.position), truncated: false, hasMore: false, nextPollMs };
  }
  const { start: from, truncated } = await floored(rt, store, start, request.maxAgeMs);
  const selector: Selector = { events: new Set([request.name]), filter: args };
  const log = logStream(config.keyPrefix);
  const deadline = config.now() + Math.min(request.timeoutMs ?? 0, config.maxStreamSeconds * 1000);
  let cursor = from;
  for (;;) {
    const scan = await scanLog(
      (after, limit) => store.read(log, { after, limit }),
      cursor,
      (entry) => selects(selector, entry, catalog, matchFailed(ctx.logger)),
      request.maxEvents ?? DEFAULT_MAX_EVENTS,
      MAX_SCAN,
    );
    cursor = scan.cursor;
    const remaining = deadline - config.now();
    if (scan.matches.length > 0 || scan.hasMore || remaining <= 0 || ctx.signal.aborted) {
      // Poll carries the cursor at the result's level only (the draft's EventOccurrence.cursor is for push and webhook).
      const events = scan.matches.map(({ id, entry }) => {
        const { cursor: _position, ...occurrence } = toOccurrence(toNotification('', id, entry, ''));
        return occurrence;
      });
      return { events, cursor: encodeSketchCursor(cursor), truncated, hasMore: scan.hasMore, nextPollMs };
    }
    await waitForAppend(store, config.keyPrefix, cursor, remaining, ctx.signal);
  }
}

async function stream(
  rt: EventsRuntime,
  params: Record<string, unknown>,
  ctx: RequestContext,
): Promise<{ _meta: object }> {
  const { config } = rt;
  const request = parsed(parseWith(streamParams, params, SKETCH_METHODS.stream, SKETCH_FIELD_HINTS));
  const args = request.arguments ?? {};
  checkTarget(rt, request.name, args);
  const { store } = ctx;
  const begin = await startOf(rt, store, request.cursor);
  const { start, truncated } = await floored(rt, store, begin, request.maxAgeMs);
  const meta = { [SKETCH_SUBSCRIPTION_META]: ctx.requestId ?? null };
  await ctx.notify(SKETCH_NOTIFICATIONS.active, { cursor: encodeSketchCursor(start), truncated, _meta: meta });
  const delivery = await rt.hubs.start(store, config.logger, {
    key: undefined,
    token: randomUUID(),
    subscriptionId: String(ctx.requestId ?? ''),
    selector: { events: new Set([request.name]), filter: args },
    cursor: start,
    maxMs: config.maxStreamSeconds * 1000,
    signal: ctx.signal,
    sink: {
      event: (notification) => ctx.notify(SKETCH_NOTIFICATIONS.event, { ...toOccurrence(notification), _meta: meta }),
      // The stream is the subscription: a server shutdown ends the request, and the client reopens it with its cursor.
      terminated: () => Promise.resolve(),
    },
  });
  const heartbeat = setInterval(() => {
    ctx
      .notify(SKETCH_NOTIFICATIONS.heartbeat, { cursor: encodeSketchCursor(delivery.cursor), _meta: meta })
      .catch(() => {
        delivery.finish('closed', 'send_failed');
      });
  }, config.heartbeatSeconds * 1000);
  heartbeat.unref();
  try {
    await delivery.done;
  } finally {
    clearInterval(heartbeat);
  }
  return { _meta: {} };
}

/** The granted lifetime, seconds: the suggestion (or the default) within [minimum, maximum]; no expiry is never granted. */
function grantedSeconds(rt: EventsRuntime, ttlMs: number | null | undefined, minimum: number): number {
  const { defaultTtlSeconds, maxTtlSeconds } = rt.config;
  const suggested = ttlMs === null || ttlMs === undefined ? defaultTtlSeconds : Math.ceil(ttlMs / 1000);
  return Math.min(maxTtlSeconds, Math.max(minimum, suggested));
}

async function subscribe(
  rt: EventsRuntime,
  params: Record<string, unknown>,
  ctx: RequestContext,
): Promise<SketchSubscribeResult> {
  const { config } = rt;
  const webhooks = config.webhooks;
  if (webhooks === undefined) throw webhookUnsupported();
  if (ctx.principal === ANONYMOUS_PRINCIPAL) throw webhookForbidden();
  const request = parsed(parseWith(subscribeParams, params, SKETCH_METHODS.subscribe, SKETCH_FIELD_HINTS));
  const args = request.arguments ?? {};
  checkTarget(rt, request.name, args);
  const secretFailure = checkSecret(request.delivery.secret);
  if (secretFailure !== undefined) throw sketchInvalid(secretFailure);
  const urlFailure = await checkCallbackUrl(request.delivery.url, webhooks);
  if (urlFailure !== undefined) throw sketchInvalid(urlFailure);
  const { store } = ctx;
  const url = new URL(request.delivery.url).href;
  const id = webhookSubscriptionId(ctx.principal, url, request.name, args);
  const key = webhookKey(config.keyPrefix, id);
  const now = config.now();
  const existing = parseWebhookRecord(await store.get(key));
  const live = existing !== undefined && now < existing.expires_ms ? existing : undefined;
  const status =
    live === undefined ? undefined : parseWebhookStatus(await store.get(webhookStatusKey(config.keyPrefix, id)));
  // A live subscription continues where its delivery stands (the client's cursor is at or behind it); a new or
  // lapsed one starts from the client's cursor.
  let start: string;
  let truncated = false;
  if (live === undefined) {
    const floor = await floored(rt, store, await startOf(rt, store, request.cursor), request.maxAgeMs);
    start = floor.start;
    truncated = floor.truncated;
  } else {
    start = status?.cursor ?? live.cursor;
  }
  const ttlSeconds = grantedSeconds(rt, request.ttlMs, webhooks.minTtlSeconds);
  const expiresMs = now + ttlSeconds * 1000;
  const record: WebhookRecord = {
    v: 1,
    id,
    principal: ctx.principal,
    name: request.name,
    arguments: args,
    url,
    secret: request.delivery.secret,
    created_at: live?.created_at ?? new Date(now).toISOString(),
    expires_ms: expiresMs,
    cursor: start,
  };
  const keepMs = ttlSeconds * 1000 + config.graceSeconds * 1000;
  await store.set(key, toJson(record), { ttlMs: keepMs });
  await deliverWebhook(rt, store, record, start);
  const result: SketchSubscribeResult = {
    id,
    refreshBefore: new Date(expiresMs).toISOString(),
    cursor: encodeSketchCursor(start),
    truncated,
  };
  if (live !== undefined) {
    result.deliveryStatus = {
      active: true,
      lastDeliveryAt: status?.last_delivery_at ?? null,
      lastError: status?.last_error ?? null,
      ...(status?.failed_since === undefined ? {} : { failedSince: status.failed_since }),
    };
  }
  return result;
}

async function unsubscribe(
  rt: EventsRuntime,
  params: Record<string, unknown>,
  ctx: RequestContext,
): Promise<Record<string, never>> {
  const { config } = rt;
  if (config.webhooks === undefined) throw webhookUnsupported();
  if (ctx.principal === ANONYMOUS_PRINCIPAL) throw webhookForbidden();
  const request = parsed(parseWith(unsubscribeParams, params, SKETCH_METHODS.unsubscribe, SKETCH_FIELD_HINTS));
  const args = request.arguments ?? {};
  const url = URL.canParse(request.delivery.url) ? new URL(request.delivery.url).href : request.delivery.url;
  const id = webhookSubscriptionId(ctx.principal, url, request.name, args);
  const key = webhookKey(config.keyPrefix, id);
  const { store } = ctx;
  if (parseWebhookRecord(await store.get(key)) === undefined) throw unknownSubscription();
  await store.delete(key);
  await store.delete(webhookStatusKey(config.keyPrefix, id));
  await store.publish(
    busChannel(config.keyPrefix),
    busMessageToJson({ kind: 'terminated', key, reason: 'unsubscribed' }),
  );
  return {};
}

/** The draft's methods by their own names, each answering a fresh object. */
export function sketchMethods(rt: EventsRuntime): Readonly<Record<string, MethodHandler>> {
  return {
    [SKETCH_METHODS.list]: (params) => ({ ...list(rt, params) }),
    [SKETCH_METHODS.poll]: async (params, ctx) => ({ ...(await poll(rt, params, ctx)) }),
    [SKETCH_METHODS.stream]: async (params, ctx) => ({ ...(await stream(rt, params, ctx)) }),
    [SKETCH_METHODS.subscribe]: async (params, ctx) => ({ ...(await subscribe(rt, params, ctx)) }),
    [SKETCH_METHODS.unsubscribe]: async (params, ctx) => ({ ...(await unsubscribe(rt, params, ctx)) }),
  };
}

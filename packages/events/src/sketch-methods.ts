/**
 * The official Events draft's methods (`events/list`, `events/poll`,
 * `events/stream`, `events/subscribe`, `events/unsubscribe`), served over
 * the same event log, catalog and hubs as this package's own methods. The
 * requests' checks are in `sketch-requests.ts`, the webhook methods in
 * `sketch-webhook-methods.ts`.
 */
import { randomUUID } from 'node:crypto';
import { lazyValidator } from '@ext/core/kit';
import { type MethodHandler, type RequestContext } from '@ext/core';
import { matchFailed } from './delivery.js';
import { scanLog, selects, toNotification, type Selector } from './feed.js';
import { parseWith } from './requests.js';
import type { EventsRuntime } from './runtime.js';
import { sketchInvalid } from './sketch-errors.js';
import { toOccurrence, waitForAppend } from './sketch-feed.js';
import { checkTarget, floored, invalidCursor, parsed, startOf } from './sketch-requests.js';
import { sketchSubscribe, sketchUnsubscribe } from './sketch-webhook-methods.js';
import {
  encodeSketchCursor,
  SKETCH_FIELD_HINTS,
  SKETCH_METHODS,
  SKETCH_NOTIFICATIONS,
  SKETCH_SUBSCRIPTION_META,
  SketchListParamsSchema,
  SketchPollParamsSchema,
  SketchStreamParamsSchema,
  type SketchDeliveryMode,
  type SketchEventDescriptor,
  type SketchPollResult,
} from './sketch-wire.js';
import { logStream } from './store-layout.js';

/** Most log entries one poll reads before answering `hasMore`. */
const MAX_SCAN = 10_000;
const DEFAULT_MAX_EVENTS = 100;

const listParams = lazyValidator(SketchListParamsSchema);
const pollParams = lazyValidator(SketchPollParamsSchema);
const streamParams = lazyValidator(SketchStreamParamsSchema);

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

/** The draft's methods by their own names, each answering a fresh object. */
export function sketchMethods(rt: EventsRuntime): Readonly<Record<string, MethodHandler>> {
  return {
    [SKETCH_METHODS.list]: (params) => ({ ...list(rt, params) }),
    [SKETCH_METHODS.poll]: async (params, ctx) => ({ ...(await poll(rt, params, ctx)) }),
    [SKETCH_METHODS.stream]: async (params, ctx) => ({ ...(await stream(rt, params, ctx)) }),
    [SKETCH_METHODS.subscribe]: async (params, ctx) => ({ ...(await sketchSubscribe(rt, params, ctx)) }),
    [SKETCH_METHODS.unsubscribe]: async (params, ctx) => ({ ...(await sketchUnsubscribe(rt, params, ctx)) }),
  };
}

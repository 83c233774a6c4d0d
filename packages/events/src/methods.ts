/**
 * The extension's JSON-RPC methods: `<id>/list`, `<id>/subscribe`,
 * `<id>/unsubscribe`, `<id>/poll` and `<id>/stream`.
 */
import { randomUUID } from 'node:crypto';
import type { MethodHandler, RequestContext } from '@ext/core';
import { matchFailed, type Sink } from './delivery.js';
import { invalid, invalidCursor, viaTool } from './errors.js';
import { checkCursor, readHead } from './event-log.js';
import { scanLog, selects, toNotification, type Selector } from './feed.js';
import { subscriptionAttempt, type SubscriptionAttempt } from './options.js';
import {
  checkSubscription,
  chooseDelivery,
  grantedTtlSeconds,
  parsePollRequest,
  parseStreamRequest,
  parseSubscriptionRequest,
  parseUnsubscribeRequest,
} from './requests.js';
import type { EventsRuntime } from './runtime.js';
import { EVENTS_SKETCH_ID } from './sketch-wire.js';
import {
  EVENTS_ID,
  eventsNotification,
  type DeliveryMode,
  type ListEventsResult,
  type PollResult,
  type StreamResult,
  type SubscriptionResponse,
  type TerminationNotice,
  type UnsubscribeResult,
} from './schema.js';
import { endedReason, logStream, subscriptionKey, type SubscriptionRecord } from './store-layout.js';
import { endSubscription, loadRecord, replaceOthers, saveRecord, updateIndex } from './subscription-store.js';

/** Most log entries one poll reads before answering `has_more`. */
const MAX_SCAN = 10_000;
const DEFAULT_POLL_LIMIT = 100;

/** Our identifier as negotiated, if it was: the official draft's serves only its own methods (sketch-methods.ts). */
function ownNegotiated(ctx: RequestContext): string | undefined {
  const id = ctx.negotiated(EVENTS_ID)?.id;
  return id === EVENTS_SKETCH_ID ? undefined : id;
}

function negotiatedId(ctx: RequestContext): string {
  return ownNegotiated(ctx) ?? EVENTS_ID;
}

/** A sink sending the extension's notifications through `channel` (a connection, or the request itself). */
function notificationSink(
  channel: { notify(method: string, params?: Record<string, unknown>): Promise<void> },
  id: string,
): Sink {
  return {
    event: (notification) => channel.notify(eventsNotification(id, 'event'), { ...notification }),
    terminated: (notice) => channel.notify(eventsNotification(id, 'terminated'), { ...notice }),
  };
}

function list(rt: EventsRuntime): ListEventsResult {
  return {
    events: [...rt.catalog.values()].map((entry) => entry.descriptor),
    poll_interval_seconds: rt.config.pollIntervalSeconds,
  };
}

/** Why `authorize` refuses the attempt, or `undefined` when it allows it (or there is no `authorize`). */
async function refusal(
  rt: EventsRuntime,
  attempt: SubscriptionAttempt,
  ctx: RequestContext,
): Promise<string | undefined> {
  if (rt.options.authorize === undefined) return undefined;
  const verdict = await rt.options.authorize(attempt, ctx);
  if (verdict === true) return undefined;
  return typeof verdict === 'string' && verdict.length > 0 ? verdict : 'Not allowed to subscribe to these events';
}

async function subscribe(
  rt: EventsRuntime,
  params: Record<string, unknown>,
  ctx: RequestContext,
): Promise<SubscriptionResponse> {
  const { config, supported } = rt;
  const parsed = parseSubscriptionRequest(params);
  if (!parsed.ok) throw invalid(parsed.failure);
  const request = parsed.value;
  const filter = request.filter ?? {};
  const failure = checkSubscription(request.events, filter, rt.catalog);
  if (failure !== undefined) throw invalid(failure, viaTool(ctx));
  const { store } = ctx;
  const subscriptionId = request.subscription_id ?? randomUUID();
  const denied = (reason: string): SubscriptionResponse => ({
    subscription_id: subscriptionId,
    status: 'denied',
    reason,
    supported_events: supported,
    poll_interval_seconds: config.pollIntervalSeconds,
  });
  const attempt = subscriptionAttempt({ subscriptionId, events: request.events, filter, principal: ctx.principal });
  const refused = await refusal(rt, attempt, ctx);
  if (refused !== undefined) return denied(refused);
  if (request.cursor !== undefined) await checkCursor(store, config.keyPrefix, request.cursor);
  const ttlSeconds = grantedTtlSeconds(request.ttl_seconds, config.defaultTtlSeconds, config.maxTtlSeconds);
  const now = config.now();
  const expiresMs = now + ttlSeconds * 1000;
  if (!(await updateIndex(store, config, ctx.principal, subscriptionId, expiresMs))) {
    return denied(
      `This caller already holds the maximum of ${config.maxSubscriptionsPerPrincipal} subscriptions; unsubscribe from one first`,
    );
  }
  const start = request.cursor ?? (await readHead(store, config.keyPrefix));
  const delivery: DeliveryMode = chooseDelivery(
    request.delivery,
    ctx.connection !== undefined,
    ownNegotiated(ctx) !== undefined,
  );
  const record: SubscriptionRecord = {
    v: 1,
    subscription_id: subscriptionId,
    events: [...new Set(request.events)],
    filter,
    delivery,
    created_at: new Date(now).toISOString(),
    expires_ms: expiresMs,
    cursor: start,
  };
  const key = subscriptionKey(config.keyPrefix, ctx.principal, subscriptionId);
  await saveRecord(store, config, key, record);
  const token = randomUUID();
  await replaceOthers(store, config.keyPrefix, key, token);
  const connection = ctx.connection;
  if (delivery === 'notification' && connection !== undefined) {
    await rt.hubs.start(store, ctx.logger, {
      key,
      token,
      subscriptionId,
      selector: { events: new Set(record.events), filter },
      cursor: start,
      expiresMs,
      signal: connection.signal,
      sink: notificationSink(connection, negotiatedId(ctx)),
    });
  }
  return {
    subscription_id: subscriptionId,
    status: 'active',
    expires_at: new Date(expiresMs).toISOString(),
    supported_events: supported,
    cursor: start,
    delivery,
    ttl_seconds: ttlSeconds,
    poll_interval_seconds: config.pollIntervalSeconds,
  };
}

async function unsubscribe(
  rt: EventsRuntime,
  params: Record<string, unknown>,
  ctx: RequestContext,
): Promise<UnsubscribeResult> {
  const parsed = parseUnsubscribeRequest(params);
  if (!parsed.ok) throw invalid(parsed.failure);
  const { subscription_id: subscriptionId } = parsed.value;
  const { key, record } = await loadRecord(ctx.store, rt.config, ctx.principal, subscriptionId, viaTool(ctx));
  if (record.terminated === undefined) {
    await endSubscription(ctx.store, rt.config, { principal: ctx.principal, key, record }, 'unsubscribed');
  }
  return { subscription_id: subscriptionId, status: 'unsubscribed' };
}

async function poll(rt: EventsRuntime, params: Record<string, unknown>, ctx: RequestContext): Promise<PollResult> {
  const { config, catalog } = rt;
  const parsed = parsePollRequest(params);
  if (!parsed.ok) throw invalid(parsed.failure);
  const request = parsed.value;
  const { store } = ctx;
  const { key, record } = await loadRecord(store, config, ctx.principal, request.subscription_id, viaTool(ctx));
  const from = request.cursor ?? record.cursor;
  const base = {
    subscription_id: record.subscription_id,
    poll_interval_seconds: config.pollIntervalSeconds,
    expires_at: new Date(record.expires_ms).toISOString(),
  };
  const ended = endedReason(record, config.now());
  if (ended !== undefined) {
    return { ...base, status: 'terminated', events: [], cursor: from, has_more: false, reason: ended.reason };
  }
  const selector: Selector = { events: new Set(record.events), filter: record.filter };
  const log = logStream(config.keyPrefix);
  let scan;
  try {
    scan = await scanLog(
      (after, limit) => store.read(log, { after, limit }),
      from,
      (entry) => selects(selector, entry, catalog, matchFailed(ctx.logger)),
      request.limit ?? DEFAULT_POLL_LIMIT,
      MAX_SCAN,
    );
  } catch (error) {
    if (error instanceof RangeError) throw invalidCursor();
    throw error;
  }
  let previous = from;
  const events = scan.matches.map(({ id, entry }) => {
    const notification = toNotification(record.subscription_id, id, entry, previous);
    previous = id;
    return notification;
  });
  if (scan.cursor !== record.cursor) await saveRecord(store, config, key, { ...record, cursor: scan.cursor });
  return { ...base, status: 'active', events, cursor: scan.cursor, has_more: scan.hasMore };
}

async function stream(rt: EventsRuntime, params: Record<string, unknown>, ctx: RequestContext): Promise<StreamResult> {
  const { config } = rt;
  const parsed = parseStreamRequest(params);
  if (!parsed.ok) throw invalid(parsed.failure);
  const request = parsed.value;
  const { store } = ctx;
  const { key, record } = await loadRecord(store, config, ctx.principal, request.subscription_id);
  const from = request.cursor ?? record.cursor;
  await checkCursor(store, config.keyPrefix, from);
  const sink = notificationSink(ctx, negotiatedId(ctx));
  const ended = endedReason(record, config.now());
  if (ended !== undefined) {
    const notice: TerminationNotice = { subscription_id: record.subscription_id, reason: ended.reason, cursor: from };
    if (ended.message !== undefined) notice.message = ended.message;
    await sink.terminated(notice);
    return { subscription_id: record.subscription_id, status: 'terminated', cursor: from, reason: ended.reason };
  }
  const token = randomUUID();
  await replaceOthers(store, config.keyPrefix, key, token);
  const delivery = await rt.hubs.start(store, ctx.logger, {
    key,
    token,
    subscriptionId: record.subscription_id,
    selector: { events: new Set(record.events), filter: record.filter },
    cursor: from,
    expiresMs: record.expires_ms,
    maxMs: config.maxStreamSeconds * 1000,
    signal: ctx.signal,
    sink,
  });
  const end = await delivery.done;
  const result: StreamResult = {
    subscription_id: record.subscription_id,
    status: end.status === 'terminated' ? 'terminated' : 'active',
    cursor: end.cursor,
  };
  if (end.reason !== undefined) result.reason = end.reason;
  return result;
}

/** The methods by verb, each answering a fresh object. */
export function eventsMethods(rt: EventsRuntime): Readonly<Record<string, MethodHandler>> {
  return {
    list: () => ({ ...list(rt) }),
    subscribe: async (params, ctx) => ({ ...(await subscribe(rt, params, ctx)) }),
    unsubscribe: async (params, ctx) => ({ ...(await unsubscribe(rt, params, ctx)) }),
    poll: async (params, ctx) => ({ ...(await poll(rt, params, ctx)) }),
    stream: async (params, ctx) => ({ ...(await stream(rt, params, ctx)) }),
  };
}

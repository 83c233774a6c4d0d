/**
 * The official Events draft's webhook methods, `events/subscribe` and
 * `events/unsubscribe`: a subscription is keyed by who asks, the callback
 * URL, the event type and its arguments; subscribing again renews it where
 * its delivery stands, and unsubscribing ends its delivery on every
 * instance.
 */
import { ANONYMOUS_PRINCIPAL, type RequestContext, type Store } from '@ext/core';
import { lazyValidator } from '@ext/core/kit';
import { checkCallbackUrl, checkSecret } from './callback-url.js';
import { parseWith } from './requests.js';
import type { EventsRuntime } from './runtime.js';
import { sketchInvalid, unknownSubscription, webhookForbidden, webhookUnsupported } from './sketch-errors.js';
import { checkTarget, floored, parsed, startOf } from './sketch-requests.js';
import {
  encodeSketchCursor,
  SKETCH_FIELD_HINTS,
  SKETCH_METHODS,
  SketchSubscribeParamsSchema,
  SketchUnsubscribeParamsSchema,
  type SketchSubscribeParams,
  type SketchSubscribeResult,
} from './sketch-wire.js';
import { busChannel, busMessageToJson } from './store-layout.js';
import { deliverWebhook } from './webhook-delivery.js';
import type { ResolvedWebhookOptions } from './webhook-options.js';
import {
  parseWebhookRecord,
  parseWebhookStatus,
  toJson,
  webhookKey,
  webhookStatusKey,
  webhookSubscriptionId,
  type WebhookRecord,
  type WebhookStatus,
} from './webhook-records.js';

const subscribeParams = lazyValidator(SketchSubscribeParamsSchema);
const unsubscribeParams = lazyValidator(SketchUnsubscribeParamsSchema);

/** A subscribe request checked whole: webhooks served, a known caller, its target, secret and callback URL. */
interface CheckedSubscribe {
  readonly request: SketchSubscribeParams;
  readonly args: Readonly<Record<string, unknown>>;
  readonly webhooks: ResolvedWebhookOptions;
}

/** The granted lifetime, seconds: the suggestion (or the default) within [minimum, maximum]; no expiry is never granted. */
function grantedSeconds(rt: EventsRuntime, ttlMs: number | null | undefined, minimum: number): number {
  const { defaultTtlSeconds, maxTtlSeconds } = rt.config;
  const suggested = ttlMs === null || ttlMs === undefined ? defaultTtlSeconds : Math.ceil(ttlMs / 1000);
  return Math.min(maxTtlSeconds, Math.max(minimum, suggested));
}

async function checkSubscribe(
  rt: EventsRuntime,
  params: Record<string, unknown>,
  ctx: RequestContext,
): Promise<CheckedSubscribe> {
  const webhooks = rt.config.webhooks;
  if (webhooks === undefined) throw webhookUnsupported();
  if (ctx.principal === ANONYMOUS_PRINCIPAL) throw webhookForbidden();
  const request = parsed(parseWith(subscribeParams, params, SKETCH_METHODS.subscribe, SKETCH_FIELD_HINTS));
  const args = request.arguments ?? {};
  checkTarget(rt, request.name, args);
  const secretFailure = checkSecret(request.delivery.secret);
  if (secretFailure !== undefined) throw sketchInvalid(secretFailure);
  const urlFailure = await checkCallbackUrl(request.delivery.url, webhooks);
  if (urlFailure !== undefined) throw sketchInvalid(urlFailure);
  return { request, args, webhooks };
}

/**
 * Where delivery starts. A live subscription continues where its delivery
 * stands (the client's cursor is at or behind it); a new or lapsed one
 * starts from the client's cursor.
 */
async function deliveryStart(
  rt: EventsRuntime,
  store: Store,
  request: SketchSubscribeParams,
  live: WebhookRecord | undefined,
  status: WebhookStatus | undefined,
): Promise<{ readonly start: string; readonly truncated: boolean }> {
  if (live !== undefined) return { start: status?.cursor ?? live.cursor, truncated: false };
  return floored(rt, store, await startOf(rt, store, request.cursor), request.maxAgeMs);
}

/** The answer to subscribe for `record`; a renewal also says where its delivery stands. */
function subscribeResult(
  record: WebhookRecord,
  truncated: boolean,
  renewed: boolean,
  status: WebhookStatus | undefined,
): SketchSubscribeResult {
  const result: SketchSubscribeResult = {
    id: record.id,
    refreshBefore: new Date(record.expires_ms).toISOString(),
    cursor: encodeSketchCursor(record.cursor),
    truncated,
  };
  if (renewed) {
    result.deliveryStatus = {
      active: true,
      lastDeliveryAt: status?.last_delivery_at ?? null,
      lastError: status?.last_error ?? null,
      ...(status?.failed_since === undefined ? {} : { failedSince: status.failed_since }),
    };
  }
  return result;
}

export async function sketchSubscribe(
  rt: EventsRuntime,
  params: Record<string, unknown>,
  ctx: RequestContext,
): Promise<SketchSubscribeResult> {
  const { config } = rt;
  const { request, args, webhooks } = await checkSubscribe(rt, params, ctx);
  const { store } = ctx;
  const url = new URL(request.delivery.url).href;
  const id = webhookSubscriptionId(ctx.principal, url, request.name, args);
  const key = webhookKey(config.keyPrefix, id);
  const now = config.now();
  const existing = parseWebhookRecord(await store.get(key));
  const live = existing !== undefined && now < existing.expires_ms ? existing : undefined;
  const status =
    live === undefined ? undefined : parseWebhookStatus(await store.get(webhookStatusKey(config.keyPrefix, id)));
  const { start, truncated } = await deliveryStart(rt, store, request, live, status);
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
  return subscribeResult(record, truncated, live !== undefined, status);
}

export async function sketchUnsubscribe(
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

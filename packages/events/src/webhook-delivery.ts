/**
 * Delivery of one webhook subscription on this instance: a hub delivery
 * whose sink posts each matching event, signed per Standard Webhooks
 * through `@ext/core/webhooks`, one at a time in log order (so the cursor
 * in each body is a safe watermark). An event the endpoint never accepts is
 * kept as a dead letter and logged once; nothing is dropped silently.
 */
import { randomUUID } from 'node:crypto';
import type { Logger, Store } from '@ext/core';
import {
  nonPublicReason,
  sendWebhook,
  webhookSigner,
  type WebhookOutcome,
  type WebhookSigner,
} from '@ext/core/webhooks';
import type { Delivery, Sink } from './delivery.js';
import type { EventsRuntime } from './runtime.js';
import { replaceOthers } from './subscription-store.js';
import { toOccurrence } from './sketch-feed.js';
import { SKETCH_SUBSCRIPTION_HEADER } from './sketch-wire.js';
import type { ResolvedWebhookOptions } from './webhook-options.js';
import {
  deadLetterStream,
  errorCategory,
  parseDeadLetter,
  parseWebhookRecord,
  parseWebhookStatus,
  toJson,
  webhookKey,
  webhookStatusKey,
  type DeadLetter,
  type WebhookRecord,
  type WebhookStatus,
} from './webhook-records.js';

/** What the sink needs beside the record. */
interface WebhookContext {
  readonly store: Store;
  readonly logger: Logger;
  readonly options: ResolvedWebhookOptions;
  readonly prefix: string;
  readonly now: () => number;
  /** How long status and dead letters are kept, milliseconds. */
  readonly retainMs: number;
}

async function recordOutcome(
  context: WebhookContext,
  record: WebhookRecord,
  position: string,
  outcome: WebhookOutcome,
): Promise<void> {
  const { store, prefix, now } = context;
  const at = new Date(now()).toISOString();
  const before = parseWebhookStatus(await store.get(webhookStatusKey(prefix, record.id)));
  const status: WebhookStatus = outcome.delivered
    ? { v: 1, cursor: position, last_delivery_at: at }
    : {
        v: 1,
        cursor: position,
        last_delivery_at: before?.last_delivery_at,
        last_error: errorCategory(outcome.reason, outcome.status),
        failed_since: before?.failed_since ?? at,
      };
  const ttlMs = Math.max(1, record.expires_ms - now()) + context.retainMs;
  await store.set(webhookStatusKey(prefix, record.id), toJson(status), { ttlMs });
}

async function deadLetter(
  context: WebhookContext,
  record: WebhookRecord,
  occurrence: { eventId: string; name: string; cursor?: string | null },
  outcome: Extract<WebhookOutcome, { delivered: false }>,
): Promise<void> {
  const letter: DeadLetter = {
    subscription_id: record.id,
    principal: record.principal,
    event_id: occurrence.eventId,
    event: occurrence.name,
    cursor: occurrence.cursor ?? '',
    endpoint: new URL(record.url).origin,
    attempts: outcome.attempts,
    reason: outcome.reason,
    at: new Date(context.now()).toISOString(),
    ...(outcome.status === undefined ? {} : { last_status: outcome.status }),
  };
  await context.store.append(deadLetterStream(context.prefix), toJson(letter), {
    maxLength: context.options.retainDeadLetters,
    ttlMs: context.retainMs,
  });
  context.logger.warn('events: a webhook delivery was abandoned; it is kept as a dead letter', { ...letter });
}

/** A subscription delivered on this instance; a refresh here updates `record` in place (secret, expiry). */
interface LocalWebhook {
  record: WebhookRecord;
  readonly store: Store;
  ended: boolean;
}

/** The webhook subscriptions each server half delivers on this instance, by store key. */
const running = new WeakMap<EventsRuntime, Map<string, LocalWebhook>>();

function runningOf(rt: EventsRuntime): Map<string, LocalWebhook> {
  let table = running.get(rt);
  if (table === undefined) {
    table = new Map();
    running.set(rt, table);
  }
  return table;
}

/** The sink of one webhook subscription: posts each event; never throws (a throw would stop the delivery). */
function webhookSink(context: WebhookContext, local: LocalWebhook): Sink {
  let signed: { readonly secret: string; readonly signer: WebhookSigner } | undefined;
  const signerFor = (secret: string): WebhookSigner => {
    if (signed?.secret !== secret) signed = { secret, signer: webhookSigner(secret) };
    return signed.signer;
  };
  const beforeAttempt = context.options.allowPrivateAddresses ? undefined : nonPublicReason;
  return {
    event: async (notification) => {
      const record = local.record;
      // Expired between rechecks: the subscription is over, so nothing is owed to the endpoint.
      if (context.now() >= record.expires_ms) return;
      const occurrence = toOccurrence(notification);
      const target = {
        url: record.url,
        signer: signerFor(record.secret),
        headers: { [SKETCH_SUBSCRIPTION_HEADER]: record.id },
      };
      try {
        const outcome = await sendWebhook(
          target,
          JSON.stringify(occurrence),
          {
            fetch: context.options.fetch,
            timeoutMs: context.options.timeoutMs,
            attempts: context.options.attempts,
            backoffMs: context.options.backoffMs,
            now: context.now,
            beforeAttempt,
          },
          occurrence.eventId,
        );
        if (!outcome.delivered) await deadLetter(context, record, occurrence, outcome);
        await recordOutcome(context, record, notification.cursor, outcome);
      } catch (error) {
        context.logger.warn('events: recording a webhook delivery failed', {
          subscription_id: record.id,
          event_id: occurrence.eventId,
          error: String(error),
        });
      }
    },
    // Expiry and unsubscribe end a webhook subscription quietly: the client asked for both.
    terminated: () => Promise.resolve(),
  };
}

/**
 * Delivers `record` on this instance. When this instance already delivers
 * it (a refresh), the running delivery continues with the new secret and
 * expiry; otherwise a delivery starts from log position `start` and takes
 * over from any other instance's.
 */
export async function deliverWebhook(
  rt: EventsRuntime,
  store: Store,
  record: WebhookRecord,
  start: string,
): Promise<void> {
  const { config } = rt;
  const options = config.webhooks;
  if (options === undefined) throw new Error('webhook delivery is not configured');
  const key = webhookKey(config.keyPrefix, record.id);
  const table = runningOf(rt);
  const current = table.get(key);
  if (current !== undefined && !current.ended && current.store === store) {
    current.record = record;
    return;
  }
  const token = randomUUID();
  await replaceOthers(store, config.keyPrefix, key, token);
  const local: LocalWebhook = { record, store, ended: false };
  const context: WebhookContext = {
    store,
    logger: config.logger,
    options,
    prefix: config.keyPrefix,
    now: config.now,
    retainMs: config.retainSeconds * 1000,
  };
  const delivery: Delivery = await rt.hubs.start(store, config.logger, {
    key,
    token,
    subscriptionId: record.id,
    selector: { events: new Set([record.name]), filter: record.arguments },
    cursor: start,
    sink: webhookSink(context, local),
    // Expiry is read from the stored record, which a refresh on any instance moves.
    ended: async () => {
      const stored = parseWebhookRecord(await store.get(key));
      if (stored === undefined) return { reason: 'unsubscribed' };
      return config.now() >= stored.expires_ms ? { reason: 'expired' } : undefined;
    },
  });
  table.set(key, local);
  void delivery.done.then(() => {
    local.ended = true;
    if (table.get(key) === local) table.delete(key);
  });
}

/** The dead letters kept in `store`, oldest first, after the record with id `after`. */
export async function readDeadLetters(
  store: Store,
  prefix: string,
  options: { readonly after?: string | undefined; readonly limit?: number | undefined } = {},
): Promise<{ readonly id: string; readonly letter: DeadLetter }[]> {
  const entries = await store.read(deadLetterStream(prefix), { after: options.after, limit: options.limit ?? 100 });
  return entries.flatMap((raw) => {
    const letter = parseDeadLetter(raw.value);
    return letter === undefined ? [] : [{ id: raw.id, letter }];
  });
}

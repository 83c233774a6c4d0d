/**
 * Store I/O of subscriptions: their records, each principal's index (for
 * the per-principal limit), and the bus messages that end or take over deliveries.
 */
import { ExtensionError, type Store } from '@ext/core';
import { notFound } from './errors.js';
import type { ResolvedOptions } from './options.js';
import {
  busChannel,
  busMessageToJson,
  parsePrincipalIndex,
  parseRecord,
  principalIndexKey,
  recordToJson,
  subscriptionKey,
  type BusMessage,
  type SubscriptionRecord,
} from './store-layout.js';

/** A caller's subscription and its store key; `SUBSCRIPTION_NOT_FOUND` when there is none (`viaTool`: asked through a tool). */
export async function loadRecord(
  store: Store,
  config: ResolvedOptions,
  principal: string,
  subscriptionId: string,
  viaTool = false,
): Promise<{ key: string; record: SubscriptionRecord }> {
  const key = subscriptionKey(config.keyPrefix, principal, subscriptionId);
  const record = parseRecord(await store.get(key));
  if (record === undefined) throw notFound(subscriptionId, viaTool);
  return { key, record };
}

/** Writes a live record, kept until it expires plus the grace period. */
export async function saveRecord(
  store: Store,
  config: ResolvedOptions,
  key: string,
  record: SubscriptionRecord,
): Promise<void> {
  const ttlMs = Math.max(1, record.expires_ms - config.now()) + config.graceSeconds * 1000;
  await store.set(key, recordToJson(record), { ttlMs });
}

/** Adds or removes one subscription in the principal's index; `false` when adding would exceed the limit. */
export async function updateIndex(
  store: Store,
  config: ResolvedOptions,
  principal: string,
  subscriptionId: string,
  expiresMs: number | undefined,
): Promise<boolean> {
  const key = principalIndexKey(config.keyPrefix, principal);
  for (let attempt = 0; attempt < 50; attempt++) {
    const raw = await store.get(key);
    // A Map: the id is the client's, and `__proto__` or `constructor` must count as the ids they are.
    const live = new Map(Object.entries(parsePrincipalIndex(raw, config.now())));
    if (expiresMs === undefined) live.delete(subscriptionId);
    else {
      if (!live.has(subscriptionId) && live.size >= config.maxSubscriptionsPerPrincipal) return false;
      live.set(subscriptionId, expiresMs);
    }
    const longest = Math.max(0, ...live.values());
    const ttlMs = Math.max(1, longest - config.now()) + config.graceSeconds * 1000;
    if (await store.compareAndSet(key, raw, Object.fromEntries(live), { ttlMs })) return true;
  }
  throw new ExtensionError('transient', 'EVENTS_BUSY', 'Too many concurrent subscription changes for this caller', {
    retryAfterSeconds: 1,
    suggestion: 'Retry in a moment.',
  });
}

/** Ends a subscription: marks its record, drops it from the index, and tells every instance's deliveries. */
export async function endSubscription(
  store: Store,
  config: ResolvedOptions,
  target: { readonly principal: string; readonly key: string; readonly record: SubscriptionRecord },
  reason: string,
  message?: string,
): Promise<void> {
  const { principal, key, record } = target;
  const ended: SubscriptionRecord = {
    ...record,
    terminated: message === undefined ? { reason } : { reason, message },
  };
  await store.set(key, recordToJson(ended), { ttlMs: config.graceSeconds * 1000 });
  await updateIndex(store, config, principal, record.subscription_id, undefined);
  const notice: BusMessage = { kind: 'terminated', key, reason, message };
  await store.publish(busChannel(config.keyPrefix), busMessageToJson(notice));
}

/** Tells every other delivery of the subscription at `key` that the one holding `token` took over. */
export async function replaceOthers(store: Store, keyPrefix: string, key: string, token: string): Promise<void> {
  await store.publish(busChannel(keyPrefix), busMessageToJson({ kind: 'replaced', key, token }));
}

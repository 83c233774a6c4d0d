/** The per-principal budget of live records in the store: two bucket counters whose sum bounds the live records. */
import type { Store } from '@ext/core';
import { keyLimitError } from './errors.js';
import { budgetKey, budgetWindow } from './logic.js';
import type { IdempotencyConfig } from './options.js';

/** Counts a new record against the principal's budget; returns the undo, or throws `rate_limited`. */
export async function reserveBudget(
  config: IdempotencyConfig,
  store: Store,
  principal: string,
): Promise<() => Promise<void>> {
  const windowMs = config.maxTtlSeconds * 1000;
  const window = budgetWindow(config.now(), windowMs);
  const currentKey = budgetKey(config.keyPrefix, principal, window.current);
  // Counters outlive the records they count by one bucket, then vanish.
  // Independent keys: issued together, a networked store answers both in one round trip.
  const [count, previous] = await Promise.all([
    store.increment(currentKey, 1, { ttlMs: 2 * windowMs }),
    store.get(budgetKey(config.keyPrefix, principal, window.previous)),
  ]);
  const live = count + (typeof previous === 'number' ? previous : 0);
  const undo = async (): Promise<void> => {
    await store.increment(currentKey, -1, { ttlMs: 2 * windowMs });
  };
  if (live > config.maxKeysPerPrincipal) {
    await undo();
    throw keyLimitError(config.maxKeysPerPrincipal, window.secondsToNextBucket);
  }
  return undo;
}

/**
 * A sliding quota counter in the store (COST-20): one log of charges per
 * counter, changed only by compare-and-set on the value read, so every
 * store (memory, SQLite, Redis) admits past the limit under no concurrency
 * and across instances, exactly as it would one call at a time.
 */
import { StoreUnavailableError, type Store } from '@ext/core';
import { type JsonValue } from '@ext/core/kit';
import { adjust, admit, logJson, readLog, standingAt, type SlidingLog, type Standing } from './sliding-log.js';

/**
 * Tries before a change gives up. Each failed compare-and-set means another
 * call's change went in, and changes are bounded by the calls admitted, so
 * this is reached only when the store keeps refusing writes it reports as
 * done: then the call is refused as the store being busy, never admitted.
 */
const MAX_ATTEMPTS = 1000;

/** Where a sliding counter lives and how long its charges count. */
export interface SlidingMeter {
  readonly key: string;
  readonly limit: number;
  readonly charge: number;
  readonly windowMs: number;
}

/** How long the log outlives its newest charge: the window, plus a margin for clocks that disagree. */
function ttlMs(meter: SlidingMeter): number {
  return meter.windowMs + 60_000;
}

/**
 * Reads the log, lets `change` decide, and writes what it returns with a
 * compare-and-set on the value read, again from the read when another call
 * wrote first. `change` returns no log when there is nothing to write.
 */
async function update<T>(
  store: Store,
  meter: SlidingMeter,
  change: (log: SlidingLog) => { readonly log?: SlidingLog | undefined; readonly outcome: T },
): Promise<T> {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const stored: JsonValue | undefined = await store.get(meter.key);
    const { log, outcome } = change(readLog(stored));
    if (log === undefined) return outcome;
    if (await store.compareAndSet(meter.key, stored, logJson(log), { ttlMs: ttlMs(meter) })) return outcome;
  }
  throw new StoreUnavailableError({ reason: 'busy' });
}

export type SlidingReservation =
  | { readonly admitted: true; readonly standing: Standing }
  | { readonly admitted: false; readonly used: number; readonly roomAtMs: number };

/** Adds the meter's charge at `nowMs` when it fits the window ending then; a refusal writes nothing. */
export function reserveSliding(store: Store, meter: SlidingMeter, nowMs: number): Promise<SlidingReservation> {
  return update<SlidingReservation>(store, meter, (log) => {
    const admission = admit(log, nowMs, meter.windowMs, meter.limit, meter.charge);
    if (!admission.admitted) return { outcome: admission };
    // A charge of nothing changes no standing: it is not written unless it drops charges that aged out.
    const changed = meter.charge > 0 || admission.log.length !== log.length;
    return {
      log: changed ? admission.log : undefined,
      outcome: { admitted: true, standing: admission.standing },
    };
  });
}

/** Changes the charge made at `atMs` by `by` units (negative: gives units back); the standing at `atMs` after. */
export function adjustSliding(store: Store, meter: SlidingMeter, atMs: number, by: number): Promise<Standing> {
  return update(store, meter, (log) => {
    const next = adjust(log, atMs, by, atMs, meter.windowMs);
    return { log: by === 0 ? undefined : next, outcome: standingAt(next, atMs, meter.windowMs) };
  });
}

/** The standing at `nowMs`, read only. */
export async function slidingStanding(store: Store, meter: SlidingMeter, nowMs: number): Promise<Standing> {
  return standingAt(readLog(await store.get(meter.key)), nowMs, meter.windowMs);
}

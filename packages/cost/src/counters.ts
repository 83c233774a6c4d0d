/**
 * The quota and rate-limit counters in the store: a call's charges reserved
 * before it runs, refused past a limit, and settled to what it used.
 */
import { ExtensionError, type CallContext, type Logger, type Store } from '@ext/core';
import {
  admits,
  chargeOf,
  counterTtlMs,
  quotaState,
  rateState,
  roomAfterUndo,
  secondsUntil,
  settledUnits,
  slidingMeterOf,
  type Meter,
} from './meters.js';
import type { CostResultMeta, CostToolMeta, RateLimitStates } from './schema.js';
import { adjustSliding, reserveSliding } from './sliding-counter.js';
import type { Standing } from './sliding-log.js';

/** Tries per counter when taking a refused charge back reveals room (others' charges were taken back meanwhile). */
const RESERVE_ATTEMPTS = 3;

/** A counter this call holds a charge on, and its standing right after charging it. */
export interface Reservation {
  readonly meter: Meter;
  readonly total: number;
  /** When the standing next improves: the fixed window's end, or when a sliding window's oldest charge leaves. */
  readonly resetsAtMs: number;
}

type ReserveOutcome =
  | { readonly admitted: true; readonly total: number; readonly resetsAtMs: number }
  | { readonly admitted: false; readonly used: number; readonly resetsAtMs: number };

/**
 * Adds the charge, and takes it back when the total passes the limit: the
 * counter never admits more than its limit, whatever the concurrency, and a
 * refused call holds nothing once it is refused. A sliding quota decides on
 * its log of charges instead, written only when the charge fits (COST-20).
 */
async function reserve(store: Store, meter: Meter, nowMs: number): Promise<ReserveOutcome> {
  if (meter.mode === 'sliding') {
    const outcome = await reserveSliding(store, slidingMeterOf(meter), nowMs);
    return outcome.admitted
      ? { admitted: true, total: outcome.standing.used, resetsAtMs: outcome.standing.resetsAtMs }
      : { admitted: false, used: outcome.used, resetsAtMs: outcome.roomAtMs };
  }
  const options = { ttlMs: counterTtlMs(meter, nowMs) };
  for (let attempt = 1; ; attempt += 1) {
    const total = await store.increment(meter.key, meter.charge, options);
    if (admits(total, meter.limit)) return { admitted: true, total, resetsAtMs: meter.endMs };
    if (meter.charge === 0) return { admitted: false, used: total, resetsAtMs: meter.endMs };
    const after = await store.increment(meter.key, -meter.charge, options);
    if (attempt >= RESERVE_ATTEMPTS || !roomAfterUndo(after, meter.charge, meter.limit))
      return { admitted: false, used: after, resetsAtMs: meter.endMs };
  }
}

/** Adds `by` units (negative: takes them back) to the charge this call made at `nowMs`; the standing after. */
async function addUnits(store: Store, meter: Meter, by: number, nowMs: number): Promise<Standing> {
  if (meter.mode === 'sliding') return adjustSliding(store, slidingMeterOf(meter), nowMs, by);
  const used = await store.increment(meter.key, by, { ttlMs: counterTtlMs(meter, nowMs) });
  return { used, resetsAtMs: meter.endMs };
}

/** Takes one reserved charge back; the counter's standing after. */
async function release(store: Store, reservation: Reservation, nowMs: number): Promise<Standing> {
  const { meter } = reservation;
  if (meter.charge === 0) return { used: reservation.total, resetsAtMs: reservation.resetsAtMs };
  return addUnits(store, meter, -meter.charge, nowMs);
}

/** `QUOTA_EXHAUSTED` or `RATE_LIMIT_EXCEEDED` for the counter that refused, with when the call would fit. */
function refusal(meter: Meter, standing: Standing, tool: string, meta: CostToolMeta, nowMs: number): ExtensionError {
  const { used } = standing;
  const resetsAt = new Date(standing.resetsAtMs).toISOString();
  const retryAfterSeconds = secondsUntil(standing.resetsAtMs, nowMs);
  if (meter.kind === 'quota') {
    const label = meta.cost.unit_label ?? 'units';
    const details: Record<string, unknown> = {
      tool,
      limit: meter.limit,
      used,
      requested_units: meter.charge,
      window_seconds: meter.windowSeconds,
      resets_at: resetsAt,
    };
    if (meta.cost.unit_label !== undefined) details.unit_label = meta.cost.unit_label;
    if (meter.pool !== undefined) details.pool = meter.pool;
    return new ExtensionError(
      'rate_limited',
      'QUOTA_EXHAUSTED',
      `The quota for "${tool}" is exhausted: ${used} of ${meter.limit} ${label} used in this window, and a call needs ${meter.charge}; it resets at ${resetsAt}`,
      {
        retryAfterSeconds,
        userActionable: true,
        suggestion: `Wait until ${resetsAt}, or choose a cheaper tool or a smaller request.`,
        details,
      },
    );
  }
  return new ExtensionError(
    'rate_limited',
    'RATE_LIMIT_EXCEEDED',
    `Too many calls of "${tool}": at most ${meter.limit} per ${windowWord(meter.windowSeconds)}; the window resets at ${resetsAt}`,
    {
      retryAfterSeconds,
      userActionable: false,
      suggestion: `Retry after ${retryAfterSeconds} seconds.`,
      details: {
        tool,
        limit: meter.limit,
        window: meter.name,
        window_seconds: meter.windowSeconds,
        resets_at: resetsAt,
      },
    },
  );
}

function windowWord(seconds: number): string {
  if (seconds === 60) return 'minute';
  if (seconds === 3_600) return 'hour';
  if (seconds === 86_400) return 'day';
  return `${seconds} seconds`;
}

/** What a settled call reports in `result._meta[COST_ID]`. */
function resultEntry(
  meta: CostToolMeta,
  unitsUsed: number,
  quota: CostResultMeta['quota'],
  rates: RateLimitStates | undefined,
): CostResultMeta {
  const entry: CostResultMeta = { units_used: unitsUsed, estimated_units: meta.cost.estimated_units };
  if (meta.cost.unit_label !== undefined) entry.unit_label = meta.cost.unit_label;
  if (quota !== undefined) entry.quota = quota;
  if (rates !== undefined && Object.keys(rates).length > 0) entry.rate_limits = rates;
  return entry;
}

/** Takes every reserved charge back; the counters' standings after (the charged one where giving back failed). */
async function undoAll(
  store: Store,
  logger: Logger,
  reservations: readonly Reservation[],
  nowMs: number,
  tool: string,
): Promise<Map<Meter, Standing>> {
  const totals = new Map<Meter, Standing>();
  for (const reservation of reservations) {
    try {
      totals.set(reservation.meter, await release(store, reservation, nowMs));
    } catch (error) {
      // The charge stays counted until its window ends: the caller loses capacity, never gains it.
      logger.warn('cost: taking back a reserved charge failed', {
        tool,
        counter: reservation.meter.name,
        error: String(error),
      });
      totals.set(reservation.meter, standingOf(reservation));
    }
  }
  return totals;
}

function standingOf(reservation: Reservation): Standing {
  return { used: reservation.total, resetsAtMs: reservation.resetsAtMs };
}

/**
 * Reserves the call's charge on every counter at once (a store that commits
 * writes in groups takes them in one transaction). When one refuses, or the
 * store fails on one, every charge taken is given back, then the first
 * failure in the meters' order is thrown: the quota's before the rate
 * limits', longest window first (COST-8).
 */
export async function reserveAll(
  ctx: CallContext,
  meters: readonly Meter[],
  meta: CostToolMeta,
  nowMs: number,
  tool: string,
): Promise<Reservation[]> {
  const outcomes = await Promise.allSettled(meters.map((meter) => reserve(ctx.store, meter, nowMs)));
  const reservations: Reservation[] = [];
  let failure: Error | undefined;
  outcomes.forEach((outcome, index) => {
    const meter = meters[index] as Meter;
    if (outcome.status === 'rejected') failure ??= outcome.reason as Error;
    else if (outcome.value.admitted)
      reservations.push({ meter, total: outcome.value.total, resetsAtMs: outcome.value.resetsAtMs });
    else
      failure ??= refusal(meter, { used: outcome.value.used, resetsAtMs: outcome.value.resetsAtMs }, tool, meta, nowMs);
  });
  if (failure === undefined) return reservations;
  await undoAll(ctx.store, ctx.logger, reservations, nowMs, tool);
  throw failure;
}

/** Keeps the charges of a call that ran, adjusted to the units it used; gives back everything for a call that did not. */
export async function settle(
  ctx: CallContext,
  meta: CostToolMeta,
  reservations: readonly Reservation[],
  outcome: { ran: boolean; failed: boolean; reported: number | undefined },
  nowMs: number,
  tool: string,
): Promise<CostResultMeta> {
  let unitsUsed = 0;
  let totals: Map<Meter, Standing>;
  if (!outcome.ran) {
    totals = await undoAll(ctx.store, ctx.logger, reservations, nowMs, tool);
  } else {
    unitsUsed = settledUnits(meta.cost.estimated_units, outcome.reported, outcome.failed);
    totals = new Map(reservations.map((reservation) => [reservation.meter, standingOf(reservation)]));
    const quota = reservations.find((reservation) => reservation.meter.kind === 'quota');
    const delta = quota === undefined ? 0 : chargeOf(unitsUsed) - quota.meter.charge;
    if (quota !== undefined && delta !== 0) {
      try {
        totals.set(quota.meter, await addUnits(ctx.store, quota.meter, delta, nowMs));
      } catch (error) {
        // The estimate stays charged: the result still reports what the call used.
        ctx.logger.warn('cost: charging the units a call used failed', { tool, error: String(error) });
      }
    }
  }
  let quotaEntry: CostResultMeta['quota'];
  const rates: RateLimitStates = {};
  for (const [meter, standing] of totals) {
    if (meter.kind === 'quota') quotaEntry = quotaState(meter, standing.used, standing.resetsAtMs);
    else rates[meter.name as keyof RateLimitStates] = rateState(meter, standing.used);
  }
  return resultEntry(meta, unitsUsed, quotaEntry, rates);
}

/**
 * The counters a call is checked against (its quota and rate-limit windows),
 * their store keys and lifetimes, and the standing they report: arithmetic only.
 */
import {
  RATE_LIMIT_WINDOWS,
  type CostToolMeta,
  type QuotaState,
  type QuotaWindowMode,
  type RateLimitState,
  type RateLimitWindow,
} from './schema.js';
import type { SlidingMeter } from './sliding-counter.js';

/** Whole units a quota counts for `units`: fractions round up, so a quota is never under-charged. */
export function chargeOf(units: number): number {
  return Math.ceil(units);
}

/** A fixed window aligned to the Unix epoch: `[startMs, endMs)`, numbered by `index`. */
export interface FixedWindow {
  readonly index: number;
  readonly startMs: number;
  readonly endMs: number;
}

export function fixedWindow(nowMs: number, windowSeconds: number): FixedWindow {
  const length = windowSeconds * 1000;
  const index = Math.floor(nowMs / length);
  return { index, startMs: index * length, endMs: (index + 1) * length };
}

/** Whole seconds from `nowMs` until `endMs`, rounded up: retrying after that many seconds lands in the next window. */
export function secondsUntil(endMs: number, nowMs: number): number {
  return Math.max(0, Math.ceil((endMs - nowMs) / 1000));
}

/** One counter a call is checked against: the quota, or one rate-limit window. */
export interface Meter {
  readonly kind: 'quota' | 'rate';
  /** `quota`, or the rate-limit field (`requests_per_minute`...). */
  readonly name: 'quota' | RateLimitWindow;
  readonly key: string;
  readonly limit: number;
  /** What one call adds: the quota's estimated units (whole), or 1 call. */
  readonly charge: number;
  readonly windowSeconds: number;
  /** `sliding` for a quota that slides (COST-20); rate limits and `fixed` quotas count per fixed window. */
  readonly mode: QuotaWindowMode;
  /** When the fixed window ends; for a sliding window, when a charge made now stops counting. */
  readonly endMs: number;
  /** The quota pool, when the quota is shared by several tools. */
  readonly pool?: string | undefined;
}

function keyPart(value: string): string {
  return encodeURIComponent(value);
}

/** Store key of a counter: namespaced, per principal, per tool (or pool), per window. */
export function counterKey(
  prefix: string,
  kind: 'quota' | 'rate',
  principal: string,
  scope: string,
  windowSeconds: number,
  windowIndex: number,
): string {
  return [prefix, kind, keyPart(principal), keyPart(scope), String(windowSeconds), String(windowIndex)].join(':');
}

/** What the sliding counter needs of a meter (COST-20). */
export function slidingMeterOf(meter: Meter): SlidingMeter {
  return { key: meter.key, limit: meter.limit, charge: meter.charge, windowMs: meter.windowSeconds * 1000 };
}

/** Store key of a sliding quota's log: per principal, per tool (or pool), per window length. */
export function slidingKey(prefix: string, principal: string, scope: string, windowSeconds: number): string {
  return [prefix, 'quota-log', keyPart(principal), keyPart(scope), String(windowSeconds)].join(':');
}

/** The rate windows, longest first: the order meters are reserved in. */
const RATE_WINDOWS_LONGEST_FIRST = (Object.entries(RATE_LIMIT_WINDOWS) as [RateLimitWindow, number][]).sort(
  (a, b) => b[1] - a[1],
);

/**
 * The counters a call of `tool` is checked against, in the order they are
 * reserved: the quota first, then rate limits from the longest window to the
 * shortest, so a refusal names the limit that is furthest from resetting.
 */

export function planMeters(
  meta: CostToolMeta,
  tool: string,
  principal: string,
  nowMs: number,
  prefix: string,
): Meter[] {
  const meters: Meter[] = [];
  if (meta.quota !== undefined) {
    const { limit, window_seconds: windowSeconds, pool } = meta.quota;
    const mode = meta.quota.window ?? 'sliding';
    const scope = pool === undefined ? `tool:${tool}` : `pool:${pool}`;
    const window = fixedWindow(nowMs, windowSeconds);
    meters.push({
      kind: 'quota',
      name: 'quota',
      // A sliding counter is one log per window length; a fixed one is a counter per window.
      key:
        mode === 'sliding'
          ? slidingKey(prefix, principal, scope, windowSeconds)
          : counterKey(prefix, 'quota', principal, scope, windowSeconds, window.index),
      limit,
      charge: chargeOf(meta.cost.estimated_units),
      windowSeconds,
      mode,
      endMs: mode === 'sliding' ? nowMs + windowSeconds * 1000 : window.endMs,
      pool,
    });
  }
  for (const [name, windowSeconds] of RATE_WINDOWS_LONGEST_FIRST) {
    const limit = meta.rate_limits?.[name];
    if (limit === undefined) continue;
    const window = fixedWindow(nowMs, windowSeconds);
    meters.push({
      kind: 'rate',
      name,
      key: counterKey(prefix, 'rate', principal, `tool:${tool}`, windowSeconds, window.index),
      limit,
      charge: 1,
      windowSeconds,
      mode: 'fixed',
      endMs: window.endMs,
    });
  }
  return meters;
}

/**
 * What to do after adding a call's charge to a counter: `admit` when the new
 * total stays within the limit; otherwise the charge is taken back and the
 * call refused.
 */
export function admits(total: number, limit: number): boolean {
  return total <= limit;
}

/**
 * After taking a refused charge back: whether the counter now has room for
 * it (others' charges were taken back meanwhile), so one more try is fair.
 */
export function roomAfterUndo(totalAfterUndo: number, charge: number, limit: number): boolean {
  return totalAfterUndo + charge <= limit;
}

/** How long a counter must live: to the end of its window, plus a margin for clocks that disagree. */
export function counterTtlMs(meter: Pick<Meter, 'endMs'>, nowMs: number): number {
  return Math.max(1, meter.endMs - nowMs) + 60_000;
}

// Every call in a window reports the same reset time: format it once per window.
let lastReset: { readonly endMs: number; readonly iso: string } | undefined;

function resetTime(endMs: number): string {
  if (lastReset?.endMs !== endMs) lastReset = { endMs, iso: new Date(endMs).toISOString() };
  return lastReset.iso;
}

/** The standing against a quota; `resetsAtMs` defaults to the end of a fixed window. */
export function quotaState(meter: Meter, used: number, resetsAtMs: number = meter.endMs): QuotaState {
  const state: QuotaState = {
    limit: meter.limit,
    used: Math.max(0, used),
    remaining: Math.max(0, meter.limit - used),
    resets_at: resetTime(resetsAtMs),
    window_seconds: meter.windowSeconds,
  };
  if (meter.pool !== undefined) state.pool = meter.pool;
  return state;
}

export function rateState(meter: Meter, used: number): RateLimitState {
  return { limit: meter.limit, remaining: Math.max(0, meter.limit - used), resets_at: resetTime(meter.endMs) };
}

/**
 * Units to charge once the handler ran: what it reported, else the estimate
 * for a success and nothing for a failure (a failed call is charged only
 * what its handler says it used).
 */
export function settledUnits(estimated: number, reported: number | undefined, failed: boolean): number {
  if (reported !== undefined) return reported;
  return failed ? 0 : estimated;
}

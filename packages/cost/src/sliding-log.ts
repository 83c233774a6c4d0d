/**
 * The sliding quota window (COST-20) as arithmetic: the charges a counter
 * admitted, each with when it was made, so a span of `window` milliseconds
 * ending at any instant counts exactly the charges made in it. No I/O; the
 * store side is in `sliding-counter.ts`.
 */
import { isRecord, type JsonValue } from '@ext/core/kit';

/**
 * Most charges one log keeps apart. Past it the two closest in time merge
 * into one at the later time: that charge then counts a little longer than
 * it should, never shorter, so the limit still holds and the log stays small
 * whatever the limit.
 */
export const MAX_LOG_ENTRIES = 64;

/** A charge: when it was made (ms) and how many units it holds. */
export type LogEntry = readonly [atMs: number, units: number];

/** A counter's charges, oldest first. */
export type SlidingLog = readonly LogEntry[];

/** A counter's standing at an instant: the units counted, and when the oldest of them stops counting. */
export interface Standing {
  readonly used: number;
  /** When `used` next goes down (the oldest charge leaves the window); the instant itself when nothing is counted. */
  readonly resetsAtMs: number;
}

function isEntry(value: unknown): value is LogEntry {
  return (
    Array.isArray(value) &&
    value.length === 2 &&
    Number.isSafeInteger(value[0]) &&
    typeof value[1] === 'number' &&
    Number.isSafeInteger(value[1]) &&
    value[1] > 0
  );
}

/** The log as stored (`{ "v": 1, "charges": [[at, units], ...] }`); absent is empty. Throws on a value this version cannot read. */
export function readLog(stored: JsonValue | undefined): SlidingLog {
  if (stored === undefined) return [];
  const charges: unknown = isRecord(stored) && stored.v === 1 ? stored.charges : undefined;
  if (Array.isArray(charges) && charges.every(isEntry)) return [...charges].sort((a, b) => a[0] - b[0]);
  // A value another version wrote: refusing is safer than counting it as empty and admitting past the limit.
  throw new Error('cost: a sliding quota counter holds a value this version cannot read');
}

/** The log as the store keeps it. */
export function logJson(log: SlidingLog): JsonValue {
  return { v: 1, charges: log.map(([at, units]) => [at, units]) };
}

/** The charges still counted at `nowMs`: made less than `windowMs` before it (or after it, on a clock ahead of ours). */
export function liveEntries(log: SlidingLog, nowMs: number, windowMs: number): SlidingLog {
  return log.filter(([at]) => at + windowMs > nowMs);
}

function sum(log: SlidingLog): number {
  return log.reduce((total, [, units]) => total + units, 0);
}

/** The standing at `nowMs`. */
export function standingAt(log: SlidingLog, nowMs: number, windowMs: number): Standing {
  const live = liveEntries(log, nowMs, windowMs);
  const oldest = live[0];
  return { used: sum(live), resetsAtMs: oldest === undefined ? nowMs : oldest[0] + windowMs };
}

/**
 * When a charge of `charge` fits under `limit` again: as soon as enough of
 * the oldest charges left the window. A charge larger than the limit never
 * fits; it is then told the instant the window is empty.
 */
export function roomAtMs(live: SlidingLog, charge: number, limit: number, nowMs: number, windowMs: number): number {
  let used = sum(live);
  if (used + charge <= limit) return nowMs;
  for (const [at, units] of live) {
    used -= units;
    if (used + charge <= limit) return at + windowMs;
  }
  const newest = live[live.length - 1];
  return newest === undefined ? nowMs + windowMs : newest[0] + windowMs;
}

/** Merges the two entries closest in time, at the later time, until at most {@link MAX_LOG_ENTRIES} are left. */
function capped(log: LogEntry[]): LogEntry[] {
  while (log.length > MAX_LOG_ENTRIES) {
    let closest = 0;
    for (let index = 1; index < log.length - 1; index++) {
      const gap = (log[index + 1] as LogEntry)[0] - (log[index] as LogEntry)[0];
      if (gap < (log[closest + 1] as LogEntry)[0] - (log[closest] as LogEntry)[0]) closest = index;
    }
    const [, earlier] = log[closest] as LogEntry;
    const [at, later] = log[closest + 1] as LogEntry;
    log.splice(closest, 2, [at, earlier + later]);
  }
  return log;
}

/** `log` with `units` added at `atMs`, in time order. */
function withCharge(log: SlidingLog, atMs: number, units: number): LogEntry[] {
  const next = [...log];
  const index = next.findIndex(([at]) => at > atMs);
  next.splice(index === -1 ? next.length : index, 0, [atMs, units]);
  return capped(next);
}

export type Admission =
  | { readonly admitted: true; readonly log: SlidingLog; readonly standing: Standing }
  | { readonly admitted: false; readonly used: number; readonly roomAtMs: number };

/**
 * Admits a charge made at `nowMs` when the charges of the window ending
 * then, plus it, stay within `limit`; the log it leaves drops the charges
 * that left the window. A refusal says when the charge would fit.
 */
export function admit(log: SlidingLog, nowMs: number, windowMs: number, limit: number, charge: number): Admission {
  const live = liveEntries(log, nowMs, windowMs);
  const used = sum(live);
  if (used + charge > limit) return { admitted: false, used, roomAtMs: roomAtMs(live, charge, limit, nowMs, windowMs) };
  const next = charge === 0 ? live : withCharge(live, nowMs, charge);
  return { admitted: true, log: next, standing: standingAt(next, nowMs, windowMs) };
}

/**
 * Changes the charge a call made at `atMs` by `by` units: more when it used
 * more than it reserved (COST-11), fewer when it gives units back. Units
 * given back come off the first charges made at or after `atMs` (where a
 * merge may have moved the call's own), which never counts less than was
 * admitted; a charge already out of the window has nothing to give back,
 * nor does a later call's charge made once the call's own had left it.
 */
export function adjust(log: SlidingLog, atMs: number, by: number, nowMs: number, windowMs: number): SlidingLog {
  const live = liveEntries(log, nowMs, windowMs);
  if (by > 0) return withCharge(live, atMs, by);
  let owed = -by;
  const next: LogEntry[] = [];
  for (const [at, units] of live) {
    // A charge made a whole window or more after the call was admitted when the call's own had left: never its units.
    const taken = at >= atMs && at < atMs + windowMs ? Math.min(units, owed) : 0;
    owed -= taken;
    if (units > taken) next.push([at, units - taken]);
  }
  return next;
}

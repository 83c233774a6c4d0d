import type { ToolResult } from '@ext/core';
import { Compile } from 'typebox/compile';
import {
  COST_CATEGORIES,
  CostResultMetaSchema,
  CostToolMetaSchema,
  LATENCY_CLASSES,
  MAX_WINDOW_SECONDS,
  POOL_PATTERN_SOURCE,
  RATE_LIMIT_WINDOWS,
  type CostCategory,
  type CostInfo,
  type CostResultMeta,
  type CostToolMeta,
  type LatencyClass,
  type QuotaDeclaration,
  type QuotaState,
  type RateLimitState,
  type RateLimitWindow,
  type RateLimitsDeclaration,
} from './schema.js';

/** Quota window when the author names none: one day. */
export const DEFAULT_QUOTA_WINDOW_SECONDS = 86_400;

/** Units a call is expected to use when the author names none: one. */
export const DEFAULT_ESTIMATED_UNITS = 1;

const POOL_PATTERN = new RegExp(POOL_PATTERN_SOURCE);
const TOP_LEVEL_FIELDS = ['cost', 'latency', 'quota', 'rate_limits'] as const;
const COST_FIELDS = ['category', 'estimated_units', 'unit_label'] as const;
const QUOTA_FIELDS = ['limit', 'window_seconds', 'pool'] as const;
const RATE_FIELDS = Object.keys(RATE_LIMIT_WINDOWS) as RateLimitWindow[];

export type ParseResult<T> =
  { readonly ok: true; readonly value: T } | { readonly ok: false; readonly field: string; readonly message: string };

function fail(field: string, message: string): { ok: false; field: string; message: string } {
  return { ok: false, field, message };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  try {
    const shown = JSON.stringify(value) as string | undefined;
    return shown ?? typeof value;
  } catch {
    // A value JSON cannot show (a bigint, a cycle) is named by its type instead.
    return typeof value;
  }
}

function unknownField(record: Record<string, unknown>, allowed: readonly string[]): string | undefined {
  return Object.keys(record).find((key) => !allowed.includes(key));
}

function isPositiveInteger(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 1;
}

function parseCostInfo(raw: unknown): ParseResult<CostInfo> {
  if (raw === undefined) return { ok: true, value: { category: 'free', estimated_units: DEFAULT_ESTIMATED_UNITS } };
  if (!isRecord(raw)) return fail('cost', `cost must be an object, got ${describeValue(raw)}`);
  const extra = unknownField(raw, COST_FIELDS);
  if (extra !== undefined)
    return fail(`cost.${extra}`, `cost has an unknown field "${extra}" (expected ${COST_FIELDS.join(', ')})`);
  const category = raw.category;
  if (typeof category !== 'string' || !(COST_CATEGORIES as readonly string[]).includes(category)) {
    return fail(
      'cost.category',
      `cost.category must be one of ${COST_CATEGORIES.join(', ')}, got ${describeValue(category)}`,
    );
  }
  const units = raw.estimated_units ?? DEFAULT_ESTIMATED_UNITS;
  if (typeof units !== 'number' || !Number.isFinite(units) || units < 0 || units > Number.MAX_SAFE_INTEGER) {
    return fail(
      'cost.estimated_units',
      `cost.estimated_units must be a finite number >= 0, got ${describeValue(raw.estimated_units)}`,
    );
  }
  const info: CostInfo = { category: category as CostCategory, estimated_units: units };
  const label = raw.unit_label;
  if (label !== undefined) {
    if (typeof label !== 'string' || label.trim().length === 0 || label.length > 64) {
      return fail(
        'cost.unit_label',
        `cost.unit_label must be a non-empty string of at most 64 characters, got ${describeValue(label)}`,
      );
    }
    info.unit_label = label;
  }
  return { ok: true, value: info };
}

function parseQuota(raw: unknown): ParseResult<QuotaDeclaration> {
  if (!isRecord(raw)) return fail('quota', `quota must be an object, got ${describeValue(raw)}`);
  const extra = unknownField(raw, QUOTA_FIELDS);
  if (extra !== undefined)
    return fail(`quota.${extra}`, `quota has an unknown field "${extra}" (expected ${QUOTA_FIELDS.join(', ')})`);
  if (!isPositiveInteger(raw.limit))
    return fail('quota.limit', `quota.limit must be a positive integer, got ${describeValue(raw.limit)}`);
  const window = raw.window_seconds ?? DEFAULT_QUOTA_WINDOW_SECONDS;
  if (!isPositiveInteger(window) || window > MAX_WINDOW_SECONDS) {
    return fail(
      'quota.window_seconds',
      `quota.window_seconds must be an integer from 1 to ${MAX_WINDOW_SECONDS}, got ${describeValue(raw.window_seconds)}`,
    );
  }
  const quota: QuotaDeclaration = { limit: raw.limit, window_seconds: window };
  if (raw.pool !== undefined) {
    if (typeof raw.pool !== 'string' || !POOL_PATTERN.test(raw.pool)) {
      return fail(
        'quota.pool',
        `quota.pool must be 1 to 64 characters from [A-Za-z0-9_.-], got ${describeValue(raw.pool)}`,
      );
    }
    quota.pool = raw.pool;
  }
  return { ok: true, value: quota };
}

function parseRateLimits(raw: unknown): ParseResult<RateLimitsDeclaration> {
  if (!isRecord(raw)) return fail('rate_limits', `rate_limits must be an object, got ${describeValue(raw)}`);
  const extra = unknownField(raw, RATE_FIELDS);
  if (extra !== undefined)
    return fail(
      `rate_limits.${extra}`,
      `rate_limits has an unknown field "${extra}" (expected ${RATE_FIELDS.join(', ')})`,
    );
  const limits: RateLimitsDeclaration = {};
  for (const window of RATE_FIELDS) {
    const value = raw[window];
    if (value === undefined) continue;
    if (!isPositiveInteger(value))
      return fail(
        `rate_limits.${window}`,
        `rate_limits.${window} must be a positive integer, got ${describeValue(value)}`,
      );
    limits[window] = value;
  }
  return { ok: true, value: limits };
}

/**
 * Reads what a tool's author wrote in `Tool._meta[COST_ID]` and returns the
 * normalized metadata the server advertises (defaults filled in). Strict,
 * unlike a wire reader: an unknown field is a typo worth failing on.
 */
export function parseToolCost(raw: unknown): ParseResult<CostToolMeta> {
  if (!isRecord(raw)) return fail('', `the entry must be an object, got ${describeValue(raw)}`);
  const extra = unknownField(raw, TOP_LEVEL_FIELDS);
  if (extra !== undefined) return fail(extra, `unknown field "${extra}" (expected ${TOP_LEVEL_FIELDS.join(', ')})`);
  const cost = parseCostInfo(raw.cost);
  if (!cost.ok) return cost;
  const meta: CostToolMeta = { cost: cost.value };
  if (raw.latency !== undefined) {
    if (typeof raw.latency !== 'string' || !(LATENCY_CLASSES as readonly string[]).includes(raw.latency)) {
      return fail('latency', `latency must be one of ${LATENCY_CLASSES.join(', ')}, got ${describeValue(raw.latency)}`);
    }
    meta.latency = raw.latency as LatencyClass;
  }
  if (raw.quota !== undefined) {
    const quota = parseQuota(raw.quota);
    if (!quota.ok) return quota;
    if (chargeOf(cost.value.estimated_units) > quota.value.limit) {
      return fail(
        'cost.estimated_units',
        `cost.estimated_units (${cost.value.estimated_units}) exceeds quota.limit (${quota.value.limit}), so no call could ever run`,
      );
    }
    meta.quota = quota.value;
  }
  if (raw.rate_limits !== undefined) {
    const limits = parseRateLimits(raw.rate_limits);
    if (!limits.ok) return limits;
    if (Object.keys(limits.value).length > 0) meta.rate_limits = limits.value;
  }
  return { ok: true, value: meta };
}

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

/**
 * The counters a call of `tool` is checked against, in the order they are
 * reserved: the quota first, then rate limits from the longest window to the
 * shortest, so a refusal names the limit that is furthest from resetting.
 */
/** The rate windows, longest first: the order meters are reserved in. */
const RATE_WINDOWS_LONGEST_FIRST = (Object.entries(RATE_LIMIT_WINDOWS) as [RateLimitWindow, number][]).sort(
  (a, b) => b[1] - a[1],
);

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
    const window = fixedWindow(nowMs, windowSeconds);
    const scope = pool === undefined ? `tool:${tool}` : `pool:${pool}`;
    meters.push({
      kind: 'quota',
      name: 'quota',
      key: counterKey(prefix, 'quota', principal, scope, windowSeconds, window.index),
      limit,
      charge: chargeOf(meta.cost.estimated_units),
      windowSeconds,
      endMs: window.endMs,
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

export function quotaState(meter: Meter, used: number): QuotaState {
  const state: QuotaState = {
    limit: meter.limit,
    used: Math.max(0, used),
    remaining: Math.max(0, meter.limit - used),
    resets_at: resetTime(meter.endMs),
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

/** A copy of `result` with `entry` under `_meta[id]`. */
export function withResultMeta(result: ToolResult, id: string, entry: CostResultMeta): ToolResult {
  return { ...result, _meta: { ...(result._meta ?? {}), [id]: entry } };
}

// Compiled on first use, so importing the package does no work.
let toolMetaValidator: ReturnType<typeof Compile<typeof CostToolMetaSchema>> | undefined;
let resultMetaValidator: ReturnType<typeof Compile<typeof CostResultMetaSchema>> | undefined;

/** A tool's cost metadata as a client reads it off `Tool._meta[id]`; `undefined` when absent or malformed. Unknown fields are ignored. */
export function readToolCost(toolMeta: unknown, id: string): CostToolMeta | undefined {
  if (!isRecord(toolMeta)) return undefined;
  const entry = toolMeta[id];
  toolMetaValidator ??= Compile(CostToolMetaSchema);
  return toolMetaValidator.Check(entry) ? entry : undefined;
}

/** The cost entry of a tool result; `undefined` when absent or malformed. */
export function readResultCost(result: unknown, id: string): CostResultMeta | undefined {
  if (!isRecord(result) || !isRecord(result._meta)) return undefined;
  const entry = result._meta[id];
  resultMetaValidator ??= Compile(CostResultMetaSchema);
  return resultMetaValidator.Check(entry) ? entry : undefined;
}

function shownNumber(units: number): string {
  return Number.isInteger(units) ? String(units) : String(Number(units.toFixed(3)));
}

function formatUnits(units: number, label: string | undefined): string {
  return `${shownNumber(units)} ${label ?? (units === 1 ? 'unit' : 'units')}`;
}

const LATENCY_PHRASES: Record<LatencyClass, string> = {
  instant: 'is instant',
  seconds: 'takes seconds',
  minutes: 'takes minutes',
};

export interface CostDescriptionInput {
  /** How the sentence names the call, e.g. `this export` or `"export_analytics"`. */
  readonly subject: string;
  readonly meta: CostToolMeta;
  /** The caller's standing against the tool's quota, when known. */
  readonly quota?: QuotaState | undefined;
  /** What is left of the host's budget in the tool's unit, when it sets one. */
  readonly budgetRemaining?: number | undefined;
}

/**
 * One sentence a person can read before a call, e.g. `This export takes
 * minutes and uses 5 of your 12 remaining API calls (the quota resets at
 * 2026-03-16T00:00:00.000Z).` Estimates are presented as estimates.
 */
export function describeCost(input: CostDescriptionInput): string {
  const { meta, quota } = input;
  const { category, estimated_units: units, unit_label: label } = meta.cost;
  const parts: string[] = [];
  if (meta.latency !== undefined) parts.push(LATENCY_PHRASES[meta.latency]);
  if (category === 'free' && quota === undefined) {
    parts.push('is free');
  } else if (quota !== undefined) {
    parts.push(`uses ${shownNumber(units)} of your ${quota.remaining} remaining ${label ?? 'units'}`);
  } else {
    parts.push(`uses about ${formatUnits(units, label)}`);
  }
  let sentence = `${capitalize(input.subject)} ${joinClauses(parts)}`;
  if (category === 'requires_approval') sentence += ', and needs your approval first';
  if (quota !== undefined) sentence += ` (the quota resets at ${quota.resets_at})`;
  sentence += '.';
  if (input.budgetRemaining !== undefined && category !== 'free' && units > input.budgetRemaining) {
    sentence += ` That is more than the ${formatUnits(input.budgetRemaining, label)} left in your budget.`;
  }
  return sentence;
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function joinClauses(parts: readonly string[]): string {
  if (parts.length <= 1) return parts.join('');
  return `${parts.slice(0, -1).join(', ')} and ${parts[parts.length - 1] ?? ''}`;
}

/**
 * Reading what a tool's author declared in `Tool._meta[COST_ID]`: strict,
 * with defaults filled in, and a message naming the field at fault.
 */
import { isRecord } from '@ext/core/kit';
import { chargeOf } from './meters.js';
import {
  COST_CATEGORIES,
  LATENCY_CLASSES,
  MAX_WINDOW_SECONDS,
  POOL_PATTERN_SOURCE,
  QUOTA_WINDOW_MODES,
  RATE_LIMIT_WINDOWS,
  type CostCategory,
  type CostInfo,
  type CostToolMeta,
  type LatencyClass,
  type QuotaDeclaration,
  type QuotaWindowMode,
  type RateLimitWindow,
  type RateLimitsDeclaration,
} from './schema.js';

/** Quota window when the author names none: one day. */
export const DEFAULT_QUOTA_WINDOW_SECONDS = 86_400;

/** How a quota's window runs when the author names none: it slides (COST-20). */
export const DEFAULT_QUOTA_WINDOW: QuotaWindowMode = 'sliding';

/** Units a call is expected to use when the author names none: one. */
export const DEFAULT_ESTIMATED_UNITS = 1;

const POOL_PATTERN = new RegExp(POOL_PATTERN_SOURCE);
const TOP_LEVEL_FIELDS = ['cost', 'latency', 'quota', 'rate_limits'] as const;
const COST_FIELDS = ['category', 'estimated_units', 'unit_label'] as const;
const QUOTA_FIELDS = ['limit', 'window_seconds', 'window', 'pool'] as const;
const RATE_FIELDS = Object.keys(RATE_LIMIT_WINDOWS) as RateLimitWindow[];

export type ParseResult<T> =
  { readonly ok: true; readonly value: T } | { readonly ok: false; readonly field: string; readonly message: string };

function fail(field: string, message: string): { ok: false; field: string; message: string } {
  return { ok: false, field, message };
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
  const mode = raw.window ?? DEFAULT_QUOTA_WINDOW;
  if (typeof mode !== 'string' || !(QUOTA_WINDOW_MODES as readonly string[]).includes(mode)) {
    return fail(
      'quota.window',
      `quota.window must be one of ${QUOTA_WINDOW_MODES.join(', ')}, got ${describeValue(raw.window)}`,
    );
  }
  const quota: QuotaDeclaration = { limit: raw.limit, window_seconds: window, window: mode as QuotaWindowMode };
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

/**
 * The pure logic of idempotent tool calls: key and `_meta` validation,
 * fingerprints, store keys, the per-principal record budget, which tools
 * take part, and results. No I/O here; the server half only translates.
 * The record state machine is in `records.ts`.
 */
import { canonicalHash, isRecord, lazyValidator, metaFault, type Parsed } from '@ext/core/kit';
import { ConfigurationError, type ToolInfo, type ToolResult } from '@ext/core';
import {
  IDEMPOTENCY_KEY_PATTERN_SOURCE,
  IdempotencyRequestMetaSchema,
  IdempotencyResultMetaSchema,
  type IdempotencyResultMeta,
} from './schema.js';

/** The key pattern as a RegExp (no `g`/`y` flag, so `test` keeps no state). */
const IDEMPOTENCY_KEY_PATTERN = new RegExp(IDEMPOTENCY_KEY_PATTERN_SOURCE);

/** Whether `input` is a well-formed idempotency key. Never throws. */
export function isValidIdempotencyKey(input: unknown): input is string {
  return typeof input === 'string' && input.length <= 128 && IDEMPOTENCY_KEY_PATTERN.test(input);
}

export interface TtlLimits {
  /** Applied when the client sends no TTL. */
  readonly defaultTtlSeconds: number;
  /** Larger requested TTLs are lowered to this. */
  readonly maxTtlSeconds: number;
}

/** A validated `params._meta[id]`. */
export interface IdempotencyRequest {
  readonly key: string;
  /** The TTL in effect: the client's, or the default, capped by the server maximum. */
  readonly ttlSeconds: number;
}

/**
 * A validated entry, or where it is wrong: `field` is `idempotency_key`,
 * `idempotency_ttl_seconds`, or the identifier for the whole entry, and
 * `message` a sentence naming the field and what it must be.
 */
export type MetaParseResult = Parsed<IdempotencyRequest>;

const requestValidator = lazyValidator(IdempotencyRequestMetaSchema);
const resultMetaValidator = lazyValidator(IdempotencyResultMetaSchema);

/**
 * Validates `params._meta[id]` as it arrived from the peer. Never throws,
 * whatever `raw` is; a failure names the JSON Pointer of the first
 * offending field, relative to the request `params`.
 */
export function parseIdempotencyMeta(raw: unknown, id: string, limits: TtlLimits): MetaParseResult {
  const validator = requestValidator();
  if (!validator.Check(raw)) {
    const entry = `params._meta["${id}"]`;
    if (!isRecord(raw)) {
      return metaFault(id, '', `${entry} must be an object with an "idempotency_key"`);
    }
    const first = validator.Errors(raw)[0];
    if (first === undefined || first.keyword === 'required' || first.instancePath === '/idempotency_key') {
      return metaFault(
        id,
        '/idempotency_key',
        `idempotency_key in ${entry} must be a string of 1 to 128 characters from [a-zA-Z0-9_-:.]`,
      );
    }
    return metaFault(id, '/idempotency_ttl_seconds', `idempotency_ttl_seconds in ${entry} must be a positive integer`);
  }
  const requested = raw.idempotency_ttl_seconds ?? limits.defaultTtlSeconds;
  return { ok: true, value: { key: raw.idempotency_key, ttlSeconds: Math.min(requested, limits.maxTtlSeconds) } };
}

/** What a key is bound to: the tool name and its canonical arguments (RFC 8785), hashed. */
export function callFingerprint(name: string, args: Readonly<Record<string, unknown>>): string {
  return canonicalHash({ name, arguments: args });
}

// Each component is URI-encoded so no principal or tool name can contain the separator.
function part(value: string): string {
  return encodeURIComponent(value);
}

/** Store key of one idempotency record: scoped by principal and tool name. */
export function recordKey(prefix: string, principal: string, tool: string, key: string): string {
  return `${prefix}:rec:${part(principal)}:${part(tool)}:${key}`;
}

/** Pub/sub channel announcing that a record left the in-flight state. */
export function settledChannel(storeKey: string): string {
  return `${storeKey}:settled`;
}

/** Store key of a principal's record counter for one time bucket. */
export function budgetKey(prefix: string, principal: string, bucket: number): string {
  return `${prefix}:budget:${part(principal)}:${bucket}`;
}

// ---------------------------------------------------------------------------
// Per-principal budget of live records
// ---------------------------------------------------------------------------

export interface BudgetWindow {
  /** Bucket the new record is counted in. */
  readonly current: number;
  /** The bucket before it; records from it may still be alive. */
  readonly previous: number;
  /** Seconds until `current` ends, when the oldest counted bucket stops counting. */
  readonly secondsToNextBucket: number;
}

/**
 * Records live at most `windowMs` (the maximum TTL), so every live record
 * was created in the current or the previous bucket of that length; the sum
 * of those two counters bounds the live records from above.
 */
export function budgetWindow(nowMs: number, windowMs: number): BudgetWindow {
  const current = Math.floor(nowMs / windowMs);
  const end = (current + 1) * windowMs;
  return { current, previous: current - 1, secondsToNextBucket: Math.max(1, Math.ceil((end - nowMs) / 1000)) };
}

// ---------------------------------------------------------------------------
// Participation: which tools honour keys
// ---------------------------------------------------------------------------

/**
 * Which tools take part.
 * - `'mutating'` (default): a tool whose `Tool._meta[id].idempotent_capable`
 *   is a boolean follows it; any other tool takes part unless its
 *   annotations say `readOnlyHint: true`, or say `destructiveHint: true`
 *   without `idempotentHint: true` (IDEM-14a).
 * - `'all'`: every tool.
 * - a list of tool names: exactly those.
 * - a function: its answer.
 */
export type ParticipationRule = 'mutating' | 'all' | readonly string[] | ((tool: ToolInfo) => boolean);

/** Reads and checks what the author wrote in `Tool._meta[id]`; throws `ConfigurationError` on a bad shape. */
export function readAuthorToolMeta(tool: ToolInfo, id: string): { idempotent_capable?: boolean } {
  const raw = tool._meta?.[id];
  if (raw === undefined) return {};
  if (!isRecord(raw)) {
    throw new ConfigurationError('INVALID_TOOL_META', `tool "${tool.name}": _meta["${id}"] must be an object`);
  }
  const capable = raw.idempotent_capable;
  if (capable !== undefined && typeof capable !== 'boolean') {
    throw new ConfigurationError(
      'INVALID_TOOL_META',
      `tool "${tool.name}": _meta["${id}"].idempotent_capable must be a boolean`,
    );
  }
  return capable === undefined ? {} : { idempotent_capable: capable };
}

/** Whether keys are honoured for `tool` under `rule`. */
export function participates(tool: ToolInfo, rule: ParticipationRule, id: string): boolean {
  if (rule === 'all') return true;
  if (typeof rule === 'function') return rule(tool);
  if (rule === 'mutating') {
    const declared = readAuthorToolMeta(tool, id).idempotent_capable;
    if (declared !== undefined) return declared;
    const annotations = tool.annotations;
    if (annotations?.readOnlyHint === true) return false;
    // A destructive tool is retry-safe only if a repeat does nothing new, which only its author can say (IDEM-14a).
    return annotations?.destructiveHint !== true || annotations.idempotentHint === true;
  }
  return rule.includes(tool.name);
}

// ---------------------------------------------------------------------------
// Results
// ---------------------------------------------------------------------------

/** `result` without this extension's `_meta[id]` entry, as plain JSON; `undefined` when it is not JSON. */
export function storableResult(result: ToolResult, id: string): ToolResult | undefined {
  let json: unknown;
  try {
    json = JSON.parse(JSON.stringify(result)) as unknown;
  } catch {
    // bigint or a cycle: the result cannot be stored, and the caller releases the key instead.
    return undefined;
  }
  if (!isRecord(json) || !Array.isArray(json.content)) return undefined;
  const copy = json as ToolResult;
  if (isRecord(copy._meta) && id in copy._meta) {
    const { [id]: _dropped, ...rest } = copy._meta;
    if (Object.keys(rest).length === 0) delete copy._meta;
    else copy._meta = rest;
  }
  return copy;
}

/** Reads `result._meta[id]`; `undefined` when absent or malformed. Never throws. */
export function readResultMeta(result: unknown, id: string): IdempotencyResultMeta | undefined {
  if (!isRecord(result) || !isRecord(result._meta)) return undefined;
  const raw = result._meta[id];
  if (!resultMetaValidator().Check(raw)) return undefined;
  return {
    idempotency_key: raw.idempotency_key,
    was_replay: raw.was_replay,
    original_timestamp: raw.original_timestamp,
  };
}

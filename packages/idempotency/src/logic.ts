/**
 * The pure logic of idempotent tool calls: key and `_meta` validation,
 * fingerprints, store keys, the record state machine and the per-principal
 * record budget. No I/O here; the server half only translates.
 */
import { canonicalHash, ConfigurationError, type JsonValue, type ToolInfo, type ToolResult } from '@ext/core';
import { Compile } from 'typebox/compile';
import {
  IDEMPOTENCY_KEY_PATTERN_SOURCE,
  IdempotencyRequestMetaSchema,
  IdempotencyResultMetaSchema,
  type IdempotencyResultMeta,
} from './schema.js';

/** The key pattern as a RegExp (no `g`/`y` flag, so `test` keeps no state). */
export const IDEMPOTENCY_KEY_PATTERN = new RegExp(IDEMPOTENCY_KEY_PATTERN_SOURCE);

/** Whether `input` is a well-formed idempotency key. Never throws. */
export function isValidIdempotencyKey(input: unknown): input is string {
  return typeof input === 'string' && input.length <= 128 && IDEMPOTENCY_KEY_PATTERN.test(input);
}

/** Escapes one JSON Pointer segment (RFC 6901). */
export function escapePointerSegment(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** JSON Pointer of this extension's entry in `params._meta`, or of a field inside it. */
export function metaPointer(id: string, field?: string): string {
  const base = `/_meta/${escapePointerSegment(id)}`;
  return field === undefined ? base : `${base}/${escapePointerSegment(field)}`;
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

export type MetaParseResult =
  | { readonly ok: true; readonly value: IdempotencyRequest }
  | {
      readonly ok: false;
      /** JSON Pointer of the offending value, relative to the request `params`. */
      readonly pointer: string;
      /** The offending field's name: `idempotency_key`, `idempotency_ttl_seconds`, or the identifier for the whole entry. */
      readonly field: string;
      /** A sentence naming the field and what it must be. */
      readonly message: string;
    };

// Compiled on first use: keeps import free of work.
let requestValidator: ReturnType<typeof Compile<typeof IdempotencyRequestMetaSchema>> | undefined;
let resultMetaValidator: ReturnType<typeof Compile<typeof IdempotencyResultMetaSchema>> | undefined;

/**
 * Validates `params._meta[id]` as it arrived from the peer. Never throws,
 * whatever `raw` is; a failure names the JSON Pointer of the first
 * offending field, relative to the request `params`.
 */
export function parseIdempotencyMeta(raw: unknown, id: string, limits: TtlLimits): MetaParseResult {
  requestValidator ??= Compile(IdempotencyRequestMetaSchema);
  if (!requestValidator.Check(raw)) {
    const entry = `params._meta["${id}"]`;
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
      return {
        ok: false,
        pointer: metaPointer(id),
        field: id,
        message: `${entry} must be an object with an "idempotency_key"`,
      };
    }
    const first = requestValidator.Errors(raw)[0];
    if (first === undefined || first.keyword === 'required' || first.instancePath === '/idempotency_key') {
      return {
        ok: false,
        pointer: metaPointer(id, 'idempotency_key'),
        field: 'idempotency_key',
        message: `idempotency_key in ${entry} must be a string of 1 to 128 characters from [a-zA-Z0-9_-:.]`,
      };
    }
    return {
      ok: false,
      pointer: metaPointer(id, 'idempotency_ttl_seconds'),
      field: 'idempotency_ttl_seconds',
      message: `idempotency_ttl_seconds in ${entry} must be a positive integer`,
    };
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
// Record state machine
//
//   (absent) --claim--> in_flight --complete--> completed --(TTL)--> (absent)
//                          |  ^
//                  release |  | claim (a retry may execute)
//                          v  |
//                        released --(TTL)--> (absent)
//
// `in_flight` lives for one lease and is renewed while the handler runs, so
// a crashed server frees the key; `completed` lives for the key's TTL.
// Every transition is applied with an atomic store operation whose expected
// value is the record the decision was made on.
// ---------------------------------------------------------------------------

export const RECORD_VERSION = 1;

export interface InFlightRecord {
  readonly v: typeof RECORD_VERSION;
  readonly state: 'in_flight';
  readonly fingerprint: string;
  /** Unique per execution attempt, so only the claimant can complete or release. */
  readonly claim_id: string;
  /** ISO 8601 time the execution started; reported as `original_timestamp`. */
  readonly started_at: string;
}

export interface CompletedRecord {
  readonly v: typeof RECORD_VERSION;
  readonly state: 'completed';
  readonly fingerprint: string;
  readonly claim_id: string;
  readonly started_at: string;
  /** The tool result as first returned, without this extension's own `_meta` entry. */
  readonly result: ToolResult;
}

export interface ReleasedRecord {
  readonly v: typeof RECORD_VERSION;
  readonly state: 'released';
  readonly claim_id: string;
}

export type IdempotencyRecord = InFlightRecord | CompletedRecord | ReleasedRecord;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Reads a record from the store's JSON; `undefined` for anything not written by this version. Never throws. */
export function parseRecord(raw: unknown): IdempotencyRecord | undefined {
  if (!isObject(raw) || raw.v !== RECORD_VERSION || typeof raw.claim_id !== 'string') return undefined;
  switch (raw.state) {
    case 'in_flight':
      return typeof raw.fingerprint === 'string' && typeof raw.started_at === 'string'
        ? (raw as unknown as InFlightRecord)
        : undefined;
    case 'completed':
      return typeof raw.fingerprint === 'string' &&
        typeof raw.started_at === 'string' &&
        isObject(raw.result) &&
        Array.isArray(raw.result.content)
        ? (raw as unknown as CompletedRecord)
        : undefined;
    case 'released':
      return raw as unknown as ReleasedRecord;
    default:
      return undefined;
  }
}

/** What to do with a call, given the record currently stored for its key. */
export type Decision =
  /** Nothing live holds the key: claim it, atomically replacing `expected` (absent or released). */
  | { readonly kind: 'claim'; readonly expected: ReleasedRecord | undefined }
  /** Same call already completed: return its stored result. */
  | { readonly kind: 'replay'; readonly record: CompletedRecord }
  /** Same call is executing elsewhere: wait for it to settle. */
  | { readonly kind: 'wait'; readonly record: InFlightRecord }
  /** The key is bound to a different call. */
  | { readonly kind: 'conflict'; readonly record: InFlightRecord | CompletedRecord }
  /** The stored value is not a record this version can read. */
  | { readonly kind: 'unreadable' };

/** The decision table. Never throws. */
export function decide(raw: unknown, fingerprint: string): Decision {
  if (raw === undefined) return { kind: 'claim', expected: undefined };
  const record = parseRecord(raw);
  if (record === undefined) return { kind: 'unreadable' };
  if (record.state === 'released') return { kind: 'claim', expected: record };
  if (record.fingerprint !== fingerprint) return { kind: 'conflict', record };
  return record.state === 'completed' ? { kind: 'replay', record } : { kind: 'wait', record };
}

/** The claim written when an execution starts. */
export function inFlightRecord(fingerprint: string, claimId: string, startedAt: string): InFlightRecord {
  return { v: RECORD_VERSION, state: 'in_flight', fingerprint, claim_id: claimId, started_at: startedAt };
}

/** The completed record, or `undefined` when `current` is not this claimant's in-flight record. */
export function completeRecord(current: unknown, claimId: string, result: ToolResult): CompletedRecord | undefined {
  const record = parseRecord(current);
  if (record?.state !== 'in_flight' || record.claim_id !== claimId) return undefined;
  return {
    v: RECORD_VERSION,
    state: 'completed',
    fingerprint: record.fingerprint,
    claim_id: claimId,
    started_at: record.started_at,
    result,
  };
}

/** The released record, or `undefined` when `current` is not this claimant's in-flight record. */
export function releaseRecord(current: unknown, claimId: string): ReleasedRecord | undefined {
  const record = parseRecord(current);
  if (record?.state !== 'in_flight' || record.claim_id !== claimId) return undefined;
  return { v: RECORD_VERSION, state: 'released', claim_id: claimId };
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
 *   annotations say `readOnlyHint: true`.
 * - `'all'`: every tool.
 * - a list of tool names: exactly those.
 * - a function: its answer.
 */
export type ParticipationRule = 'mutating' | 'all' | readonly string[] | ((tool: ToolInfo) => boolean);

/** Reads and checks what the author wrote in `Tool._meta[id]`; throws `ConfigurationError` on a bad shape. */
export function readAuthorToolMeta(tool: ToolInfo, id: string): { idempotent_capable?: boolean } {
  const raw = tool._meta?.[id];
  if (raw === undefined) return {};
  if (!isObject(raw)) {
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
    return tool.annotations?.readOnlyHint !== true;
  }
  return rule.includes(tool.name);
}

// ---------------------------------------------------------------------------
// Results
// ---------------------------------------------------------------------------

/** `result` with `_meta[id]` set to `meta` (other `_meta` entries kept). */
export function withResultMeta(result: ToolResult, id: string, meta: IdempotencyResultMeta): ToolResult {
  return { ...result, _meta: { ...(result._meta ?? {}), [id]: meta } };
}

/** `result` without this extension's `_meta[id]` entry, as plain JSON; `undefined` when it is not JSON. */
export function storableResult(result: ToolResult, id: string): ToolResult | undefined {
  let json: unknown;
  try {
    json = JSON.parse(JSON.stringify(result)) as unknown;
  } catch {
    // bigint or a cycle: the result cannot be stored, and the caller releases the key instead.
    return undefined;
  }
  if (!isObject(json) || !Array.isArray(json.content)) return undefined;
  const copy = json as ToolResult;
  if (isObject(copy._meta) && id in copy._meta) {
    const { [id]: _dropped, ...rest } = copy._meta;
    if (Object.keys(rest).length === 0) delete copy._meta;
    else copy._meta = rest;
  }
  return copy;
}

/** Reads `result._meta[id]`; `undefined` when absent or malformed. Never throws. */
export function readResultMeta(result: unknown, id: string): IdempotencyResultMeta | undefined {
  if (!isObject(result) || !isObject(result._meta)) return undefined;
  const raw = result._meta[id];
  resultMetaValidator ??= Compile(IdempotencyResultMetaSchema);
  if (!resultMetaValidator.Check(raw)) return undefined;
  return {
    idempotency_key: raw.idempotency_key,
    was_replay: raw.was_replay,
    original_timestamp: raw.original_timestamp,
  };
}

/** A record as JSON for the store (records are built from JSON and plain strings only). */
export function recordToJson(record: IdempotencyRecord): JsonValue {
  return record as unknown as JsonValue;
}

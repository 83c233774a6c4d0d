/**
 * The record kept per idempotency key, and its state machine:
 *
 *   (absent) --claim--> in_flight --complete--> completed --(TTL)--> (absent)
 *                          |  ^
 *                  release |  | claim (a retry may execute)
 *                          v  |
 *                        released --(TTL)--> (absent)
 *
 * `in_flight` lives for one lease and is renewed while the handler runs, so
 * a crashed server frees the key; `completed` lives for the key's TTL.
 * Every transition is applied with an atomic store operation whose expected
 * value is the record the decision was made on. Pure: no I/O here.
 */
import { isRecord, type JsonValue } from '@ext/core/kit';
import { type ToolResult } from '@ext/core';

/** The version of the records this code writes and reads. */
export const RECORD_VERSION = 1;

/** A key claimed by an execution that has not settled. */
export interface InFlightRecord {
  readonly v: typeof RECORD_VERSION;
  readonly state: 'in_flight';
  readonly fingerprint: string;
  /** Unique per execution attempt, so only the claimant can complete or release. */
  readonly claim_id: string;
  /** ISO 8601 time the execution started; reported as `original_timestamp`. */
  readonly started_at: string;
}

/** A key whose execution completed: the result to replay. */
export interface CompletedRecord {
  readonly v: typeof RECORD_VERSION;
  readonly state: 'completed';
  readonly fingerprint: string;
  readonly claim_id: string;
  readonly started_at: string;
  /** The tool result as first returned, without this extension's own `_meta` entry. */
  readonly result: ToolResult;
}

/** A key whose execution failed and let go, so a retry may execute. */
export interface ReleasedRecord {
  readonly v: typeof RECORD_VERSION;
  readonly state: 'released';
  readonly claim_id: string;
}

/** Any record this version reads. */
export type IdempotencyRecord = InFlightRecord | CompletedRecord | ReleasedRecord;

/** Reads a record from the store's JSON; `undefined` for anything not written by this version. Never throws. */
export function parseRecord(raw: unknown): IdempotencyRecord | undefined {
  if (!isRecord(raw) || raw.v !== RECORD_VERSION || typeof raw.claim_id !== 'string') return undefined;
  switch (raw.state) {
    case 'in_flight':
      return typeof raw.fingerprint === 'string' && typeof raw.started_at === 'string'
        ? (raw as unknown as InFlightRecord)
        : undefined;
    case 'completed':
      return typeof raw.fingerprint === 'string' &&
        typeof raw.started_at === 'string' &&
        isRecord(raw.result) &&
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

/** A record as JSON for the store (records are built from JSON and plain strings only). */
export function recordToJson(record: IdempotencyRecord): JsonValue {
  return record as unknown as JsonValue;
}

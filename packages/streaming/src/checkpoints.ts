/**
 * Checkpoints, pure: the bearer tokens, the store keys, the persisted record
 * and the decision on a resume request. No I/O here; `checkpoint-store.ts`
 * reads and writes them.
 */
import { createHash } from 'node:crypto';
import { canonicalHash, isRecord, type JsonValue } from '@ext/core/kit';

// ---------------------------------------------------------------------------
// Checkpoint tokens
//
// A token is `v1.<expires at, unix seconds>.<base64url random>`. The store
// keeps the checkpoint under the SHA-256 of the whole token, scoped by
// principal, so a token is a bearer secret that only finds its record for
// the caller it was minted for, and a token whose expiry was edited finds
// nothing. The visible expiry lets the server tell "expired" from
// "unknown" after the store dropped the record.
// ---------------------------------------------------------------------------

const TOKEN_PATTERN = /^v1\.(\d{1,12})\.([A-Za-z0-9_-]{22,86})$/;

/** Random bytes a token carries at least (128 bits). */
export const TOKEN_RANDOM_BYTES = 18;

/** Mints a token from fresh random bytes (at least 16) and its expiry. */
export function mintCheckpointToken(random: Uint8Array, expiresAtMs: number): string {
  if (random.length < 16 || random.length > 64)
    throw new RangeError('mintCheckpointToken: 16 to 64 random bytes are needed');
  const seconds = Math.ceil(expiresAtMs / 1000);
  return `v1.${seconds}.${Buffer.from(random).toString('base64url')}`;
}

/** The expiry a token claims, or `undefined` when it is not a token this version minted. Never throws. */
export function parseCheckpointToken(token: unknown): { readonly expiresAtMs: number } | undefined {
  if (typeof token !== 'string') return undefined;
  const match = TOKEN_PATTERN.exec(token);
  if (match === null) return undefined;
  return { expiresAtMs: Number(match[1]) * 1000 };
}

/** What the store keys a checkpoint by: never the token itself. */
export function tokenDigest(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

// Each component is URI-encoded so no principal or operation id can contain the separator.
function part(value: string): string {
  return encodeURIComponent(value);
}

/** Store key of one checkpoint, scoped by principal. */
export function checkpointKey(prefix: string, principal: string, digest: string): string {
  return `${prefix}:ckpt:${part(principal)}:${digest}`;
}

/** Store key of an operation's execution counter (the fencing epoch), scoped by principal. */
export function operationKey(prefix: string, principal: string, operationId: string): string {
  return `${prefix}:op:${part(principal)}:${part(operationId)}`;
}

/** What a call's arguments bind a checkpoint to: the tool name and its canonical arguments (RFC 8785), hashed. */
export function argumentsDigest(tool: string, args: Readonly<Record<string, unknown>>): string {
  return canonicalHash({ tool, arguments: args });
}

// ---------------------------------------------------------------------------
// Checkpoint records and the resume decision
// ---------------------------------------------------------------------------

export const CHECKPOINT_RECORD_VERSION = 1;

/** A persisted checkpoint. */
export interface CheckpointRecord {
  readonly v: typeof CHECKPOINT_RECORD_VERSION;
  readonly operation_id: string;
  readonly tool: string;
  /** {@link argumentsDigest} of the call that took it. */
  readonly arguments: string;
  /** What the handler saved; handed back as `resumeState`. */
  readonly state: JsonValue;
  /** Sequence number of the first chunk after the checkpoint. */
  readonly next_sequence: number;
  /** Milliseconds since the epoch. */
  readonly created_at: number;
  readonly expires_at: number;
}

/** The record as the store holds it. */
export function checkpointToJson(record: CheckpointRecord): JsonValue {
  return { ...record };
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

/** A stored checkpoint, or `undefined` when the value is not one this version wrote. Never throws. */
export function parseCheckpointRecord(value: unknown): CheckpointRecord | undefined {
  if (!isRecord(value) || value.v !== CHECKPOINT_RECORD_VERSION) return undefined;
  const { operation_id, tool, arguments: args, next_sequence, created_at, expires_at } = value;
  if (typeof operation_id !== 'string' || typeof tool !== 'string' || typeof args !== 'string') return undefined;
  if (!isCount(next_sequence) || !isCount(created_at) || !isCount(expires_at) || !('state' in value)) return undefined;
  return {
    v: CHECKPOINT_RECORD_VERSION,
    operation_id,
    tool,
    arguments: args,
    state: value.state as JsonValue,
    next_sequence,
    created_at,
    expires_at,
  };
}

/** What a resume request asks for, with what the server knows of the call. */
export interface ResumeQuery {
  readonly token: string;
  readonly operationId: string;
  readonly tool: string;
  readonly argumentsDigest: string;
  readonly now: number;
}

export type ResumeDecision =
  | { readonly kind: 'resume'; readonly record: CheckpointRecord }
  | { readonly kind: 'not_found' }
  | { readonly kind: 'expired' }
  | { readonly kind: 'mismatch'; readonly field: 'operation_id' | 'tool' | 'arguments' }
  | { readonly kind: 'unreadable' };

/**
 * Decides a resume request from the token and what the store returned for
 * it (`stored` is `undefined` when nothing was there). Never throws.
 */
export function decideResume(query: ResumeQuery, stored: unknown): ResumeDecision {
  const parsed = parseCheckpointToken(query.token);
  if (parsed === undefined) return { kind: 'not_found' };
  if (parsed.expiresAtMs <= query.now) return { kind: 'expired' };
  if (stored === undefined) return { kind: 'not_found' };
  const record = parseCheckpointRecord(stored);
  if (record === undefined) return { kind: 'unreadable' };
  if (record.expires_at <= query.now) return { kind: 'expired' };
  if (record.tool !== query.tool) return { kind: 'mismatch', field: 'tool' };
  if (record.operation_id !== query.operationId) return { kind: 'mismatch', field: 'operation_id' };
  if (record.arguments !== query.argumentsDigest) return { kind: 'mismatch', field: 'arguments' };
  return { kind: 'resume', record };
}

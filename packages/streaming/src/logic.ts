/**
 * The pure logic of streamed, resumable tool calls: `_meta` validation,
 * checkpoint tokens and records, the resume decision, progress arithmetic
 * and chunk ordering. No I/O here; the server and client halves only
 * translate.
 */
import { createHash } from 'node:crypto';
import { canonicalHash, ConfigurationError, type JsonValue, type ToolInfo, type ToolResult } from '@ext/core';
import { Compile } from 'typebox/compile';
import {
  OPERATION_ID_PATTERN_SOURCE,
  ProgressNotificationSchema,
  StreamChunkSchema,
  StreamingRequestMetaSchema,
  StreamingResultMetaSchema,
  type ProgressNotification,
  type StreamChunk,
  type StreamingResultMeta,
} from './schema.js';

/** The operation id pattern as a RegExp (no `g`/`y` flag, so `test` keeps no state). */
export const OPERATION_ID_PATTERN = new RegExp(OPERATION_ID_PATTERN_SOURCE);

/** Whether `input` is a well-formed operation id. Never throws. */
export function isValidOperationId(input: unknown): input is string {
  return typeof input === 'string' && input.length <= 128 && OPERATION_ID_PATTERN.test(input);
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

/** A validated `params._meta[id]`. */
export interface StreamingRequest {
  readonly operationId: string;
  readonly checkpointToken: string | undefined;
}

export type Parsed<T> =
  | { readonly ok: true; readonly value: T }
  | {
      readonly ok: false;
      /** JSON Pointer of the offending value, relative to the request `params`. */
      readonly pointer: string;
      /** `operation_id`, `checkpoint_token`, or the identifier for the whole entry. */
      readonly field: string;
      /** A sentence naming the field and what it must be. */
      readonly message: string;
    };

// Compiled on first use: keeps import free of work.
let requestValidator: ReturnType<typeof Compile<typeof StreamingRequestMetaSchema>> | undefined;
let progressValidator: ReturnType<typeof Compile<typeof ProgressNotificationSchema>> | undefined;
let chunkValidator: ReturnType<typeof Compile<typeof StreamChunkSchema>> | undefined;
let resultMetaValidator: ReturnType<typeof Compile<typeof StreamingResultMetaSchema>> | undefined;

/**
 * Validates `params._meta[id]` as it arrived from the peer. Never throws,
 * whatever `raw` is; a failure names the JSON Pointer of the first
 * offending field, relative to the request `params`.
 */
export function parseStreamingMeta(raw: unknown, id: string): Parsed<StreamingRequest> {
  requestValidator ??= Compile(StreamingRequestMetaSchema);
  const entry = `params._meta["${id}"]`;
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    return {
      ok: false,
      pointer: metaPointer(id),
      field: id,
      message: `${entry} must be an object with an "operation_id"`,
    };
  }
  if (!requestValidator.Check(raw)) {
    const first = requestValidator.Errors(raw)[0];
    if (first === undefined || first.keyword === 'required' || first.instancePath === '/operation_id') {
      return {
        ok: false,
        pointer: metaPointer(id, 'operation_id'),
        field: 'operation_id',
        message: `operation_id in ${entry} must be a string of 1 to 128 characters from [a-zA-Z0-9_-:.]`,
      };
    }
    return {
      ok: false,
      pointer: metaPointer(id, 'checkpoint_token'),
      field: 'checkpoint_token',
      message: `checkpoint_token in ${entry} must be a non-empty string of at most 512 characters`,
    };
  }
  return { ok: true, value: { operationId: raw.operation_id, checkpointToken: raw.checkpoint_token } };
}

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

function isRecordObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

/** A stored checkpoint, or `undefined` when the value is not one this version wrote. Never throws. */
export function parseCheckpointRecord(value: unknown): CheckpointRecord | undefined {
  if (!isRecordObject(value) || value.v !== CHECKPOINT_RECORD_VERSION) return undefined;
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

// ---------------------------------------------------------------------------
// Progress and chunks
// ---------------------------------------------------------------------------

/** The seed's completion fraction (0 to 1) from MCP's `progress` / `total`; `undefined` when indeterminate. */
export function progressFraction(done: number, total: number | undefined): number | undefined {
  if (total === undefined || !(total > 0) || !Number.isFinite(done)) return undefined;
  return Math.min(1, Math.max(0, done / total));
}

/**
 * Whether a `notifications/progress` with `progress: done` may follow the
 * last one sent: MCP requires the value to increase with every notification.
 */
export function mayReportProgress(lastSent: number | undefined, done: number): boolean {
  return lastSent === undefined || done > lastSent;
}

/**
 * Chunk order on the client: the first sequence it has not yet delivered.
 * A resumed operation repeats the chunks sent after its checkpoint; those
 * are duplicates and are dropped.
 */
export function acceptChunk(
  nextSequence: number,
  sequence: number,
): { readonly accept: boolean; readonly next: number } {
  if (sequence < nextSequence) return { accept: false, next: nextSequence };
  return { accept: true, next: sequence + 1 };
}

/** Validates the params of a progress notification from the peer. Never throws. */
export function parseProgressNotification(raw: unknown): ProgressNotification | undefined {
  progressValidator ??= Compile(ProgressNotificationSchema);
  return progressValidator.Check(raw) ? raw : undefined;
}

/** Validates the params of a chunk notification from the peer. Never throws. */
export function parseStreamChunk(raw: unknown): StreamChunk | undefined {
  chunkValidator ??= Compile(StreamChunkSchema);
  return chunkValidator.Check(raw) ? raw : undefined;
}

// ---------------------------------------------------------------------------
// Tool metadata and results
// ---------------------------------------------------------------------------

/**
 * The `Tool._meta[id]` entry the tool's author wrote, validated; `undefined`
 * when there is none. Throws a `ConfigurationError` naming the tool and the
 * field when it is malformed, so a typo fails at registration.
 */
export function readAuthorToolMeta(
  tool: Pick<ToolInfo, 'name' | '_meta'>,
  id: string,
): { readonly checkpoints: boolean } | undefined {
  const raw = tool._meta?.[id];
  if (raw === undefined) return undefined;
  if (!isRecordObject(raw) || typeof raw.checkpoints !== 'boolean') {
    throw new ConfigurationError(
      'INVALID_TOOL_META',
      `tool "${tool.name}": _meta["${id}"] must be { "checkpoints": true | false }`,
    );
  }
  return { checkpoints: raw.checkpoints };
}

/** A copy of `result` whose `_meta[id]` is `meta`; nothing else changes. */
export function withResultMeta(result: ToolResult, id: string, meta: StreamingResultMeta): ToolResult {
  return { ...result, _meta: { ...(result._meta ?? {}), [id]: meta } };
}

/** The result's `_meta[id]`, validated, or `undefined`. Never throws. */
export function readResultMeta(result: unknown, id: string): StreamingResultMeta | undefined {
  resultMetaValidator ??= Compile(StreamingResultMetaSchema);
  if (!isRecordObject(result) || !isRecordObject(result._meta)) return undefined;
  const entry = result._meta[id];
  return resultMetaValidator.Check(entry) ? entry : undefined;
}

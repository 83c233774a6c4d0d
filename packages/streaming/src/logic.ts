/**
 * The pure logic of streamed tool calls: `_meta` validation, progress
 * arithmetic, chunk ordering, tool metadata and result entries (checkpoints
 * are in `checkpoints.ts`). No I/O here; the server and client halves only
 * translate.
 */
import { ConfigurationError, type ToolInfo } from '@ext/core';
import { isRecord, lazyValidator, metaFault, type Parsed } from '@ext/core/kit';
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

/** A validated `params._meta[id]`. */
export interface StreamingRequest {
  readonly operationId: string;
  readonly checkpointToken: string | undefined;
}

// Compiled on first use: keeps import free of work.
const requestValidator = lazyValidator(StreamingRequestMetaSchema);
const progressValidator = lazyValidator(ProgressNotificationSchema);
const chunkValidator = lazyValidator(StreamChunkSchema);
const resultMetaValidator = lazyValidator(StreamingResultMetaSchema);

/**
 * Validates `params._meta[id]` as it arrived from the peer. Never throws,
 * whatever `raw` is; a failure names the JSON Pointer of the first
 * offending field (`operation_id`, `checkpoint_token`, or the identifier
 * for the whole entry), relative to the request `params`.
 */
export function parseStreamingMeta(raw: unknown, id: string): Parsed<StreamingRequest> {
  const check = requestValidator();
  const entry = `params._meta["${id}"]`;
  if (!isRecord(raw)) {
    return metaFault(id, '', `${entry} must be an object with an "operation_id"`);
  }
  if (!check.Check(raw)) {
    const first = check.Errors(raw)[0];
    if (first === undefined || first.keyword === 'required' || first.instancePath === '/operation_id') {
      return metaFault(
        id,
        '/operation_id',
        `operation_id in ${entry} must be a string of 1 to 128 characters from [a-zA-Z0-9_-:.]`,
      );
    }
    return metaFault(
      id,
      '/checkpoint_token',
      `checkpoint_token in ${entry} must be a non-empty string of at most 512 characters`,
    );
  }
  return { ok: true, value: { operationId: raw.operation_id, checkpointToken: raw.checkpoint_token } };
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
  return progressValidator().Check(raw) ? raw : undefined;
}

/** Validates the params of a chunk notification from the peer. Never throws. */
export function parseStreamChunk(raw: unknown): StreamChunk | undefined {
  return chunkValidator().Check(raw) ? raw : undefined;
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
  if (!isRecord(raw) || typeof raw.checkpoints !== 'boolean') {
    throw new ConfigurationError(
      'INVALID_TOOL_META',
      `tool "${tool.name}": _meta["${id}"] must be { "checkpoints": true | false }`,
    );
  }
  return { checkpoints: raw.checkpoints };
}

/** The result's `_meta[id]`, validated, or `undefined`. Never throws. */
export function readResultMeta(result: unknown, id: string): StreamingResultMeta | undefined {
  const check = resultMetaValidator();
  if (!isRecord(result) || !isRecord(result._meta)) return undefined;
  const entry = result._meta[id];
  return check.Check(entry) ? entry : undefined;
}

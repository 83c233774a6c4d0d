/** What a tool handler streams through (`OperationStream`), and what the middleware hands each call's stream. Types only. */
import type { JsonValue } from '@ext/core/kit';
import type { CheckpointRecord } from './checkpoints.js';
import type { ResolvedOptions } from './options.js';

/** Extra facts for {@link OperationStream.progress}. */
export interface ProgressOptions {
  /** The seed's `estimated_remaining_seconds`. */
  readonly estimatedRemainingSeconds?: number | undefined;
  /** The result so far (replaces earlier partial results); same as calling `partial`. */
  readonly partialResult?: Record<string, unknown> | undefined;
}

export interface ChunkOptions {
  /** This is the last chunk of the operation (`is_final`). */
  readonly final?: boolean | undefined;
  /** Saves a checkpoint just after this chunk; its token travels on the chunk. */
  readonly checkpoint?: JsonValue | undefined;
}

export interface ChunkReceipt {
  readonly sequence: number;
  /** The token of the checkpoint saved with the chunk, when one was. */
  readonly checkpointToken: string | undefined;
}

/**
 * What a tool handler streams through: `streamOf(ctx)`. Every method is
 * safe to call whatever the client supports: without the extension,
 * progress still goes out as plain MCP `notifications/progress` (when the
 * client sent a progress token), and partial results, chunks and
 * checkpoints are simply not sent.
 */
export interface OperationStream<S extends JsonValue = JsonValue> {
  /** The operation the client follows, or `undefined` when it follows none (extension not in use for this call). */
  readonly operationId: string | undefined;
  /** Whether the client receives partial results, chunks and checkpoint tokens for this call. */
  readonly enabled: boolean;
  /** Whether checkpoints of this call are persisted and their tokens sent (the tool declares checkpoints and the client follows). */
  readonly resumable: boolean;
  /** The state saved by the checkpoint this call resumes from; `undefined` on a fresh start. */
  readonly resumeState: S | undefined;
  readonly resumed: boolean;
  /** Sequence number the next chunk gets (continues after the checkpoint on a resume). */
  readonly nextSequence: number;
  /** Aborted when the client cancels the call, or when a resume of this operation took over (OPERATION_SUPERSEDED). */
  readonly signal: AbortSignal;
  /** Reports `done` out of `total` (MCP progress) plus the seed's fraction, message and estimate. */
  progress(done: number, total?: number, message?: string, options?: ProgressOptions): Promise<void>;
  /** Sends the result so far; a client shows it before the call ends. Each replaces the previous one. */
  partial(result: Record<string, unknown>, message?: string): Promise<void>;
  /** Sends the next ordered chunk of the output. */
  chunk(data: JsonValue, options?: ChunkOptions): Promise<ChunkReceipt>;
  /**
   * Saves `state` in the store and sends its token; a resumed call gets it
   * back as `resumeState`. Resolves to the token, or `undefined` when the
   * call is not resumable. Throws a `ConfigurationError` when the tool does
   * not declare `checkpoints: true` or the state is not JSON or too large.
   */
  checkpoint(state: S): Promise<string | undefined>;
}

/** The operation a call follows, once the middleware accepted its `_meta` entry. */
export interface ActiveOperation {
  /** The negotiated identifier. */
  readonly id: string;
  readonly operationId: string;
  readonly resume: CheckpointRecord | undefined;
  /** This execution's fencing epoch; set when the tool declares checkpoints. */
  readonly epoch: number | undefined;
  readonly argumentsDigest: string;
}

/** What one call's stream knows of its setting. */
export interface StreamSetup {
  readonly config: ResolvedOptions | undefined;
  /** What the tool declares; `undefined` when the server half is not composed. */
  readonly toolCheckpoints: boolean | undefined;
  readonly active: ActiveOperation | undefined;
}

/** What `streamCall` takes and yields: its options, the updates of a streamed call, and the call itself. Types only. */
import type { CallToolOptions, ExtendedClient, ToolResult } from '@ext/core';
import type { StreamingResultMeta } from './schema.js';

/**
 * Where an interrupted operation can continue (the seed's `ResumeRequest`,
 * camelCase): save it, e.g. as JSON, and pass it back as `resumeFrom`.
 */
export interface Checkpoint {
  readonly operationId: string;
  readonly checkpointToken: string;
  /** @deprecated Use `operationId`; the snake_case spelling goes in the next major. */
  readonly operation_id: string;
  /** @deprecated Use `checkpointToken`; the snake_case spelling goes in the next major. */
  readonly checkpoint_token: string;
}

/** A checkpoint as `resumeFrom` takes it: camelCase, or the snake_case of 0.1 (deprecated). */
export type CheckpointInput =
  | { readonly operationId: string; readonly checkpointToken: string }
  | {
      /** @deprecated Use `operationId`; the snake_case spelling goes in the next major. */
      readonly operation_id: string;
      /** @deprecated Use `checkpointToken`; the snake_case spelling goes in the next major. */
      readonly checkpoint_token: string;
    };

/**
 * Progress of the operation: the seed's `ProgressNotification` fields
 * (camelCase), plus MCP's own `done` / `total` (the progress notification's
 * `progress` and `total`) when the server sent them.
 */
export interface ProgressUpdate {
  readonly type: 'progress';
  /** Absent when the server does not speak the extension (plain MCP progress). */
  readonly operationId?: string | undefined;
  readonly done?: number | undefined;
  readonly total?: number | undefined;
  /** Completion fraction, 0 to 1, when known. */
  readonly progress?: number | undefined;
  readonly message?: string | undefined;
  readonly estimatedRemainingSeconds?: number | undefined;
  /** The result so far; replaces any earlier one. */
  readonly partialResult?: Record<string, unknown> | undefined;
  readonly checkpointToken?: string | undefined;
  /** @deprecated Use `operationId`; the snake_case spelling goes in the next major. */
  readonly operation_id?: string | undefined;
  /** @deprecated Use `estimatedRemainingSeconds`; the snake_case spelling goes in the next major. */
  readonly estimated_remaining_seconds?: number | undefined;
  /** @deprecated Use `partialResult`; the snake_case spelling goes in the next major. */
  readonly partial_result?: Record<string, unknown> | undefined;
  /** @deprecated Use `checkpointToken`; the snake_case spelling goes in the next major. */
  readonly checkpoint_token?: string | undefined;
}

/** One ordered chunk of the output (the seed's `StreamChunk`, camelCase); delivered once, in sequence order, across resumes. */
export interface ChunkUpdate {
  readonly type: 'stream_chunk';
  readonly operationId: string;
  readonly sequence: number;
  readonly data?: unknown;
  readonly isFinal?: boolean | undefined;
  /** Resumes the operation just after this chunk. */
  readonly checkpointToken?: string | undefined;
  /** @deprecated Use `operationId`; the snake_case spelling goes in the next major. */
  readonly operation_id: string;
  /** @deprecated Use `isFinal`; the snake_case spelling goes in the next major. */
  readonly is_final?: boolean | undefined;
  /** @deprecated Use `checkpointToken`; the snake_case spelling goes in the next major. */
  readonly checkpoint_token?: string | undefined;
}

/** The call was interrupted and is being resumed from `checkpointToken`. */
export interface ResumeUpdate {
  readonly type: 'resume';
  readonly operationId: string;
  readonly checkpointToken: string;
  /** 1 for the first resume of this iteration. */
  readonly attempt: number;
  /** What interrupted the previous attempt. */
  readonly error: unknown;
  /** @deprecated Use `operationId`; the snake_case spelling goes in the next major. */
  readonly operation_id: string;
  /** @deprecated Use `checkpointToken`; the snake_case spelling goes in the next major. */
  readonly checkpoint_token: string;
}

/** The end of the operation: the tool result (which may be an error result). */
export interface ResultUpdate {
  readonly type: 'result';
  readonly result: ToolResult;
  /** The server's `result._meta[id]`, when it handled the call under the extension. */
  readonly streaming: StreamingResultMeta | undefined;
}

export type StreamUpdate = ProgressUpdate | ChunkUpdate | ResumeUpdate | ResultUpdate;

export interface AutoResumeOptions {
  /** Resumes per iteration at most. Default 3. */
  readonly maxAttempts?: number | undefined;
  /** Pause before each resume, in ms. Default 250. */
  readonly delayMs?: number | undefined;
  /**
   * The client to resume with, e.g. a new connection after the old one
   * died. Default: the same client (enough where every request is its own
   * HTTP exchange, as on the 2026-07-28 era).
   */
  readonly reconnect?: ((error: unknown, attempt: number) => ExtendedClient | Promise<ExtendedClient>) | undefined;
  /**
   * Whether a failed attempt is worth resuming. Default `isInterruption`:
   * anything but a JSON-RPC error answered by the server, which a repeat
   * would get again.
   */
  readonly shouldResume?: ((error: unknown) => boolean) | undefined;
}

export interface StreamCallOptions extends Omit<CallToolOptions, 'onProgress'> {
  /** The operation id to send. Default: a new UUID (or `resumeFrom.operationId`). */
  readonly operationId?: string | undefined;
  /** Continue an interrupted operation from this checkpoint instead of starting it. */
  readonly resumeFrom?: CheckpointInput | undefined;
  /** Resume automatically from the last checkpoint when an attempt fails. Default: off. `true` uses the defaults. */
  readonly autoResume?: AutoResumeOptions | boolean | undefined;
}

/** A streamed tool call: iterate it once with `for await`. */
export interface StreamingCall extends AsyncIterable<StreamUpdate> {
  readonly operationId: string;
  /** The last checkpoint the server sent, to resume with later (`resumeFrom`). */
  readonly checkpoint: Checkpoint | undefined;
}

/** What `streamCall` takes and yields: its options, the updates of a streamed call, and the call itself. Types only. */
import type { CallToolOptions, ExtendedClient, ToolResult } from '@ext/core';
import type { StreamChunk, StreamingResultMeta } from './schema.js';

/** Where an interrupted operation can continue: the seed's `ResumeRequest`. */
export interface Checkpoint {
  readonly operation_id: string;
  readonly checkpoint_token: string;
}

/**
 * Progress of the operation: the seed's `ProgressNotification` fields, plus
 * MCP's own `done` / `total` (the progress notification's `progress` and
 * `total`) when the server sent them.
 */
export interface ProgressUpdate {
  readonly type: 'progress';
  /** Absent when the server does not speak the extension (plain MCP progress). */
  readonly operation_id?: string | undefined;
  readonly done?: number | undefined;
  readonly total?: number | undefined;
  /** Completion fraction, 0 to 1, when known. */
  readonly progress?: number | undefined;
  readonly message?: string | undefined;
  readonly estimated_remaining_seconds?: number | undefined;
  /** The result so far; replaces any earlier one. */
  readonly partial_result?: Record<string, unknown> | undefined;
  readonly checkpoint_token?: string | undefined;
}

/** One ordered chunk of the output (the seed's `StreamChunk`); delivered once, in sequence order, across resumes. */
export type ChunkUpdate = StreamChunk;

/** The call was interrupted and is being resumed from `checkpoint_token`. */
export interface ResumeUpdate {
  readonly type: 'resume';
  readonly operation_id: string;
  readonly checkpoint_token: string;
  /** 1 for the first resume of this iteration. */
  readonly attempt: number;
  /** What interrupted the previous attempt. */
  readonly error: unknown;
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
  /** The operation id to send. Default: a new UUID (or `resumeFrom.operation_id`). */
  readonly operationId?: string | undefined;
  /** Continue an interrupted operation from this checkpoint instead of starting it. */
  readonly resumeFrom?: Checkpoint | undefined;
  /** Resume automatically from the last checkpoint when an attempt fails. Default: off. `true` uses the defaults. */
  readonly autoResume?: AutoResumeOptions | boolean | undefined;
}

/** A streamed tool call: iterate it once with `for await`. */
export interface StreamingCall extends AsyncIterable<StreamUpdate> {
  readonly operationId: string;
  /** The last checkpoint the server sent, to resume with later (`resumeFrom`). */
  readonly checkpoint: Checkpoint | undefined;
}

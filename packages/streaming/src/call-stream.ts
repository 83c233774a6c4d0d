/**
 * One call's `OperationStream`: checks what the handler passes, then sends
 * MCP progress, the extension's progress, partial results and chunks, in
 * the order the handler made them.
 */
import { ConfigurationError, type CallContext } from '@ext/core';
import { detachedRunOf, isRecord, type JsonValue } from '@ext/core/kit';
import { saveCheckpoint } from './checkpoint-store.js';
import { mayReportProgress, progressFraction } from './logic.js';
import type {
  ActiveOperation,
  ChunkOptions,
  ChunkReceipt,
  OperationStream,
  ProgressOptions,
  StreamSetup,
} from './operation-stream.js';
import { streamingMethod, type ProgressNotification, type StreamChunk } from './schema.js';

function checkNumber(name: string, value: unknown, minimum: number, inclusive: boolean): void {
  if (typeof value !== 'number' || !Number.isFinite(value) || (inclusive ? value < minimum : value <= minimum)) {
    throw new ConfigurationError(
      'INVALID_PROGRESS',
      `streamOf(ctx): ${name} must be a finite number ${inclusive ? '>=' : '>'} ${minimum}, got ${String(value)}`,
    );
  }
}

function checkObject(name: string, value: unknown): asserts value is Record<string, unknown> {
  if (!isRecord(value)) {
    throw new ConfigurationError('INVALID_PARTIAL_RESULT', `streamOf(ctx): ${name} must be a plain object`);
  }
}

function checkMessage(message: unknown): void {
  if (message !== undefined && typeof message !== 'string') {
    throw new ConfigurationError('INVALID_PROGRESS', 'streamOf(ctx): message must be a string');
  }
}

/** The stream of one call, as the middleware (or `streamOf` without it) sets it up. */
export class CallStream implements OperationStream {
  readonly #ctx: CallContext;
  readonly #setup: StreamSetup;
  readonly #fence = new AbortController();
  #signal: AbortSignal | undefined;
  #sequence: number;
  #finished = false;
  #lastMcpProgress: number | undefined;
  #lastFraction: number | undefined;
  #queue: Promise<unknown> = Promise.resolve();

  constructor(ctx: CallContext, setup: StreamSetup) {
    this.#ctx = ctx;
    this.#setup = setup;
    this.#sequence = setup.active?.resume?.next_sequence ?? 0;
  }

  /** Made on first use: most calls never read it, and `AbortSignal.any` is not free. */
  get signal(): AbortSignal {
    this.#signal ??= AbortSignal.any([this.#ctx.signal, this.#fence.signal]);
    return this.#signal;
  }

  get operationId(): string | undefined {
    return this.#setup.active?.operationId;
  }

  get enabled(): boolean {
    return this.#setup.active !== undefined;
  }

  // A task keeps its own checkpoint (core's detached run): a handler resumes from either alike (STRM-22).
  get resumable(): boolean {
    return this.#setup.active?.epoch !== undefined || detachedRunOf(this.#ctx) !== undefined;
  }

  get resumeState(): JsonValue | undefined {
    return this.#setup.active?.resume?.state ?? detachedRunOf(this.#ctx)?.resumeState;
  }

  get resumed(): boolean {
    return this.resumeState !== undefined;
  }

  get nextSequence(): number {
    return this.#sequence;
  }

  /** Runs sends one after another, so notifications leave in the order the handler made them. */
  #enqueue<T>(task: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(task);
    // The chain must outlive a failed send; the failure itself reaches the caller through `run`.
    this.#queue = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  #notifyProgress(active: ActiveOperation, fields: Omit<ProgressNotification, 'type' | 'operation_id'>): Promise<void> {
    const payload: ProgressNotification = { type: 'progress', operation_id: active.operationId, ...fields };
    return this.#ctx.notify(streamingMethod(active.id, 'progress'), payload);
  }

  progress(done: number, total?: number, message?: string, options: ProgressOptions = {}): Promise<void> {
    checkNumber('done', done, 0, true);
    if (total !== undefined) checkNumber('total', total, 0, false);
    checkMessage(message);
    const { estimatedRemainingSeconds, partialResult } = options;
    if (estimatedRemainingSeconds !== undefined)
      checkNumber('estimatedRemainingSeconds', estimatedRemainingSeconds, 0, true);
    if (partialResult !== undefined) checkObject('partialResult', partialResult);
    // Decided now, not when the send runs, so concurrent calls keep MCP's increasing order.
    const token = this.#ctx.progressToken;
    const sendMcp = token !== undefined && mayReportProgress(this.#lastMcpProgress, done);
    if (sendMcp) this.#lastMcpProgress = done;
    const fraction = progressFraction(done, total);
    this.#lastFraction = fraction;
    const active = this.#setup.active;
    const run = detachedRunOf(this.#ctx);
    return this.#enqueue(async () => {
      await run?.progress({ done, total, message, estimatedRemainingSeconds, partialResult });
      if (sendMcp) {
        const params: Record<string, unknown> = { progressToken: token, progress: done };
        if (total !== undefined) params.total = total;
        if (message !== undefined) params.message = message;
        await this.#ctx.notify('notifications/progress', params);
      }
      if (active === undefined) return;
      await this.#notifyProgress(active, {
        ...(fraction === undefined ? {} : { progress: fraction }),
        ...(message === undefined ? {} : { message }),
        ...(estimatedRemainingSeconds === undefined ? {} : { estimated_remaining_seconds: estimatedRemainingSeconds }),
        ...(partialResult === undefined ? {} : { partial_result: partialResult }),
      });
    });
  }

  partial(result: Record<string, unknown>, message?: string): Promise<void> {
    checkObject('result', result);
    checkMessage(message);
    const active = this.#setup.active;
    const fraction = this.#lastFraction;
    const run = detachedRunOf(this.#ctx);
    return this.#enqueue(async () => {
      await run?.progress({ message, partialResult: result });
      if (active === undefined) return;
      await this.#notifyProgress(active, {
        ...(fraction === undefined ? {} : { progress: fraction }),
        ...(message === undefined ? {} : { message }),
        partial_result: result,
      });
    });
  }

  chunk(data: JsonValue, options: ChunkOptions = {}): Promise<ChunkReceipt> {
    if (this.#finished) {
      throw new ConfigurationError('STREAM_FINISHED', 'streamOf(ctx).chunk: the final chunk was already sent');
    }
    const sequence = this.#sequence;
    this.#sequence += 1;
    const final = options.final === true;
    if (final) this.#finished = true;
    const active = this.#setup.active;
    const state = options.checkpoint;
    return this.#enqueue(async () => {
      const checkpointToken = state === undefined ? undefined : await this.#persist(state, sequence + 1);
      if (active !== undefined) {
        const payload: StreamChunk = {
          type: 'stream_chunk',
          operation_id: active.operationId,
          sequence,
          data,
          is_final: final,
        };
        if (checkpointToken !== undefined) payload.checkpoint_token = checkpointToken;
        await this.#ctx.notify(streamingMethod(active.id, 'chunk'), payload);
      }
      return { sequence, checkpointToken };
    });
  }

  checkpoint(state: JsonValue): Promise<string | undefined> {
    const nextSequence = this.#sequence;
    const active = this.#setup.active;
    const fraction = this.#lastFraction;
    return this.#enqueue(async () => {
      const token = await this.#persist(state, nextSequence);
      if (token !== undefined && active !== undefined) {
        await this.#notifyProgress(active, {
          ...(fraction === undefined ? {} : { progress: fraction }),
          checkpoint_token: token,
        });
      }
      return token;
    });
  }

  async #persist(state: JsonValue, nextSequence: number): Promise<string | undefined> {
    await detachedRunOf(this.#ctx)?.checkpoint(state);
    return saveCheckpoint(this.#ctx, this.#setup, this.#fence, state, nextSequence);
  }
}

import { randomBytes } from 'node:crypto';
import {
  canonicalJson,
  ConfigurationError,
  ExtensionError,
  type CallContext,
  type JsonValue,
  type ServerExtension,
  type ToolMiddleware,
} from '@ext/core';
import {
  argumentsDigest,
  checkpointKey,
  checkpointToJson,
  CHECKPOINT_RECORD_VERSION,
  decideResume,
  mayReportProgress,
  metaPointer,
  mintCheckpointToken,
  operationKey,
  parseStreamingMeta,
  progressFraction,
  readAuthorToolMeta,
  TOKEN_RANDOM_BYTES,
  tokenDigest,
  withResultMeta,
  type CheckpointRecord,
  type ResumeDecision,
} from './logic.js';
import {
  DEFAULT_CHECKPOINT_TTL_SECONDS,
  STREAMING_ID,
  STREAMING_PACKAGE,
  STREAMING_WIRE_VERSION,
  StreamingClientSettingsSchema,
  streamingMethod,
  type ProgressNotification,
  type StreamChunk,
  type StreamingServerSettings,
} from './schema.js';

export interface StreamingServerOptions {
  /** How long a checkpoint stays resumable, in seconds. Default 86400 (24 h). */
  readonly checkpointTtlSeconds?: number | undefined;
  /** Largest checkpoint state (canonical JSON, in bytes) a handler may save. Default 1048576 (1 MiB). */
  readonly maxStateBytes?: number | undefined;
  /** Namespace of every store key this extension writes. Default `"streaming"`. */
  readonly keyPrefix?: string | undefined;
  /** Wall clock in milliseconds for checkpoint expiry (tests). Default `Date.now`. */
  readonly now?: (() => number) | undefined;
}

interface ResolvedOptions {
  readonly ttlMs: number;
  readonly ttlSeconds: number;
  readonly maxStateBytes: number;
  readonly keyPrefix: string;
  readonly now: () => number;
}

function positiveInteger(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new ConfigurationError(
      'INVALID_OPTION',
      `streamingServer: ${name} must be a positive integer, got ${String(value)}`,
    );
  }
  return value;
}

function resolveOptions(options: StreamingServerOptions): ResolvedOptions {
  if (typeof options !== 'object' || Array.isArray(options)) {
    throw new ConfigurationError('INVALID_OPTION', 'streamingServer(options) expects an object');
  }
  const ttlSeconds = positiveInteger(
    'checkpointTtlSeconds',
    options.checkpointTtlSeconds,
    DEFAULT_CHECKPOINT_TTL_SECONDS,
  );
  const keyPrefix = options.keyPrefix ?? 'streaming';
  if (typeof keyPrefix !== 'string' || keyPrefix.length === 0) {
    throw new ConfigurationError('INVALID_OPTION', 'streamingServer: keyPrefix must be a non-empty string');
  }
  if (options.now !== undefined && typeof options.now !== 'function') {
    throw new ConfigurationError('INVALID_OPTION', 'streamingServer: now must be a function returning milliseconds');
  }
  return {
    ttlSeconds,
    ttlMs: ttlSeconds * 1000,
    maxStateBytes: positiveInteger('maxStateBytes', options.maxStateBytes, 1_048_576),
    keyPrefix,
    now: options.now ?? Date.now,
  };
}

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

// Symbol.for, so duplicate copies of this package agree on the slot.
const STREAM = Symbol.for('io.github.mcp-ext/streaming/stream');

interface ActiveOperation {
  /** The negotiated identifier. */
  readonly id: string;
  readonly operationId: string;
  readonly resume: CheckpointRecord | undefined;
  /** This execution's fencing epoch; set when the tool declares checkpoints. */
  readonly epoch: number | undefined;
  readonly argumentsDigest: string;
}

interface StreamSetup {
  readonly config: ResolvedOptions | undefined;
  /** What the tool declares; `undefined` when the server half is not composed. */
  readonly toolCheckpoints: boolean | undefined;
  readonly active: ActiveOperation | undefined;
}

function superseded(operationId: string): ExtensionError {
  return new ExtensionError(
    'permanent',
    'OPERATION_SUPERSEDED',
    'A resumed call of this operation took over; this execution stopped',
    {
      suggestion: 'Follow the newer call of the operation; this one will produce no result.',
      details: { operation_id: operationId },
    },
  );
}

function checkNumber(name: string, value: unknown, minimum: number, inclusive: boolean): void {
  if (typeof value !== 'number' || !Number.isFinite(value) || (inclusive ? value < minimum : value <= minimum)) {
    throw new ConfigurationError(
      'INVALID_PROGRESS',
      `streamOf(ctx): ${name} must be a finite number ${inclusive ? '>=' : '>'} ${minimum}, got ${String(value)}`,
    );
  }
}

function checkObject(name: string, value: unknown): asserts value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ConfigurationError('INVALID_PARTIAL_RESULT', `streamOf(ctx): ${name} must be a plain object`);
  }
}

class CallStream implements OperationStream {
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

  get resumable(): boolean {
    return this.#setup.active?.epoch !== undefined;
  }

  get resumeState(): JsonValue | undefined {
    return this.#setup.active?.resume?.state;
  }

  get resumed(): boolean {
    return this.#setup.active?.resume !== undefined;
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
    if (message !== undefined && typeof message !== 'string') {
      throw new ConfigurationError('INVALID_PROGRESS', 'streamOf(ctx): message must be a string');
    }
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
    return this.#enqueue(async () => {
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
    if (message !== undefined && typeof message !== 'string') {
      throw new ConfigurationError('INVALID_PROGRESS', 'streamOf(ctx): message must be a string');
    }
    const active = this.#setup.active;
    const fraction = this.#lastFraction;
    return this.#enqueue(async () => {
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
    const { config, toolCheckpoints, active } = this.#setup;
    const tool = this.#ctx.tool.name;
    if (toolCheckpoints === false) {
      throw new ConfigurationError(
        'CHECKPOINTS_NOT_DECLARED',
        `tool "${tool}" saves a checkpoint but does not declare it: register it with _meta: { "${STREAMING_ID}": { checkpoints: true } }`,
      );
    }
    if (config === undefined || active === undefined || active.epoch === undefined) return undefined;
    let size: number;
    try {
      size = Buffer.byteLength(canonicalJson(state));
    } catch (cause) {
      throw new ConfigurationError(
        'INVALID_CHECKPOINT_STATE',
        `tool "${tool}": checkpoint state must be JSON (${String(cause)})`,
      );
    }
    if (size > config.maxStateBytes) {
      throw new ConfigurationError(
        'CHECKPOINT_TOO_LARGE',
        `tool "${tool}": checkpoint state is ${size} bytes, more than maxStateBytes (${config.maxStateBytes})`,
      );
    }
    await this.#assertCurrent(config, active, active.epoch);
    const now = config.now();
    const record: CheckpointRecord = {
      v: CHECKPOINT_RECORD_VERSION,
      operation_id: active.operationId,
      tool,
      arguments: active.argumentsDigest,
      state,
      next_sequence: nextSequence,
      created_at: now,
      expires_at: now + config.ttlMs,
    };
    const token = mintCheckpointToken(randomBytes(TOKEN_RANDOM_BYTES), record.expires_at);
    await this.#ctx.store.set(
      checkpointKey(config.keyPrefix, this.#ctx.principal, tokenDigest(token)),
      checkpointToJson(record),
      {
        ttlMs: config.ttlMs,
      },
    );
    return token;
  }

  /**
   * Fencing: a newer execution of the same operation (a resume) bumped the
   * epoch, so this one must stop rather than write checkpoints a client
   * could resume from twice. The compare-and-set also renews the epoch's TTL.
   */
  async #assertCurrent(config: ResolvedOptions, active: ActiveOperation, epoch: number): Promise<void> {
    const { store, principal } = this.#ctx;
    const key = operationKey(config.keyPrefix, principal, active.operationId);
    if (await store.compareAndSet(key, epoch, epoch, { ttlMs: config.ttlMs })) return;
    // An epoch that merely expired during a very long run is re-created, not treated as taken over.
    if ((await store.get(key)) === undefined && (await store.setIfAbsent(key, epoch, { ttlMs: config.ttlMs }))) return;
    const error = superseded(active.operationId);
    this.#fence.abort(error);
    throw error;
  }
}

/**
 * The handler's streaming helper for the current call: progress, partial
 * results, ordered chunks, checkpoints, the resume state and the abort
 * signal. Safe to call whether or not the server composes
 * `streamingServer()` and whether or not the client negotiated it.
 *
 * @example
 * ```ts
 * server.registerTool('export_rows', { inputSchema, _meta: { [STREAMING_ID]: { checkpoints: true } } }, async ({ table }, ctx) => {
 *   const stream = streamOf<{ next: number }>(ctx);
 *   let next = stream.resumeState?.next ?? 0;
 *   for (; next < total; next += 1) {
 *     stream.signal.throwIfAborted();
 *     await stream.chunk(await readRow(table, next), { checkpoint: { next: next + 1 } });
 *     await stream.progress(next + 1, total, `row ${next + 1} of ${total}`);
 *   }
 *   return { content: [{ type: 'text', text: `exported ${total} rows` }] };
 * });
 * ```
 */
export function streamOf<S extends JsonValue = JsonValue>(ctx: CallContext): OperationStream<S> {
  // Not `instanceof`: the middleware may come from another copy of this package; the slot's contract is the interface.
  const existing = ctx.locals.get(STREAM);
  if (existing !== undefined) return existing as OperationStream<S>;
  // Without the server half: plain MCP progress only.
  const stream = new CallStream(ctx, { config: undefined, toolCheckpoints: undefined, active: undefined });
  ctx.locals.set(STREAM, stream);
  return stream as unknown as OperationStream<S>;
}

function invalidMeta(failure: { pointer: string; field: string; message: string }): ExtensionError {
  return new ExtensionError('invalid_input', 'INVALID_INPUT', failure.message, {
    userActionable: false,
    suggestion:
      failure.field === 'checkpoint_token'
        ? 'Send the checkpoint_token exactly as the server sent it, or leave it out to start over.'
        : 'Send an operation_id made of letters, digits and _-:. (1 to 128 characters).',
    details: { field: failure.field, pointer: failure.pointer },
  });
}

const START_OVER = 'Call the tool again without a checkpoint_token to start the operation over.';

function resumeRefusal(
  decision: Exclude<ResumeDecision, { kind: 'resume' }>,
  id: string,
  operationId: string,
): ExtensionError {
  const pointer = metaPointer(id, 'checkpoint_token');
  switch (decision.kind) {
    case 'not_found':
      return new ExtensionError(
        'invalid_input',
        'CHECKPOINT_NOT_FOUND',
        'No checkpoint is known for this checkpoint_token',
        {
          suggestion: START_OVER,
          details: { field: 'checkpoint_token', pointer, operation_id: operationId },
        },
      );
    case 'expired':
      return new ExtensionError('invalid_input', 'CHECKPOINT_EXPIRED', 'The checkpoint has expired', {
        suggestion: START_OVER,
        details: { field: 'checkpoint_token', pointer, operation_id: operationId },
      });
    case 'mismatch':
      return new ExtensionError(
        'invalid_input',
        'CHECKPOINT_MISMATCH',
        `The checkpoint belongs to another ${decision.field === 'arguments' ? 'set of arguments' : decision.field === 'tool' ? 'tool' : 'operation'}`,
        {
          suggestion: 'Resume with the same tool, arguments and operation_id as the call that sent the checkpoint.',
          details: { field: decision.field, pointer, operation_id: operationId },
        },
      );
    case 'unreadable':
      return new ExtensionError(
        'permanent',
        'CHECKPOINT_UNREADABLE',
        'The stored checkpoint cannot be read by this server',
        {
          suggestion: START_OVER,
          details: { operation_id: operationId },
        },
      );
  }
}

/**
 * The server half of `@ext/streaming`. For a call whose client follows an
 * operation (`params._meta["io.github.mcp-ext/streaming"] = { operation_id }`),
 * the handler's `streamOf(ctx)` sends progress, partial results and ordered
 * chunks as notifications, and, for tools declared with
 * `_meta: { "io.github.mcp-ext/streaming": { checkpoints: true } }`,
 * persists checkpoints in the store so a later call carrying
 * `{ operation_id, checkpoint_token }` continues from there.
 */
export function streamingServer(options: StreamingServerOptions = {}): ServerExtension {
  const config = resolveOptions(options);
  const settings: StreamingServerSettings = {
    version: STREAMING_WIRE_VERSION,
    checkpoint_ttl_seconds: config.ttlSeconds,
  };

  const middleware: ToolMiddleware = async (call, ctx, next) => {
    const toolCheckpoints = readAuthorToolMeta(ctx.tool, STREAMING_ID)?.checkpoints ?? false;
    const negotiated = ctx.negotiated(STREAMING_PACKAGE);
    const raw = negotiated === undefined ? undefined : call.meta[negotiated.id];
    if (negotiated === undefined || raw === undefined) {
      ctx.locals.set(STREAM, new CallStream(ctx, { config, toolCheckpoints, active: undefined }));
      return next();
    }
    const parsed = parseStreamingMeta(raw, negotiated.id);
    if (!parsed.ok) throw invalidMeta(parsed);
    const { operationId, checkpointToken } = parsed.value;
    const digest = argumentsDigest(call.name, call.arguments);
    let resume: CheckpointRecord | undefined;
    if (checkpointToken !== undefined) {
      if (!toolCheckpoints) {
        throw new ExtensionError(
          'invalid_input',
          'CHECKPOINTS_UNSUPPORTED',
          `Tool "${call.name}" cannot be resumed from a checkpoint`,
          {
            suggestion: 'Call the tool without a checkpoint_token.',
            details: { field: 'checkpoint_token', pointer: metaPointer(negotiated.id, 'checkpoint_token') },
          },
        );
      }
      const key = checkpointKey(config.keyPrefix, ctx.principal, tokenDigest(checkpointToken));
      const decision = decideResume(
        { token: checkpointToken, operationId, tool: call.name, argumentsDigest: digest, now: config.now() },
        await ctx.store.get(key),
      );
      if (decision.kind !== 'resume') throw resumeRefusal(decision, negotiated.id, operationId);
      resume = decision.record;
    }
    // Every execution of a resumable operation takes a new epoch, which fences off any older one still running.
    const epoch = toolCheckpoints
      ? await ctx.store.increment(operationKey(config.keyPrefix, ctx.principal, operationId), 1, {
          ttlMs: config.ttlMs,
        })
      : undefined;
    const active: ActiveOperation = { id: negotiated.id, operationId, resume, epoch, argumentsDigest: digest };
    ctx.locals.set(STREAM, new CallStream(ctx, { config, toolCheckpoints, active }));
    const result = await next();
    return withResultMeta(result, negotiated.id, { operation_id: operationId, resumed: resume !== undefined });
  };

  return {
    side: 'server',
    keepsCallerState: true,
    name: STREAMING_PACKAGE,
    ids: [STREAMING_ID],
    settings,
    peerSettings: StreamingClientSettingsSchema,
    stage: 'streaming',
    middleware,
    toolMeta(tool) {
      // Validates the author's entry at registration, so a typo fails at startup.
      const declared = readAuthorToolMeta(tool, STREAMING_ID);
      return declared === undefined ? undefined : { checkpoints: declared.checkpoints };
    },
  };
}

export { getStreamingSettings } from './settings.js';

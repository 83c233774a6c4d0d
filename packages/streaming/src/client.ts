import { randomUUID } from 'node:crypto';
import {
  ConfigurationError,
  WireError,
  type CallToolOptions,
  type ClientExtension,
  type ExtendedClient,
  type ToolResult,
} from '@ext/core';
import {
  acceptChunk,
  isValidOperationId,
  parseProgressNotification,
  parseStreamChunk,
  progressFraction,
  readResultMeta,
} from './logic.js';
import {
  MAX_CHECKPOINT_TOKEN_LENGTH,
  STREAMING_ID,
  STREAMING_PACKAGE,
  STREAMING_WIRE_VERSION,
  StreamingServerSettingsSchema,
  streamingMethod,
  type StreamChunk,
  type StreamingRequestMeta,
  type StreamingResultMeta,
} from './schema.js';

/**
 * The client half: advertises the extension, so servers stream partial
 * results, chunks and checkpoint tokens to calls made with {@link streamCall}.
 */
export function streamingClient(): ClientExtension {
  return {
    side: 'client',
    name: STREAMING_PACKAGE,
    ids: [STREAMING_ID],
    settings: { version: STREAMING_WIRE_VERSION },
    peerSettings: StreamingServerSettingsSchema,
  };
}

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
   * Whether a failed attempt is worth resuming. Default {@link isInterruption}:
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

type Listener = (event: 'progress' | 'chunk', params: Record<string, unknown>) => void;

// One notification handler per client and method, routing by operation id:
// v1's SDK keeps a single handler per method, so each call cannot add its own.
const routes = new WeakMap<ExtendedClient, Map<string, Map<string, Listener>>>();

function routeTable(client: ExtendedClient, id: string): Map<string, Listener> {
  let byId = routes.get(client);
  if (byId === undefined) {
    byId = new Map();
    routes.set(client, byId);
  }
  let table = byId.get(id);
  if (table === undefined) {
    const listeners = new Map<string, Listener>();
    for (const event of ['progress', 'chunk'] as const) {
      client.onNotification(streamingMethod(id, event), (params) => {
        const operation = params.operation_id;
        if (typeof operation === 'string') listeners.get(operation)?.(event, params);
      });
    }
    byId.set(id, listeners);
    table = listeners;
  }
  return table;
}

type Item =
  | {
      readonly kind: 'mcp';
      readonly progress: number;
      readonly total: number | undefined;
      readonly message: string | undefined;
    }
  | { readonly kind: 'progress' | 'chunk'; readonly params: Record<string, unknown> }
  | { readonly kind: 'done'; readonly result: ToolResult }
  | { readonly kind: 'failed'; readonly error: unknown };

/** What the callbacks of one attempt deliver, read in arrival order by the iterator. */
class Inbox {
  #items: Item[] = [];
  #head = 0;
  #wake: (() => void) | undefined;

  push(item: Item): void {
    this.#items.push(item);
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }

  async next(): Promise<Item> {
    while (this.#head >= this.#items.length) {
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
      });
    }
    const item = this.#items[this.#head] as Item;
    this.#head += 1;
    if (this.#head > 1024 && this.#head * 2 > this.#items.length) {
      this.#items = this.#items.slice(this.#head);
      this.#head = 0;
    }
    return item;
  }
}

interface ResolvedResume {
  readonly maxAttempts: number;
  readonly delayMs: number;
  readonly reconnect: ((error: unknown, attempt: number) => ExtendedClient | Promise<ExtendedClient>) | undefined;
  readonly shouldResume: (error: unknown) => boolean;
}

function nonNegativeInteger(name: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw new ConfigurationError(
      'INVALID_OPTION',
      `streamCall: ${name} must be a non-negative integer, got ${typeof value === 'number' ? value : typeof value}`,
    );
  }
  return value;
}

function resolveResume(option: StreamCallOptions['autoResume']): ResolvedResume | undefined {
  if (option === undefined || option === false) return undefined;
  const given: AutoResumeOptions = option === true ? {} : option;
  if (typeof given !== 'object')
    throw new ConfigurationError('INVALID_OPTION', 'streamCall: autoResume must be a boolean or an object');
  if (given.reconnect !== undefined && typeof given.reconnect !== 'function') {
    throw new ConfigurationError('INVALID_OPTION', 'streamCall: autoResume.reconnect must be a function');
  }
  if (given.shouldResume !== undefined && typeof given.shouldResume !== 'function') {
    throw new ConfigurationError('INVALID_OPTION', 'streamCall: autoResume.shouldResume must be a function');
  }
  return {
    maxAttempts: nonNegativeInteger('autoResume.maxAttempts', given.maxAttempts, 3),
    delayMs: nonNegativeInteger('autoResume.delayMs', given.delayMs, 250),
    reconnect: given.reconnect,
    shouldResume: given.shouldResume ?? isInterruption,
  };
}

/**
 * JSON-RPC codes an SDK reports for a connection that went away or a reply
 * that never came (-32000 connection closed, -32001 request timeout),
 * rather than for an answer of the server.
 */
const INTERRUPTION_CODES: readonly number[] = [-32000, -32001];

/**
 * The default test of `autoResume`: an attempt was interrupted (transport
 * failure, closed connection, timeout) rather than answered with a
 * JSON-RPC error, which a repeat would get again.
 */
export function isInterruption(error: unknown): boolean {
  return !WireError.isInstance(error) || INTERRUPTION_CODES.includes(error.code);
}

function checkCheckpoint(value: unknown): Checkpoint {
  const record = typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
  const token = record.checkpoint_token;
  if (
    !isValidOperationId(record.operation_id) ||
    typeof token !== 'string' ||
    token.length === 0 ||
    token.length > MAX_CHECKPOINT_TOKEN_LENGTH
  ) {
    throw new ConfigurationError(
      'INVALID_CHECKPOINT',
      'streamCall: resumeFrom must be { operation_id, checkpoint_token } as the server sent them',
    );
  }
  return { operation_id: record.operation_id, checkpoint_token: token };
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  if (ms === 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason instanceof Error ? signal.reason : new Error('The call was cancelled'));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    if (signal?.aborted === true) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });
  });
}

type McpProgress = Extract<Item, { kind: 'mcp' }>;

function fromMcp(progress: McpProgress): ProgressUpdate {
  const fraction = progressFraction(progress.progress, progress.total);
  return {
    type: 'progress',
    done: progress.progress,
    ...(progress.total === undefined ? {} : { total: progress.total }),
    ...(fraction === undefined ? {} : { progress: fraction }),
    ...(progress.message === undefined ? {} : { message: progress.message }),
  };
}

/**
 * Calls a tool and yields what the server streams while it runs (progress,
 * partial results, ordered chunks), then the result, last. With
 * `autoResume`, an attempt that fails after the server sent a checkpoint is
 * resumed from it (on the same client, or on the one `reconnect` gives),
 * and chunks the resumed operation repeats are dropped. Breaking out of the
 * loop cancels the call. Against a server without the extension the
 * iterator yields plain MCP progress and the result.
 *
 * @example
 * ```ts
 * for await (const update of streamCall(client, 'export_rows', { table: 'orders' }, { autoResume: true })) {
 *   if (update.type === 'progress') bar.update(update.progress ?? 0, update.message);
 *   if (update.type === 'stream_chunk') rows.push(update.data);
 *   if (update.type === 'result') done(update.result);
 * }
 * ```
 */
export function streamCall(
  client: ExtendedClient,
  name: string,
  args: Record<string, unknown> = {},
  options: StreamCallOptions = {},
): StreamingCall {
  const { operationId: chosen, resumeFrom, autoResume, signal, ...callOptions } = options;
  const resume = resolveResume(autoResume);
  const from = resumeFrom === undefined ? undefined : checkCheckpoint(resumeFrom);
  const operationId = from?.operation_id ?? chosen ?? randomUUID();
  if (!isValidOperationId(operationId)) {
    throw new ConfigurationError(
      'INVALID_OPERATION_ID',
      `streamCall: operationId must be 1 to 128 characters from [a-zA-Z0-9_-:.], got ${JSON.stringify(operationId)}`,
    );
  }
  let checkpoint: Checkpoint | undefined = from;
  let started = false;

  async function* run(): AsyncGenerator<StreamUpdate, void, undefined> {
    let current = client;
    let attempt = 0;
    let nextSequence = 0;
    let lastMcp: McpProgress | undefined;
    let resumeToken = from?.checkpoint_token;
    for (;;) {
      const negotiated = current.negotiated(STREAMING_PACKAGE);
      if (negotiated === undefined && resumeToken !== undefined) {
        throw new ConfigurationError(
          'RESUME_NOT_SUPPORTED',
          `streamCall: the server does not support ${STREAMING_ID}, so it cannot resume an operation`,
        );
      }
      const inbox = new Inbox();
      const controller = new AbortController();
      const forward = (): void => {
        controller.abort(signal?.reason);
      };
      if (signal?.aborted === true) forward();
      else signal?.addEventListener('abort', forward, { once: true });
      const table = negotiated === undefined ? undefined : routeTable(current, negotiated.id);
      table?.set(operationId, (kind, params) => {
        inbox.push({ kind, params });
      });
      const meta: Record<string, unknown> = { ...(callOptions.meta ?? {}) };
      if (negotiated !== undefined) {
        const entry: StreamingRequestMeta = { operation_id: operationId };
        if (resumeToken !== undefined) entry.checkpoint_token = resumeToken;
        meta[negotiated.id] = entry;
      }
      current
        .callTool(name, args, {
          ...callOptions,
          meta,
          signal: controller.signal,
          onProgress: ({ progress, total, message }) => {
            inbox.push({ kind: 'mcp', progress, total, message });
          },
        })
        .then(
          (result) => {
            inbox.push({ kind: 'done', result });
          },
          (error: unknown) => {
            inbox.push({ kind: 'failed', error });
          },
        );

      let finished = false;
      let failure: { readonly error: unknown } | undefined;
      let pending: McpProgress | undefined;
      try {
        for (;;) {
          const item = await inbox.next();
          if (item.kind === 'failed') throw item.error;
          if (item.kind === 'mcp') {
            if (negotiated === undefined) {
              yield fromMcp(item);
              continue;
            }
            // The server sends its extension progress right after MCP's: hold this one to merge them.
            if (pending !== undefined) yield fromMcp(pending);
            pending = item;
            lastMcp = item;
            continue;
          }
          if (pending !== undefined && item.kind !== 'progress') {
            yield fromMcp(pending);
            pending = undefined;
          }
          if (item.kind === 'done') {
            finished = true;
            yield {
              type: 'result',
              result: item.result,
              streaming: readResultMeta(item.result, negotiated?.id ?? STREAMING_ID),
            };
            return;
          }
          if (item.kind === 'progress') {
            const payload = parseProgressNotification(item.params);
            if (payload === undefined) {
              current.composed.logger.warn('streaming: ignored a malformed progress notification', {
                operation_id: operationId,
              });
              continue;
            }
            if (payload.checkpoint_token !== undefined)
              checkpoint = { operation_id: operationId, checkpoint_token: payload.checkpoint_token };
            const numbers = pending ?? lastMcp;
            pending = undefined;
            yield {
              ...payload,
              ...(numbers === undefined ? {} : { done: numbers.progress }),
              ...(numbers?.total === undefined ? {} : { total: numbers.total }),
            };
            continue;
          }
          const chunk = parseStreamChunk(item.params);
          if (chunk === undefined) {
            current.composed.logger.warn('streaming: ignored a malformed chunk notification', {
              operation_id: operationId,
            });
            continue;
          }
          if (chunk.checkpoint_token !== undefined)
            checkpoint = { operation_id: operationId, checkpoint_token: chunk.checkpoint_token };
          const order = acceptChunk(nextSequence, chunk.sequence);
          nextSequence = order.next;
          if (order.accept) yield chunk;
        }
      } catch (error) {
        failure = { error };
      } finally {
        table?.delete(operationId);
        signal?.removeEventListener('abort', forward);
        // The consumer stopped early, or the attempt failed: cancel whatever may still run.
        if (!finished) controller.abort(new Error('streamCall: the iteration ended before the result'));
      }
      // Reached only when the attempt failed: a finished one returned above.
      const error = failure.error;
      const saved = checkpoint;
      const again =
        resume !== undefined &&
        saved !== undefined &&
        attempt < resume.maxAttempts &&
        signal?.aborted !== true &&
        resume.shouldResume(error);
      if (!again) throw error;
      attempt += 1;
      await sleep(resume.delayMs, signal);
      if (resume.reconnect !== undefined) current = await resume.reconnect(error, attempt);
      resumeToken = saved.checkpoint_token;
      yield { type: 'resume', operation_id: operationId, checkpoint_token: saved.checkpoint_token, attempt, error };
    }
  }

  return {
    operationId,
    get checkpoint() {
      return checkpoint;
    },
    [Symbol.asyncIterator]() {
      if (started) throw new ConfigurationError('ALREADY_ITERATED', 'streamCall: a streamed call can be iterated once');
      started = true;
      return run();
    },
  };
}

/** How the server handled the call under the extension; `undefined` when it did not. */
export function getStreamingResult(result: unknown): StreamingResultMeta | undefined {
  return readResultMeta(result, STREAMING_ID);
}

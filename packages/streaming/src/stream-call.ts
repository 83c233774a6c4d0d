/** `streamCall`: a tool call iterated as updates, resumed from its last checkpoint when an attempt fails. */
import { randomUUID } from 'node:crypto';
import { ConfigurationError, type ExtendedClient } from '@ext/core';
import { checkCheckpoint, resolveResume, type ResolvedResume } from './call-options.js';
import type { StreamCallOptions, StreamingCall, StreamUpdate } from './call-types.js';
import { followAttempt, startAttempt, type CallProgress, type CallRequest } from './attempt.js';
import { isValidOperationId } from './logic.js';
import { resumeUpdateOf } from './updates.js';

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

/** The attempts of one call: each failed one is resumed from the last checkpoint while `resume` allows. */
async function* run(
  client: ExtendedClient,
  request: CallRequest,
  resume: ResolvedResume | undefined,
  progress: CallProgress,
): AsyncGenerator<StreamUpdate, void, undefined> {
  const { operationId, signal } = request;
  let current = client;
  let attempt = 0;
  let resumeToken = progress.checkpoint?.checkpointToken;
  for (;;) {
    const started = startAttempt(current, request, resumeToken);
    let error: unknown;
    try {
      yield* followAttempt(started, operationId, progress);
      return;
    } catch (failure) {
      error = failure;
    }
    const saved = progress.checkpoint;
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
    resumeToken = saved.checkpointToken;
    yield resumeUpdateOf(saved, attempt, error);
  }
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
  const operationId = from?.operationId ?? chosen ?? randomUUID();
  if (!isValidOperationId(operationId)) {
    throw new ConfigurationError(
      'INVALID_OPERATION_ID',
      `streamCall: operationId must be 1 to 128 characters from [a-zA-Z0-9_-:.], got ${JSON.stringify(operationId)}`,
    );
  }
  const request: CallRequest = { name, args, callOptions, operationId, signal };
  const progress: CallProgress = { checkpoint: from, nextSequence: 0, lastMcp: undefined };
  let started = false;
  return {
    operationId,
    get checkpoint() {
      return progress.checkpoint;
    },
    [Symbol.asyncIterator]() {
      if (started) throw new ConfigurationError('ALREADY_ITERATED', 'streamCall: a streamed call can be iterated once');
      started = true;
      return run(client, request, resume, progress);
    },
  };
}

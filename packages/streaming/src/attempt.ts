/**
 * One attempt of a streamed call: sends `tools/call` with the operation's
 * `_meta` entry, then turns what arrives (MCP progress, the extension's
 * progress and chunks, the result) into updates, in order.
 */
import { ConfigurationError, type ExtendedClient } from '@ext/core';
import type { Checkpoint, ProgressUpdate, StreamCallOptions, StreamUpdate } from './call-types.js';
import { Inbox, routeTable, type Listener, type McpProgress } from './hub.js';
import { acceptChunk, parseProgressNotification, parseStreamChunk, progressFraction, readResultMeta } from './logic.js';
import { STREAMING_ID, type ProgressNotification, type StreamChunk, type StreamingRequestMeta } from './schema.js';
import { checkpointOf, chunkUpdateOf, progressUpdateOf } from './updates.js';

/** What stays the same across the attempts of one streamed call. */
export interface CallRequest {
  readonly name: string;
  readonly args: Record<string, unknown>;
  /** The `callTool` options the caller gave, but the signal. */
  readonly callOptions: Omit<StreamCallOptions, 'operationId' | 'resumeFrom' | 'autoResume' | 'signal'>;
  readonly operationId: string;
  readonly signal: AbortSignal | undefined;
}

/** What one attempt hands the next: the last checkpoint, the next chunk expected, the last MCP progress. */
export interface CallProgress {
  checkpoint: Checkpoint | undefined;
  nextSequence: number;
  lastMcp: McpProgress | undefined;
}

/** An attempt under way. */
export interface Attempt {
  readonly client: ExtendedClient;
  /** The negotiated identifier; `undefined` when the server does not speak the extension. */
  readonly id: string | undefined;
  readonly inbox: Inbox;
  readonly controller: AbortController;
  /** Stops routing notifications and following the caller's signal. */
  readonly release: () => void;
}

/**
 * Starts an attempt on `client`, resuming from `resumeToken` when given.
 * Throws `RESUME_NOT_SUPPORTED` when a resume is asked of a server without
 * the extension.
 */
export function startAttempt(client: ExtendedClient, request: CallRequest, resumeToken: string | undefined): Attempt {
  const { name, args, callOptions, operationId, signal } = request;
  const negotiated = client.negotiated(STREAMING_ID);
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
  const table = negotiated === undefined ? undefined : routeTable(client, negotiated.id);
  const listener: Listener = (kind, params) => {
    inbox.push({ kind, params });
  };
  table?.set(operationId, listener);
  const meta: Record<string, unknown> = { ...(callOptions.meta ?? {}) };
  if (negotiated !== undefined) {
    const entry: StreamingRequestMeta = { operation_id: operationId };
    if (resumeToken !== undefined) entry.checkpoint_token = resumeToken;
    meta[negotiated.id] = entry;
  }
  client
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
  const release = (): void => {
    table?.delete(operationId);
    signal?.removeEventListener('abort', forward);
  };
  return { client, id: negotiated?.id, inbox, controller, release };
}

function fromMcp(progress: McpProgress): ProgressUpdate {
  const { total, message } = progress;
  return progressUpdateOf(
    undefined,
    { done: progress.progress, total, message },
    progressFraction(progress.progress, total),
  );
}

/** The extension's progress notification, with MCP's numbers when they came; `undefined` (logged) when malformed. */
function progressUpdate(
  client: ExtendedClient,
  operationId: string,
  params: Record<string, unknown>,
  progress: CallProgress,
): ProgressNotification | undefined {
  const payload = parseProgressNotification(params);
  if (payload === undefined) {
    client.composed.logger.warn('streaming: ignored a malformed progress notification', {
      operation_id: operationId,
    });
    return undefined;
  }
  if (payload.checkpoint_token !== undefined) progress.checkpoint = checkpointOf(operationId, payload.checkpoint_token);
  return payload;
}

/** The chunk notification, when it is well formed (else logged) and not one already delivered. */
function chunkUpdate(
  client: ExtendedClient,
  operationId: string,
  params: Record<string, unknown>,
  progress: CallProgress,
): StreamChunk | undefined {
  const chunk = parseStreamChunk(params);
  if (chunk === undefined) {
    client.composed.logger.warn('streaming: ignored a malformed chunk notification', {
      operation_id: operationId,
    });
    return undefined;
  }
  if (chunk.checkpoint_token !== undefined) progress.checkpoint = checkpointOf(operationId, chunk.checkpoint_token);
  const order = acceptChunk(progress.nextSequence, chunk.sequence);
  progress.nextSequence = order.next;
  return order.accept ? chunk : undefined;
}

/**
 * Yields the updates of `attempt` until its result, which it yields last.
 * Throws what made the attempt fail. Ending early, or failing, cancels the call.
 */
export async function* followAttempt(
  attempt: Attempt,
  operationId: string,
  progress: CallProgress,
): AsyncGenerator<StreamUpdate, void, undefined> {
  const { client, id, inbox, controller } = attempt;
  let finished = false;
  let pending: McpProgress | undefined;
  try {
    for (;;) {
      const item = await inbox.next();
      if (item.kind === 'failed') throw item.error;
      if (item.kind === 'mcp') {
        if (id === undefined) {
          yield fromMcp(item);
          continue;
        }
        // The server sends its extension progress right after MCP's: hold this one to merge them.
        if (pending !== undefined) yield fromMcp(pending);
        pending = item;
        progress.lastMcp = item;
        continue;
      }
      if (pending !== undefined && item.kind !== 'progress') {
        yield fromMcp(pending);
        pending = undefined;
      }
      if (item.kind === 'done') {
        finished = true;
        yield { type: 'result', result: item.result, streaming: readResultMeta(item.result, id ?? STREAMING_ID) };
        return;
      }
      if (item.kind === 'progress') {
        const payload = progressUpdate(client, operationId, item.params, progress);
        if (payload === undefined) continue;
        const numbers = pending ?? progress.lastMcp;
        pending = undefined;
        yield progressUpdateOf(payload, { done: numbers?.progress, total: numbers?.total });
        continue;
      }
      const chunk = chunkUpdate(client, operationId, item.params, progress);
      if (chunk !== undefined) yield chunkUpdateOf(chunk);
    }
  } finally {
    attempt.release();
    // The consumer stopped early, or the attempt failed: cancel whatever may still run.
    if (!finished) controller.abort(new Error('streamCall: the iteration ended before the result'));
  }
}

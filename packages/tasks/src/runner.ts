/**
 * Runs a tool call in the background as a task: the handler gets a signal of
 * its own (the request it came in on is answered at once), cancellation
 * reaches it from any instance through the task's store channel, and its
 * outcome settles the record: a result (tool errors included) completes it,
 * a JSON-RPC error fails it (TASK-11, TASK-12).
 */
import { ExtensionError, WireError, toWireError, type CallContext, type Logger, type ToolResult } from '@ext/core';
import { storedResult, type TaskError } from './logic.js';
import { runningTask } from './locals.js';
import { applyEvent, taskChannel, type TaskStoreScope } from './records.js';

/** The JSON-RPC error a failed task carries, for a throw that is one (else `undefined`: a tool error). */
export function jsonRpcErrorOf(error: unknown): TaskError | undefined {
  if (!WireError.isInstance(error) && !ExtensionError.isInstance(error)) return undefined;
  const wire = toWireError(error);
  return { code: wire.code, message: wire.message, ...(wire.data === undefined ? {} : { data: wire.data }) };
}

/** A throw that is not a JSON-RPC error becomes a tool error result, as the SDKs answer it synchronously. */
function toolErrorResult(error: unknown): Record<string, unknown> {
  const message = error instanceof Error ? error.message : String(error);
  return { content: [{ type: 'text', text: message }], isError: true };
}

/** Points the handler's `ctx.signal` at the task's own: the request it arrived on ends before the task does. */
function detach(ctx: CallContext, signal: AbortSignal): void {
  Object.defineProperty(ctx, 'signal', { value: signal, enumerable: true, configurable: true });
}

async function settle(scope: TaskStoreScope, taskId: string, outcome: () => Promise<ToolResult>): Promise<void> {
  try {
    const result = await outcome();
    await applyEvent(scope, taskId, { type: 'complete', result: storedResult(result) });
  } catch (error) {
    const rpc = jsonRpcErrorOf(error);
    if (rpc !== undefined) await applyEvent(scope, taskId, { type: 'fail', error: rpc });
    else await applyEvent(scope, taskId, { type: 'complete', result: toolErrorResult(error) });
  }
}

/**
 * Starts `run` for the stored task `taskId` and returns once cancellation can
 * reach it; the run itself goes on in the background. A cancelled task's
 * late outcome changes nothing: the record is terminal.
 */
export async function startTask(
  scope: TaskStoreScope,
  taskId: string,
  ctx: CallContext,
  run: () => Promise<ToolResult>,
  logger: Logger,
): Promise<void> {
  const controller = new AbortController();
  const unsubscribe = await scope.store.subscribe(taskChannel(scope, taskId), (message) => {
    if (message === 'cancel') controller.abort(new Error(`task ${taskId} was cancelled`));
  });
  detach(ctx, controller.signal);
  runningTask.set(ctx, { taskId, scope, signal: controller.signal });
  void settle(scope, taskId, run)
    .catch((error: unknown) => {
      logger.warn('tasks: could not record the outcome of a task', { taskId, error });
    })
    .finally(() => void unsubscribe());
}

/**
 * Runs a tool call in the background as a task: the handler gets a signal of
 * its own (the request it came in on is answered at once), cancellation
 * reaches it from any instance through the task's store channel, the
 * instance renews its lease on the task while it runs, progress and
 * checkpoints the handler reports go to the task record, and its outcome
 * settles the record: a result (tool errors included) completes it, a
 * JSON-RPC error fails it (TASK-11, TASK-12, TASK-18, TASK-19).
 */
import { ExtensionError, WireError, type CallContext, type Logger, type ToolResult } from '@ext/core';
import { setDetachedRun, toWireError, type DetachedRun } from '@ext/core/kit';
import { storedResult, type TaskError, type TaskRecord } from './logic.js';
import { runningTask, type RunningTask } from './locals.js';
import type { TasksConfig } from './options.js';
import { applyEvent, taskChannel, type TaskStoreScope } from './records.js';
import { runInputRounds } from './rounds.js';

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

/** Records what an execution ended with: a result completes the task, a JSON-RPC error fails it. */
export async function settleTask(scope: TaskStoreScope, taskId: string, outcome: () => Promise<ToolResult>) {
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
 * Cuts the call loose from the request it arrived on, which is answered
 * before the task ends: `ctx.signal` becomes the task's own, and
 * notifications (MCP progress included) go nowhere, as nobody could receive
 * them; what the handler reports reaches `tasks/get` through the record.
 */
function detach(ctx: CallContext, signal: AbortSignal): void {
  const field = { enumerable: true, configurable: true };
  Object.defineProperty(ctx, 'signal', { value: signal, ...field });
  Object.defineProperty(ctx, 'notify', { value: () => Promise.resolve(), ...field });
  Object.defineProperty(ctx, 'progressToken', { value: undefined, ...field });
}

/** Where the handler's progress and checkpoints go (core's detached run, read by `@ext/streaming`). */
function detachedRun(scope: TaskStoreScope, record: TaskRecord): DetachedRun {
  const taskId = record.taskId;
  return {
    id: taskId,
    resumeState: record.checkpoint,
    async progress({ message, ...progress }) {
      await applyEvent(scope, taskId, { type: 'progress', message, progress });
    },
    async checkpoint(state) {
      await applyEvent(scope, taskId, { type: 'checkpoint', state });
    },
  };
}

/**
 * Renews this instance's lease on the task every third of the lease; when
 * another instance took it (this one was presumed dead), aborts the run, so
 * one execution at most goes on.
 */
function keepLease(config: TasksConfig, task: RunningTask, abort: (reason: Error) => void, logger: Logger) {
  const renew = async () => {
    const until = config.now() + config.leaseMs;
    const record = await applyEvent(task.scope, task.taskId, { type: 'claim', owner: config.instance, until });
    if (record !== undefined && record.lease?.owner !== config.instance) {
      abort(new Error(`task ${task.taskId} is now run by another instance`));
    }
  };
  const timer = setInterval(
    () => {
      renew().catch((error: unknown) => {
        logger.warn('tasks: could not renew the lease of a task', { taskId: task.taskId, error });
      });
    },
    Math.max(1, Math.floor(config.leaseMs / 3)),
  );
  timer.unref();
  return () => {
    clearInterval(timer);
  };
}

/**
 * Starts `next` for the stored task `record` and returns once cancellation
 * can reach it; the run itself goes on in the background. A cancelled task's
 * late outcome changes nothing: the record is terminal.
 */
export async function startTask(
  config: TasksConfig,
  scope: TaskStoreScope,
  record: TaskRecord,
  ctx: CallContext,
  next: () => Promise<ToolResult>,
): Promise<void> {
  const { taskId } = record;
  const controller = new AbortController();
  const abort = (reason: Error) => {
    controller.abort(reason);
  };
  const unsubscribe = await scope.store.subscribe(taskChannel(scope, taskId), (message) => {
    if (message === 'cancel') abort(new Error(`task ${taskId} was cancelled`));
  });
  const task: RunningTask = { taskId, scope, signal: controller.signal };
  detach(ctx, controller.signal);
  runningTask.set(ctx, task);
  setDetachedRun(ctx, detachedRun(scope, record));
  const stopLease = keepLease(config, task, abort, ctx.logger);
  void settleTask(scope, taskId, () => runInputRounds(task, ctx, next))
    .catch((error: unknown) => {
      ctx.logger.warn('tasks: could not record the outcome of a task', { taskId, error });
    })
    .finally(() => {
      stopLease();
      void unsubscribe();
    });
}

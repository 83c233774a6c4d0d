/**
 * Input during a task (SEP-2663 `input_required`): the handler names what it
 * needs, the task shows it in `inputRequests` on `tasks/get`, and the call
 * resumes once `tasks/update` has answered every key it asked for.
 */
import { ConfigurationError, type RequestContext } from '@ext/core';
import { isTerminal, type TaskRecord } from './logic.js';
import { runningTask, type RunningTask } from './locals.js';
import { applyEvent, loadRecord, signalTask, taskChannel, type TaskStoreScope } from './records.js';

/** A server-to-client request as `inputRequests` carries it (e.g. `elicitation/create` and its params). */
export interface TaskInputRequest {
  readonly method: string;
  readonly params?: Record<string, unknown> | undefined;
}

function answered(record: TaskRecord | undefined, keys: readonly string[]): Record<string, unknown> | undefined {
  const responses = record?.inputResponses ?? {};
  if (!keys.every((key) => key in responses)) return undefined;
  return Object.fromEntries(keys.map((key) => [key, responses[key]]));
}

async function waitForAnswers(task: RunningTask, keys: readonly string[]): Promise<Record<string, unknown>> {
  const { scope, taskId, signal } = task;
  return new Promise((resolve, reject) => {
    let done = false;
    let unsubscribe: (() => Promise<void>) | undefined;
    const finish = (outcome: () => void) => {
      if (done) return;
      done = true;
      signal.removeEventListener('abort', onAbort);
      void unsubscribe?.();
      outcome();
    };
    const onAbort = () => {
      finish(() => {
        reject(signal.reason instanceof Error ? signal.reason : new Error('cancelled'));
      });
    };
    const check = () =>
      loadRecord(scope, taskId).then(
        (record) => {
          const responses = answered(record, keys);
          if (responses !== undefined)
            finish(() => {
              resolve(responses);
            });
          else if (record === undefined || isTerminal(record.status)) onAbort();
        },
        (error: unknown) => {
          finish(() => {
            reject(error instanceof Error ? error : new Error(String(error)));
          });
        },
      );
    signal.addEventListener('abort', onAbort, { once: true });
    scope.store
      .subscribe(taskChannel(scope, taskId), () => void check())
      .then((stop) => {
        unsubscribe = stop;
        if (done) void stop();
        void check();
      }, onAbort);
  });
}

/**
 * Asks the client for input while running as a task: the task goes to
 * `input_required` with `requests` (keys unique over the task's lifetime,
 * TASK-10), and this resolves with the answers once `tasks/update` has
 * delivered one for every key. Rejects when the task is cancelled.
 */
export async function requestTaskInput(
  ctx: Pick<RequestContext, 'locals'>,
  requests: Readonly<Record<string, TaskInputRequest>>,
): Promise<Record<string, unknown>> {
  const task = runningTask.get(ctx);
  if (task === undefined) {
    throw new ConfigurationError('NOT_A_TASK', 'requestTaskInput: this tool call is not running as a task');
  }
  return askTaskInput(task, requests);
}

/** {@link requestTaskInput} for a task already at hand (the input rounds of the pipeline use it too). */
export async function askTaskInput(
  task: RunningTask,
  requests: Readonly<Record<string, TaskInputRequest>>,
): Promise<Record<string, unknown>> {
  const keys = Object.keys(requests);
  const wire = Object.fromEntries(
    Object.entries(requests).map(([key, request]) => [key, { method: request.method, params: request.params ?? {} }]),
  );
  const record = await applyEvent(task.scope, task.taskId, { type: 'input', requests: wire });
  if (record?.status === 'input_required' && keys.some((key) => !(key in (record.inputRequests ?? {})))) {
    throw new ConfigurationError(
      'INPUT_KEY_REUSED',
      `requestTaskInput: keys must be new for this task: ${keys.join(', ')}`,
    );
  }
  const responses = await waitForAnswers(task, keys);
  await applyEvent(task.scope, task.taskId, { type: 'consume', keys });
  return responses;
}

/** Tells the instance running `taskId` that input arrived. */
export function announceInput(scope: TaskStoreScope, taskId: string): Promise<void> {
  return signalTask(scope, taskId, 'input');
}

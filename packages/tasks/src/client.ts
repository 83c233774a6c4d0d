/**
 * The client half of `@ext/tasks` (the `./client` entry): the descriptor
 * that declares the extension, and helpers that call a tool, poll a task to
 * a terminal status, answer its input and cancel it. The helpers take any
 * requester with `request(method, params)`: an extended client, or a
 * JSON-RPC link of the application's own.
 */
import { lazyValidator } from '@ext/core/kit';
import { type ClientExtension } from '@ext/core';
import {
  CreateTaskResultSchema,
  DetailedTaskSchema,
  TASKS_ALIAS_ID,
  TASKS_ID,
  TASKS_METHODS,
  TASKS_PACKAGE,
  TASKS_OFFICIAL_SETTINGS,
  TASKS_WIRE_VERSION,
  TasksSettingsSchema,
  type CreateTaskResult,
  type DetailedTask,
} from './schema.js';

/** What the helpers send requests through (an `ExtendedClient` is one). */
export interface TaskRequester {
  request(method: string, params?: Record<string, unknown>): Promise<Record<string, unknown>>;
}

/** The answer to a tool call: a task handle, or the result itself when the server answered at once. */
export type ToolCallOutcome =
  | { readonly kind: 'task'; readonly task: CreateTaskResult }
  | { readonly kind: 'result'; readonly result: Record<string, unknown> };

export interface PollOptions {
  /** Stops polling (the task goes on; cancel it with `cancelTask`). */
  readonly signal?: AbortSignal | undefined;
  /** The shortest wait between polls; the server's `pollIntervalMs` is honoured when longer. Default 0. */
  readonly minIntervalMs?: number | undefined;
  /** Each non-terminal status seen, e.g. to answer `input_required` with `updateTask`. */
  readonly onStatus?: ((task: DetailedTask) => void | Promise<void>) | undefined;
}

const TERMINAL = new Set(['completed', 'failed', 'cancelled']);
const createResult = lazyValidator(CreateTaskResultSchema);
const detailed = lazyValidator(DetailedTaskSchema);

/**
 * The client half: declares `io.modelcontextprotocol/tasks` (the empty object
 * the extension defines) in the client's capabilities, per request on
 * 2026-07-28. A server's settings for it are accepted empty or versioned.
 */
export function tasksClient(): ClientExtension {
  return {
    side: 'client',
    name: TASKS_PACKAGE,
    ids: [TASKS_ALIAS_ID, TASKS_ID],
    reservedAliases: [TASKS_ID],
    settings: { version: TASKS_WIRE_VERSION },
    aliasSettings: TASKS_OFFICIAL_SETTINGS,
    peerSettings: TasksSettingsSchema,
  };
}

function invalid(what: string, value: unknown): Error {
  return new TypeError(`@ext/tasks: invalid ${what} from the server: ${JSON.stringify(value)}`);
}

/** Calls a tool; the server decides whether to answer with a task (`resultType: "task"`) or the result. */
export async function callTool(
  requester: TaskRequester,
  name: string,
  args: Record<string, unknown> = {},
): Promise<ToolCallOutcome> {
  const answer = await requester.request('tools/call', { name, arguments: args });
  if (answer.resultType !== 'task') return { kind: 'result', result: answer };
  if (!createResult().Check(answer)) throw invalid('CreateTaskResult', answer);
  return { kind: 'task', task: answer };
}

/**
 * A completed task's `result` with its `resultType`: servers of this package
 * before 0.2 sent none, and a result without one is read as `"complete"`
 * (2026-07-28 `Result`), so callers see one shape whichever server answered.
 */
function withResultType(task: DetailedTask): DetailedTask {
  if (task.result === undefined || task.result.resultType !== undefined) return task;
  return { ...task, result: { ...task.result, resultType: 'complete' } };
}

/** The task as it stands (`tasks/get`); a completed task's `result` always carries `resultType`. */
export async function getTask(requester: TaskRequester, taskId: string): Promise<DetailedTask> {
  const answer = await requester.request(TASKS_METHODS.get, { taskId });
  if (!detailed().Check(answer)) throw invalid('task', answer);
  return withResultType(answer);
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(done, ms);
    function done() {
      signal?.removeEventListener('abort', abort);
      resolve();
    }
    function abort() {
      clearTimeout(timer);
      reject(signal?.reason instanceof Error ? signal.reason : new Error('polling stopped'));
    }
    if (signal?.aborted === true) abort();
    else signal?.addEventListener('abort', abort, { once: true });
  });
}

/** Polls `tasks/get` until the task is `completed`, `failed` or `cancelled`, and returns it. */
export async function pollTask(
  requester: TaskRequester,
  taskId: string,
  options: PollOptions = {},
): Promise<DetailedTask> {
  for (;;) {
    options.signal?.throwIfAborted();
    const task = await getTask(requester, taskId);
    if (TERMINAL.has(task.status)) return task;
    await options.onStatus?.(task);
    await sleep(Math.max(options.minIntervalMs ?? 0, task.pollIntervalMs ?? 0), options.signal);
  }
}

/** Answers outstanding `inputRequests` by key (`tasks/update`); the task resumes once all are answered. */
export async function updateTask(
  requester: TaskRequester,
  taskId: string,
  inputResponses: Record<string, unknown>,
): Promise<void> {
  await requester.request(TASKS_METHODS.update, { taskId, inputResponses });
}

/** Asks the server to cancel the task (`tasks/cancel`); cancellation is cooperative and eventual. */
export async function cancelTask(requester: TaskRequester, taskId: string): Promise<void> {
  await requester.request(TASKS_METHODS.cancel, { taskId });
}

export { TASKS_ID };
export type { CreateTaskResult, DetailedTask };

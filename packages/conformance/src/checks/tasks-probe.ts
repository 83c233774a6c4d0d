/**
 * What the tasks checks do with a server: find the tool that runs as a
 * task, create a task over raw requests, poll it to its end, and read
 * refusals.
 */
import { isRecord } from '@ext/core/kit';
import { describe, ensure } from '../assert.js';
import type { Probe } from '../probe.js';
import { sampleArguments } from '../tools.js';
import type { CheckContext, ListedTool, ServerFacts } from '../types.js';
import {
  answerOf,
  describeAnswer,
  detailedTaskProblems,
  isTaskHandle,
  TERMINAL_STATUSES,
  type Answer,
} from './tasks-wire.js';

/** The official identifier (SEP-2663). */
export const TASKS_ID = 'io.modelcontextprotocol/tasks';
/** The identifier the `@ext/tasks` server advertises beside the official one. */
/** The alias `@ext/tasks` advertises beside it. */
export const TASKS_ALIAS_ID = 'io.github.mcp-ext/tasks';

export const TASK_METHODS = ['tasks/get', 'tasks/update', 'tasks/cancel'] as const;
/** How many times the kit polls a task before it gives up on seeing it finish. */
const MAX_POLLS = 300;
/** The kit honours the server's `pollIntervalMs`, up to this. */
const MAX_POLL_INTERVAL_MS = 5000;

interface TaskTool {
  readonly tool: ListedTool;
  readonly args: Record<string, unknown>;
  /** `execution.taskSupport` as `tools/list` published it, if it did. */
  readonly support: string | undefined;
}

/** `tools/list` pages the kit reads at most, looking for `execution.taskSupport`. */
const MAX_PAGES = 100;

/** `execution.taskSupport` of each tool that publishes it, by name, from one page of a raw `tools/list`. */
function supportOnPage(page: Record<string, unknown>): [string, string][] {
  const tools = Array.isArray(page.tools) ? (page.tools as unknown[]) : [];
  return tools.flatMap((tool): [string, string][] => {
    if (!isRecord(tool) || typeof tool.name !== 'string' || !isRecord(tool.execution)) return [];
    const support = tool.execution.taskSupport;
    return typeof support === 'string' ? [[tool.name, support]] : [];
  });
}

/** Reads `tools/list` raw: the SDK client drops `execution` from the tools of 2026-07-28. */
async function readPublishedSupport(probe: Probe): Promise<ReadonlyMap<string, string>> {
  const support = new Map<string, string>();
  let cursor: unknown;
  for (let page = 0; page < MAX_PAGES; page += 1) {
    const answer = await probe.rawRequest('tools/list', typeof cursor === 'string' ? { cursor } : {});
    for (const [name, value] of supportOnPage(answer)) support.set(name, value);
    cursor = answer.nextCursor;
    if (typeof cursor !== 'string') break;
  }
  return support;
}

const published = new WeakMap<ServerFacts, Promise<ReadonlyMap<string, string>>>();

/** The run's `execution.taskSupport` by tool name, read once. */
export function publishedSupport(ctx: CheckContext): Promise<ReadonlyMap<string, string>> {
  let support = published.get(ctx.server);
  if (support === undefined) {
    support = ctx.connect().then(readPublishedSupport);
    published.set(ctx.server, support);
  }
  return support;
}

/** The tool the checks run as a task: the one named with `--task-tool`, else the first that publishes task support. */
export async function taskTool(ctx: CheckContext): Promise<TaskTool> {
  const support = await publishedSupport(ctx);
  const named = ctx.taskTool;
  const tool =
    named === undefined
      ? ctx.server.tools.find((entry) => ['optional', 'required'].includes(support.get(entry.name) ?? ''))
      : ctx.server.tools.find((entry) => entry.name === named);
  if (tool === undefined) {
    return ctx.skip(
      named === undefined
        ? 'no tool publishes execution.taskSupport: name a tool that runs as a task with --task-tool'
        : `--task-tool ${named}: tools/list has no such tool`,
    );
  }
  const args = sampleArguments(tool);
  if (args === undefined) return ctx.skip(`${tool.name}: the kit cannot build arguments from its input schema`);
  return { tool, args, support: support.get(tool.name) };
}

/** Ends the check as skipped unless the kit may execute `tool` (read-only, or effects allowed). */
export function mayExecute(ctx: CheckContext, tool: ListedTool): void {
  if (tool.annotations?.readOnlyHint !== true) ctx.requireEffects();
}

export function requireModern(ctx: CheckContext): void {
  if (ctx.server.era !== 'modern')
    ctx.skip('tasks exist on the 2026-07-28 revision only: run with --protocol-version 2026-07-28');
}

export function callParams(task: TaskTool): Record<string, unknown> {
  return { name: task.tool.name, arguments: task.args };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** A task the kit created: the handle `tools/call` answered, and the `tasks/get` sent as soon as it arrived. */
interface CreatedTask {
  readonly task: TaskTool;
  readonly probe: Probe;
  readonly handle: Record<string, unknown>;
  readonly taskId: string | undefined;
  readonly firstGet: Answer | undefined;
}

/** Calls the task tool declaring the extension; skips when the server answers synchronously. */
export async function createTask(ctx: CheckContext): Promise<CreatedTask> {
  requireModern(ctx);
  const task = await taskTool(ctx);
  mayExecute(ctx, task.tool);
  const probe = await ctx.connect();
  const answer = await answerOf(probe, 'tools/call', callParams(task));
  if ('error' in answer) throw answer.error;
  if (!isTaskHandle(answer.result)) {
    return ctx.skip(
      `${task.tool.name} answered synchronously a client that declares the extension: name a tool that runs as a task with --task-tool`,
    );
  }
  const taskId = typeof answer.result.taskId === 'string' ? answer.result.taskId : undefined;
  const firstGet = taskId === undefined ? undefined : await answerOf(probe, 'tasks/get', { taskId });
  return { task, probe, handle: answer.result, taskId, firstGet };
}

const created = new WeakMap<ServerFacts, Promise<CreatedTask>>();

/** The run's one task, shared by the checks that read it. */
export function sharedTask(ctx: CheckContext): Promise<CreatedTask> {
  let task = created.get(ctx.server);
  if (task === undefined) {
    task = createTask(ctx);
    created.set(ctx.server, task);
  }
  return task;
}

/** The task's id, or a failure: without one nothing can be asked about it. */
export function idOf(task: CreatedTask): string {
  ensure(task.taskId !== undefined, `the task handle carries no taskId: ${describe(task.handle)}`);
  return task.taskId;
}

/** A result, or a failure naming what came back instead. */
export function resultOf(answer: Answer | undefined, what: string): Record<string, unknown> {
  ensure(answer !== undefined && 'result' in answer, `${what} answered ${answer ? describeAnswer(answer) : 'nothing'}`);
  return answer.result;
}

/** Polls `tasks/get` until the task is terminal, checking every answer; cancels it if it waits for input. */
export async function pollToEnd(ctx: CheckContext, task: CreatedTask): Promise<Record<string, unknown>> {
  const taskId = idOf(task);
  const interval = Math.min(Number(task.handle.pollIntervalMs) || 1000, MAX_POLL_INTERVAL_MS);
  let answer = task.firstGet;
  for (let poll = 1; poll <= MAX_POLLS; poll += 1) {
    const current = resultOf(answer, `tasks/get (poll ${String(poll)})`);
    const problems = detailedTaskProblems(current, taskId);
    ensure(problems.length === 0, `tasks/get (poll ${String(poll)}): ${problems.join('; ')}`);
    if (TERMINAL_STATUSES.includes(String(current.status))) return current;
    if (current.status === 'input_required') {
      await answerOf(task.probe, 'tasks/cancel', { taskId });
      return ctx.skip(`${task.task.tool.name} asked for input (input_required), which the kit does not answer`);
    }
    await sleep(interval);
    answer = await answerOf(task.probe, 'tasks/get', { taskId });
  }
  await answerOf(task.probe, 'tasks/cancel', { taskId });
  return ctx.skip(`the task did not finish within ${String(MAX_POLLS)} polls`);
}

/** Whether `answer` is the -32021 of TASK-2, naming the extension the client must declare. */
export function missingCapabilityProblem(answer: Answer, what: string): string | undefined {
  if (!('error' in answer) || answer.error.code !== -32021)
    return `${what} answered ${describeAnswer(answer)}, not -32021`;
  const data = answer.error.data;
  const required = isRecord(data) && isRecord(data.requiredCapabilities) ? data.requiredCapabilities.extensions : {};
  return isRecord(required) && isRecord(required[TASKS_ID])
    ? undefined
    : `${what}: -32021 data is ${describe(data)}, not { requiredCapabilities: { extensions: { "${TASKS_ID}": {} } } }`;
}

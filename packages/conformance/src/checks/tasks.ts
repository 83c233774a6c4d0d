/**
 * The tasks suite: the checks of a server that advertises the official Tasks
 * extension, `io.modelcontextprotocol/tasks` (SEP-2663, packages/tasks/SPEC.md),
 * made over raw requests since the SDK client refuses a task handle.
 */
import { randomUUID } from 'node:crypto';
import { isRecord } from '@ext/core';
import { describe, ensure } from '../assert.js';
import type { Probe } from '../probe.js';
import { sampleArguments } from '../tools.js';
import type { CheckContext, ExtensionSuite, ListedTool, ServerFacts } from '../types.js';
import {
  ackProblems,
  answerOf,
  createTaskProblems,
  describeAnswer,
  detailedTaskProblems,
  isTaskHandle,
  TERMINAL_STATUSES,
  type Answer,
} from './tasks-wire.js';

export const TASKS_ID = 'io.modelcontextprotocol/tasks';
/** The identifier the `@ext/tasks` server advertises beside the official one. */
export const TASKS_ALIAS_ID = 'io.github.mcp-ext/tasks';

const TASK_METHODS = ['tasks/get', 'tasks/update', 'tasks/cancel'] as const;
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
function publishedSupport(ctx: CheckContext): Promise<ReadonlyMap<string, string>> {
  let support = published.get(ctx.server);
  if (support === undefined) {
    support = ctx.connect().then(readPublishedSupport);
    published.set(ctx.server, support);
  }
  return support;
}

/** The tool the checks run as a task: the one named with `--task-tool`, else the first that publishes task support. */
async function taskTool(ctx: CheckContext): Promise<TaskTool> {
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
function mayExecute(ctx: CheckContext, tool: ListedTool): void {
  if (tool.annotations?.readOnlyHint !== true) ctx.requireEffects();
}

function requireModern(ctx: CheckContext): void {
  if (ctx.server.era !== 'modern')
    ctx.skip('tasks exist on the 2026-07-28 revision only: run with --protocol-version 2026-07-28');
}

function callParams(task: TaskTool): Record<string, unknown> {
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
async function createTask(ctx: CheckContext): Promise<CreatedTask> {
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
function sharedTask(ctx: CheckContext): Promise<CreatedTask> {
  let task = created.get(ctx.server);
  if (task === undefined) {
    task = createTask(ctx);
    created.set(ctx.server, task);
  }
  return task;
}

/** The task's id, or a failure: without one nothing can be asked about it. */
function idOf(task: CreatedTask): string {
  ensure(task.taskId !== undefined, `the task handle carries no taskId: ${describe(task.handle)}`);
  return task.taskId;
}

/** A result, or a failure naming what came back instead. */
function resultOf(answer: Answer | undefined, what: string): Record<string, unknown> {
  ensure(answer !== undefined && 'result' in answer, `${what} answered ${answer ? describeAnswer(answer) : 'nothing'}`);
  return answer.result;
}

/** Polls `tasks/get` until the task is terminal, checking every answer; cancels it if it waits for input. */
async function pollToEnd(ctx: CheckContext, task: CreatedTask): Promise<Record<string, unknown>> {
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
function missingCapabilityProblem(answer: Answer, what: string): string | undefined {
  if (!('error' in answer) || answer.error.code !== -32021)
    return `${what} answered ${describeAnswer(answer)}, not -32021`;
  const data = answer.error.data;
  const required = isRecord(data) && isRecord(data.requiredCapabilities) ? data.requiredCapabilities.extensions : {};
  return isRecord(required) && isRecord(required[TASKS_ID])
    ? undefined
    : `${what}: -32021 data is ${describe(data)}, not { requiredCapabilities: { extensions: { "${TASKS_ID}": {} } } }`;
}

const capability = {
  id: 'tasks/capability',
  requirement: 'TASK-1',
  level: 'MUST',
  title: `the server advertises ${TASKS_ID} with an object as its settings`,
  run(ctx) {
    const settings = ctx.server.extensions[TASKS_ID];
    ensure(isRecord(settings), `capabilities.extensions["${TASKS_ID}"] is ${describe(settings)}`);
    return Promise.resolve();
  },
} satisfies ExtensionSuite['checks'][number];

const synchronousOtherwise = {
  id: 'tasks/synchronous-otherwise',
  requirement: 'TASK-1',
  level: 'MUST',
  title:
    'a client that does not declare the extension (or any client on 2025-11-25) gets a synchronous answer or -32021, never a task',
  async run(ctx) {
    const task = await taskTool(ctx);
    const modern = ctx.server.era === 'modern';
    // A tool that requires a task is refused before it runs (TASK-2); any other runs synchronously.
    if (!(modern && task.support === 'required')) mayExecute(ctx, task.tool);
    const probe = await ctx.connect(modern ? {} : undefined);
    const answer = await answerOf(probe, 'tools/call', callParams(task));
    if ('error' in answer) {
      if (answer.error.code === -32021) return;
      throw answer.error;
    }
    ensure(!isTaskHandle(answer.result), `${task.tool.name} answered with a task: ${describe(answer.result)}`);
  },
} satisfies ExtensionSuite['checks'][number];

const undeclaredRefused = {
  id: 'tasks/undeclared-refused',
  requirement: 'TASK-2',
  level: 'MUST',
  title: `tasks/get, tasks/update and tasks/cancel (and a tool that requires a task) from a client that does not declare the extension get -32021 naming ${TASKS_ID}`,
  async run(ctx) {
    requireModern(ctx);
    const probe = await ctx.connect({});
    const problems: string[] = [];
    for (const method of TASK_METHODS) {
      const answer = await answerOf(probe, method, { taskId: randomUUID(), inputResponses: {} });
      const problem = missingCapabilityProblem(answer, method);
      if (problem !== undefined) problems.push(problem);
    }
    const support = await publishedSupport(ctx);
    const required = ctx.server.tools.find((tool) => support.get(tool.name) === 'required');
    const args = required === undefined ? undefined : sampleArguments(required);
    if (required !== undefined && args !== undefined) {
      const answer = await answerOf(probe, 'tools/call', { name: required.name, arguments: args });
      const problem = missingCapabilityProblem(answer, `tools/call ${required.name}`);
      if (problem !== undefined) problems.push(problem);
    }
    ensure(problems.length === 0, problems.join('; '));
  },
} satisfies ExtensionSuite['checks'][number];

const createShape = {
  id: 'tasks/create-shape',
  requirement: 'TASK-3',
  level: 'MUST',
  title:
    'a call that becomes a task is answered with a flat CreateTaskResult: resultType "task", taskId, status "working", dates, integer ttlMs and pollIntervalMs, no task wrapper, no result, error or inputRequests',
  async run(ctx) {
    const task = await sharedTask(ctx);
    const problems = createTaskProblems(task.handle);
    ensure(problems.length === 0, `${task.task.tool.name}: ${problems.join('; ')}`);
  },
} satisfies ExtensionSuite['checks'][number];

const readableAtOnce = {
  id: 'tasks/readable-at-once',
  requirement: 'TASK-4',
  level: 'MUST',
  title: 'a tasks/get sent as soon as the task handle arrives finds the task',
  async run(ctx) {
    const task = await sharedTask(ctx);
    const taskId = idOf(task);
    const got = resultOf(task.firstGet, `tasks/get sent at once for ${taskId}`);
    ensure(got.taskId === taskId, `tasks/get answered taskId ${describe(got.taskId)}, expected "${taskId}"`);
  },
} satisfies ExtensionSuite['checks'][number];

const completedResult = {
  id: 'tasks/completed-result',
  requirement: 'TASK-6',
  level: 'MUST',
  title:
    'tasks/get answers resultType "complete" and the task, with result (the CallToolResult) exactly when completed, error when failed, inputRequests when input_required',
  async run(ctx) {
    const task = await sharedTask(ctx);
    const last = await pollToEnd(ctx, task);
    ensure(TERMINAL_STATUSES.includes(String(last.status)), `the task ended ${describe(last.status)}`);
  },
} satisfies ExtensionSuite['checks'][number];

const unknownTask = {
  id: 'tasks/unknown-task',
  requirement: 'TASK-8',
  level: 'MUST',
  title: 'tasks/get, tasks/update and tasks/cancel of a task that does not exist all get the same -32602 error',
  async run(ctx) {
    requireModern(ctx);
    const probe = await ctx.connect();
    const taskId = randomUUID();
    const messages = new Set<string>();
    for (const method of TASK_METHODS) {
      const answer = await answerOf(probe, method, { taskId, inputResponses: {} });
      ensure(
        'error' in answer && answer.error.code === -32602,
        `${method} of unknown task ${taskId} answered ${describeAnswer(answer)}, not -32602`,
      );
      messages.add(answer.error.message);
    }
    ensure(messages.size === 1, `the three methods answer different messages: ${[...messages].join(' / ')}`);
  },
} satisfies ExtensionSuite['checks'][number];

const cancel = {
  id: 'tasks/cancel',
  requirement: 'TASK-16',
  level: 'MUST',
  title:
    'tasks/cancel answers { resultType: "complete" } and leaves the task terminal; a second cancel answers alike and changes nothing',
  async run(ctx) {
    const task = await createTask(ctx);
    const taskId = idOf(task);
    const ack = (answer: Answer, what: string) => {
      const problems = ackProblems(resultOf(answer, what));
      ensure(problems.length === 0, `${what}: ${problems.join('; ')}`);
    };
    ack(await answerOf(task.probe, 'tasks/cancel', { taskId }), 'tasks/cancel');
    const after = resultOf(await answerOf(task.probe, 'tasks/get', { taskId }), 'tasks/get after tasks/cancel');
    ensure(
      TERMINAL_STATUSES.includes(String(after.status)),
      `after tasks/cancel the task is ${describe(after.status)}, not terminal`,
    );
    ack(await answerOf(task.probe, 'tasks/cancel', { taskId }), `a second tasks/cancel (task ${String(after.status)})`);
    const again = resultOf(await answerOf(task.probe, 'tasks/get', { taskId }), 'tasks/get after a second cancel');
    ensure(
      again.status === after.status,
      `a second cancel moved the task from ${describe(after.status)} to ${describe(again.status)}`,
    );
  },
} satisfies ExtensionSuite['checks'][number];

const removedMethods = {
  id: 'tasks/removed-methods',
  requirement: 'TASK-13',
  level: 'MUST',
  title: 'tasks/result and tasks/list, which SEP-2663 removed, are answered -32601',
  async run(ctx) {
    const probe = await ctx.connect();
    for (const method of ['tasks/result', 'tasks/list']) {
      const answer = await answerOf(probe, method, { taskId: randomUUID() });
      ensure('error' in answer && answer.error.code === -32601, `${method} answered ${describeAnswer(answer)}`);
    }
  },
} satisfies ExtensionSuite['checks'][number];

const invalidParams = {
  id: 'tasks/invalid-params',
  requirement: 'TASK-14',
  level: 'MUST',
  title: 'a taskId that is not a string is refused with -32602 and a structured invalid_input error naming taskId',
  async run(ctx) {
    requireModern(ctx);
    const probe = await ctx.connect();
    const answer = await answerOf(probe, 'tasks/get', { taskId: 42 });
    ensure('error' in answer && answer.error.code === -32602, `tasks/get answered ${describeAnswer(answer)}`);
    const data = answer.error.data;
    ctx.expectSeedShape(data, 'error', undefined, 'the error data of tasks/get');
    const details = isRecord(data) && isRecord(data.details) ? data.details : {};
    ensure(
      isRecord(data) &&
        data.category === 'invalid_input' &&
        details.field === 'taskId' &&
        details.pointer === '/taskId',
      `the error data is ${describe(data)}, not invalid_input naming taskId at /taskId`,
    );
  },
} satisfies ExtensionSuite['checks'][number];

/** `@ext/tasks`, the official Tasks extension (SPEC: packages/tasks/SPEC.md). */
export const tasksSuite: ExtensionSuite = {
  extension: 'tasks',
  // The official identifier last: it is the one tested when the server advertises both.
  ids: [TASKS_ALIAS_ID, TASKS_ID],
  spec: 'packages/tasks/SPEC.md',
  checks: [
    capability,
    synchronousOtherwise,
    undeclaredRefused,
    createShape,
    readableAtOnce,
    completedResult,
    unknownTask,
    cancel,
    removedMethods,
    invalidParams,
  ],
};

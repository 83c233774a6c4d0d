/**
 * The tasks suite: the checks of a server that advertises the official Tasks
 * extension, `io.modelcontextprotocol/tasks` (SEP-2663, packages/tasks/SPEC.md),
 * made over raw requests since the SDK client refuses a task handle.
 */
import { randomUUID } from 'node:crypto';
import { isRecord } from '@ext/core/kit';
import { describe, ensure } from '../assert.js';
import { sampleArguments } from '../tools.js';
import type { ExtensionSuite } from '../types.js';
import {
  ackProblems,
  answerOf,
  createTaskProblems,
  describeAnswer,
  isTaskHandle,
  TERMINAL_STATUSES,
  type Answer,
} from './tasks-wire.js';

export { TASKS_ALIAS_ID, TASKS_ID } from './tasks-probe.js';
import {
  TASKS_ALIAS_ID,
  TASKS_ID,
  TASK_METHODS,
  publishedSupport,
  taskTool,
  mayExecute,
  requireModern,
  callParams,
  createTask,
  sharedTask,
  idOf,
  resultOf,
  pollToEnd,
  missingCapabilityProblem,
} from './tasks-probe.js';

const capability = {
  id: 'tasks/capability',
  requirement: 'TASK-1',
  level: 'MUST',
  title: `the server advertises ${TASKS_ID} with the empty object the extension defines as its settings`,
  run(ctx) {
    const settings = ctx.server.extensions[TASKS_ID];
    // The official client package reads anything else (a version included) as no Tasks support.
    ensure(
      isRecord(settings) && Object.keys(settings).length === 0,
      `capabilities.extensions["${TASKS_ID}"] is ${describe(settings)}, not {}`,
    );
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

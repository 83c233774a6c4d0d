/**
 * The tool-approval suite: the checks of a server that advertises SEP-2848
 * tool approval (`io.modelcontextprotocol/tool-approval`, or our
 * `io.github.mcp-ext/tool-approval`), packages/confirmation/SPEC.md §5a: a
 * call held for an operator becomes a waiting task for a client that
 * declares Tasks, and `CONFIRMATION_PENDING` for one that does not. No
 * check needs anyone to decide: nothing the kit asks for is ever approved,
 * so on a conforming server nothing runs (these are refusal paths, run
 * without `--allow-effects`). The kit cancels every task it creates; the
 * approval requests its plain calls open stay pending until they expire.
 */
import { isRecord } from '@ext/core/kit';
import { describe, ensure } from '../assert.js';
import type { CheckContext, ExtensionSuite } from '../types.js';
import { TASKS_ID } from './tasks-probe.js';
import { answerOf, describeAnswer, TERMINAL_STATUSES } from './tasks-wire.js';
import {
  answered,
  approvalIdOf,
  discovery,
  heldCall,
  sleep,
  structuredError,
  taskOf,
  TOOL_APPROVAL_ID,
  TOOL_APPROVAL_OWN_ID,
  withApprovalTask,
  type ApprovalTask,
} from './tool-approval-probe.js';

/** How long after `tasks/cancel` the kit reads the task again (the cancellation fence). */
const FENCE_MS = 300;
/** How long after the handle a `working` task is read again: it must not have run on its own. */
const STILL_WORKING_MS = 300;
/** How long the kit waits for a waiting task's `statusMessage`. */
const MESSAGE_WITHIN_MS = 2000;

export { TOOL_APPROVAL_ID, TOOL_APPROVAL_OWN_ID } from './tool-approval-probe.js';

const tasksAdvertised = {
  id: 'tool-approval/tasks-advertised',
  requirement: 'SEP-2848',
  level: 'MUST',
  title: `a server that advertises tool approval also advertises ${TASKS_ID}, which the draft builds on`,
  run(ctx) {
    const settings = ctx.server.extensions[TASKS_ID];
    ensure(
      isRecord(settings),
      `${ctx.id ?? TOOL_APPROVAL_ID} is advertised but capabilities.extensions["${TASKS_ID}"] is ${describe(settings)}`,
    );
    return Promise.resolve();
  },
} satisfies ExtensionSuite['checks'][number];

const taskAtOnce = {
  id: 'tool-approval/task-at-once',
  requirement: 'CONF-28',
  level: 'MUST',
  title:
    'a gated call from a client that declares Tasks (2026-07-28) is answered at once with a CreateTaskResult, status "working"',
  async run(ctx) {
    const { found, answers } = await discovery(ctx);
    ensure(
      found !== undefined,
      `no gated tool answered a client that declares Tasks with a task: ${answers.join('; ')}`,
    );
    const { handle } = found;
    ensure(
      handle.resultType === 'task',
      `${found.tool.name}: resultType is ${describe(handle.resultType)}, not "task"`,
    );
    ensure(
      typeof handle.taskId === 'string' && handle.taskId !== '',
      `${found.tool.name}: taskId is ${describe(handle.taskId)}`,
    );
    ensure(handle.status === 'working', `${found.tool.name}: the task is ${describe(handle.status)}, not "working"`);
  },
} satisfies ExtensionSuite['checks'][number];

const waitsWorking = {
  id: 'tool-approval/waits-working',
  requirement: 'CONF-28',
  level: 'MUST',
  title: `the task waits for the decision: tasks/get right after the handle, and ${String(STILL_WORKING_MS)} ms later, reads "working"`,
  async run(ctx) {
    await withApprovalTask(ctx, async (task) => {
      const first = taskOf(task.firstGet, 'tasks/get sent at once');
      ensure(first.status === 'working', `right after the handle the task is ${describe(first.status)}, not "working"`);
      await sleep(STILL_WORKING_MS);
      const later = taskOf(await answerOf(task.probe, 'tasks/get', { taskId: task.taskId }), 'tasks/get');
      ensure(
        later.status === 'working',
        `${String(STILL_WORKING_MS)} ms later, with nobody deciding, the task is ${describe(later.status)}${
          'result' in later ? ` with result ${describe(later.result)}` : ''
        }`,
      );
    });
  },
} satisfies ExtensionSuite['checks'][number];

const waitingMessage = {
  id: 'tool-approval/waiting-message',
  requirement: 'CONF-28',
  level: 'SHOULD',
  title: `the waiting task says in statusMessage what it waits for (on the handle or a tasks/get within ${String(MESSAGE_WITHIN_MS / 1000)} s)`,
  async run(ctx) {
    await withApprovalTask(ctx, async (task) => {
      const interval = Math.min(Math.max(Number(task.handle.pollIntervalMs) || 100, 50), 500);
      const deadline = Date.now() + MESSAGE_WITHIN_MS;
      let current = task.handle;
      let answer = task.firstGet;
      for (;;) {
        if (typeof current.statusMessage === 'string' && current.statusMessage.trim() !== '') return;
        current = taskOf(answer, 'tasks/get');
        if (typeof current.statusMessage === 'string' && current.statusMessage.trim() !== '') return;
        ensure(
          current.status === 'working',
          `the task went ${describe(current.status)} without saying what it waited for`,
        );
        ensure(
          Date.now() < deadline,
          `after ${String(MESSAGE_WITHIN_MS)} ms the waiting task has statusMessage ${describe(current.statusMessage)}`,
        );
        await sleep(interval);
        answer = await answerOf(task.probe, 'tasks/get', { taskId: task.taskId });
      }
    });
  },
} satisfies ExtensionSuite['checks'][number];

/**
 * A `tasks/cancel` that did not cancel because the task had already ended (it
 * never waited, which tool-approval/waits-working reports) leaves the fence
 * untested: skip.
 */
async function skipIfEnded(ctx: CheckContext, task: ApprovalTask): Promise<void> {
  const now = taskOf(await answerOf(task.probe, 'tasks/get', { taskId: task.taskId }), 'tasks/get after tasks/cancel');
  if (TERMINAL_STATUSES.includes(String(now.status)) && now.status !== 'cancelled') {
    ctx.skip(
      `the task was already ${describe(now.status)} when tasks/cancel reached it: it did not wait (see tool-approval/waits-working)`,
    );
  }
}

const cancelFenced = {
  id: 'tool-approval/cancel-fenced',
  requirement: 'SEP-2848',
  level: 'MUST',
  title: `tasks/cancel leaves a waiting approval task "cancelled", and ${String(FENCE_MS)} ms later it is still "cancelled" (it never completes afterwards)`,
  async run(ctx) {
    await withApprovalTask(ctx, async (task) => {
      const cancel = await answerOf(task.probe, 'tasks/cancel', { taskId: task.taskId });
      if (!('result' in cancel) || cancel.result.status !== 'cancelled') await skipIfEnded(ctx, task);
      ensure('result' in cancel, `tasks/cancel answered ${describeAnswer(cancel)}`);
      const after = taskOf(
        await answerOf(task.probe, 'tasks/get', { taskId: task.taskId }),
        'tasks/get after tasks/cancel',
      );
      ensure(after.status === 'cancelled', `after tasks/cancel the task is ${describe(after.status)}, not "cancelled"`);
      await sleep(FENCE_MS);
      const later = taskOf(await answerOf(task.probe, 'tasks/get', { taskId: task.taskId }), 'tasks/get later');
      ensure(
        later.status === 'cancelled',
        `${String(FENCE_MS)} ms after tasks/cancel the cancelled task is ${describe(later.status)}${
          TERMINAL_STATUSES.includes(String(later.status)) ? ' (a terminal status was overwritten)' : ''
        }`,
      );
    });
  },
} satisfies ExtensionSuite['checks'][number];

const pendingError = {
  id: 'tool-approval/pending-error',
  requirement: 'CONF-27',
  level: 'MUST',
  title:
    'a gated call from a client that does not declare Tasks fails with CONFIRMATION_PENDING: transient, integer retry_after_seconds ≥ 1, details.approval_id',
  async run(ctx) {
    const { found, answers } = await heldCall(ctx);
    ensure(
      found !== undefined,
      `no gated tool answered a client without Tasks with CONFIRMATION_PENDING: ${answers.join('; ')}`,
    );
    const { error, tool } = found;
    ctx.expectSeedShape(error, 'error', undefined, `the structured error of ${tool.name}`);
    ensure(error.category === 'transient', `${tool.name}: category is ${describe(error.category)}, not "transient"`);
    const retry = error.retry_after_seconds;
    ensure(
      Number.isSafeInteger(retry) && (retry as number) >= 1,
      `${tool.name}: retry_after_seconds is ${describe(retry)}, not an integer ≥ 1`,
    );
    const id = approvalIdOf(error);
    ensure(typeof id === 'string' && id !== '', `${tool.name}: details.approval_id is ${describe(id)}`);
  },
} satisfies ExtensionSuite['checks'][number];

const retryAttaches = {
  id: 'tool-approval/retry-attaches',
  requirement: 'CONF-24',
  level: 'MUST',
  title: 'the same call sent again while its request is pending attaches to it: the same details.approval_id',
  async run(ctx) {
    const { found } = await heldCall(ctx);
    if (found === undefined) return ctx.skip('no call was held (see tool-approval/pending-error)');
    const first = approvalIdOf(found.error);
    if (typeof first !== 'string')
      return ctx.skip('the held call named no approval_id (see tool-approval/pending-error)');
    const answer = await answerOf(found.probe, 'tools/call', { name: found.tool.name, arguments: found.args });
    const error = structuredError(answer);
    ensure(
      error?.code === 'CONFIRMATION_PENDING',
      `the retry of ${found.tool.name} answered ${answered(answer)}, not CONFIRMATION_PENDING`,
    );
    const again = approvalIdOf(error);
    ensure(
      again === first,
      `the retry of ${found.tool.name} opened approval request ${describe(again)}, not the pending ${describe(first)}`,
    );
  },
} satisfies ExtensionSuite['checks'][number];

/** SEP-2848 tool approval, as `@ext/confirmation` serves it (SPEC: packages/confirmation/SPEC.md §5a). */
export const toolApprovalSuite: ExtensionSuite = {
  extension: 'tool-approval',
  // The draft's identifier last: it is the one tested when the server advertises both.
  ids: [TOOL_APPROVAL_OWN_ID, TOOL_APPROVAL_ID],
  spec: 'packages/confirmation/SPEC.md',
  checks: [tasksAdvertised, taskAtOnce, waitsWorking, waitingMessage, cancelFenced, pendingError, retryAttaches],
};

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
import { isRecord } from '@ext/core';
import { describe, ensure } from '../assert.js';
import type { Probe, ProbeProfile } from '../probe.js';
import { firstText, needsConfirmation, needsScopes, sampleArguments } from '../tools.js';
import type { CheckContext, ExtensionSuite, ListedTool, ServerFacts } from '../types.js';
import { ERRORS_ID, resultMeta } from './methods.js';
import { TASKS_ID } from './tasks-probe.js';
import { answerOf, describeAnswer, isTaskHandle, TERMINAL_STATUSES, type Answer } from './tasks-wire.js';

/** The draft's identifier (SEP-2848). */
export const TOOL_APPROVAL_ID = 'io.modelcontextprotocol/tool-approval';
/** Ours, which the draft's is an alias of. */
export const TOOL_APPROVAL_OWN_ID = 'io.github.mcp-ext/tool-approval';

/** Gated tools the kit tries at most, looking for one held for an operator. */
const MAX_CANDIDATES = 5;
/** How long after `tasks/cancel` the kit reads the task again (the cancellation fence). */
const FENCE_MS = 300;
/** How long after the handle a `working` task is read again: it must not have run on its own. */
const STILL_WORKING_MS = 300;
/** How long the kit waits for a waiting task's `statusMessage`. */
const MESSAGE_WITHIN_MS = 2000;

interface GatedCall {
  readonly tool: ListedTool;
  readonly args: Record<string, unknown>;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Tools that need confirmation and whose arguments the kit can build; those
 * that need no scopes first (the kit's credentials may not grant them).
 */
function gatedCalls(ctx: CheckContext): GatedCall[] {
  const tools = ctx.server.tools
    .filter(needsConfirmation)
    .sort((a, b) => Number(needsScopes(a)) - Number(needsScopes(b)));
  const calls: GatedCall[] = [];
  for (const tool of tools) {
    const args = sampleArguments(tool);
    if (args !== undefined) calls.push({ tool, args });
    if (calls.length === MAX_CANDIDATES) break;
  }
  if (calls.length === 0) return ctx.skip('no tool requires confirmation with arguments the kit can build');
  return calls;
}

function settingsVersion(settings: unknown, fallback: string): string {
  return isRecord(settings) && typeof settings.version === 'string' ? settings.version : fallback;
}

/** A client that declares the extension under test, Tasks, or neither (`tasks: false`), and errors when the server has it. */
function profile(ctx: CheckContext, tasks: boolean): ProbeProfile {
  const own = { [ctx.id ?? TOOL_APPROVAL_ID]: { version: settingsVersion(ctx.settings, '0.1') } };
  if (tasks)
    return { extensions: { ...own, [TASKS_ID]: { version: settingsVersion(ctx.server.extensions[TASKS_ID], '1.0') } } };
  return { extensions: { ...own, ...(ERRORS_ID in ctx.server.extensions ? { [ERRORS_ID]: { version: '1.0' } } : {}) } };
}

/** Ends the check as skipped unless a client can declare Tasks to this server. */
function requireTasks(ctx: CheckContext): void {
  if (ctx.server.era !== 'modern')
    ctx.skip('tasks exist on the 2026-07-28 revision only: run with --protocol-version 2026-07-28');
  if (!(TASKS_ID in ctx.server.extensions))
    ctx.skip(`the server does not advertise ${TASKS_ID} (see tool-approval/tasks-advertised)`);
}

/** What a gated call answered a client that declares Tasks: the first task handle, and what the others answered. */
interface Discovery {
  readonly found: (GatedCall & { readonly handle: Record<string, unknown> }) | undefined;
  readonly answers: readonly string[];
}

/** What a `tools/call` answered, in a failure message: an error, a task, or a result by its text and error code. */
function answered(answer: Answer): string {
  if ('error' in answer) return describeAnswer(answer);
  const result = answer.result;
  if (isTaskHandle(result)) return `a task ${describe(result.status)}`;
  const code = resultMeta(result, ERRORS_ID)?.code;
  const kind = result.isError === true ? `an error${typeof code === 'string' ? ` ${code}` : ''}` : 'a result';
  return `${kind}: ${describe(firstText(result))}`;
}

/** Whether a `tools/call` answer says the tool ran: a result that is neither a task nor an error. */
function ran(answer: Answer): boolean {
  return 'result' in answer && !isTaskHandle(answer.result) && answer.result.isError !== true;
}

/** Cancels a task the kit created, so that no later approval can run it (best effort: the check's verdict stands). */
async function cancelTask(probe: Probe, handle: Record<string, unknown>): Promise<void> {
  if (typeof handle.taskId !== 'string') return;
  await answerOf(probe, 'tasks/cancel', { taskId: handle.taskId }).catch(() => undefined);
}

async function discover(ctx: CheckContext): Promise<Discovery> {
  const probe = await ctx.connect(profile(ctx, true));
  const answers: string[] = [];
  for (const call of gatedCalls(ctx)) {
    const answer = await answerOf(probe, 'tools/call', { name: call.tool.name, arguments: call.args });
    if ('result' in answer && isTaskHandle(answer.result)) {
      await cancelTask(probe, answer.result);
      return { found: { ...call, handle: answer.result }, answers };
    }
    answers.push(`${call.tool.name} answered ${answered(answer)}`);
    // A gated tool ran without anyone's approval: that is the verdict, and no other one is tried.
    if (ran(answer)) break;
  }
  return { found: undefined, answers };
}

const discovered = new WeakMap<ServerFacts, Promise<Discovery>>();

/** The run's gated tool that becomes a task for a client that declares Tasks, looked for once. */
function discovery(ctx: CheckContext): Promise<Discovery> {
  requireTasks(ctx);
  let found = discovered.get(ctx.server);
  if (found === undefined) {
    found = discover(ctx);
    discovered.set(ctx.server, found);
  }
  return found;
}

/** A fresh approval task for a check: the probe that created it, its id, and the `tasks/get` sent as soon as it came. */
interface ApprovalTask {
  readonly probe: Probe;
  readonly handle: Record<string, unknown>;
  readonly taskId: string;
  readonly firstGet: Answer;
}

/** Runs `body` with a new approval task, cancelled afterwards; skipped when no gated tool becomes a task. */
async function withApprovalTask(ctx: CheckContext, body: (task: ApprovalTask) => Promise<void>): Promise<void> {
  const { found } = await discovery(ctx);
  if (found === undefined)
    return ctx.skip('no gated tool answered a client that declares Tasks with a task (see tool-approval/task-at-once)');
  const probe = await ctx.connect(profile(ctx, true));
  const answer = await answerOf(probe, 'tools/call', { name: found.tool.name, arguments: found.args });
  ensure(
    'result' in answer && isTaskHandle(answer.result) && typeof answer.result.taskId === 'string',
    `${found.tool.name} answered ${answered(answer)}, no task handle with a taskId`,
  );
  const handle = answer.result;
  const taskId = answer.result.taskId;
  try {
    await body({ probe, handle, taskId, firstGet: await answerOf(probe, 'tasks/get', { taskId }) });
  } finally {
    await cancelTask(probe, handle);
  }
}

/** The task `tasks/get` answered, or a failure naming what came back. */
function taskOf(answer: Answer, what: string): Record<string, unknown> {
  ensure('result' in answer, `${what} answered ${describeAnswer(answer)}`);
  return answer.result;
}

/** A plain call's structured error: `_meta["io.github.mcp-ext/errors"]` of an `isError` result. */
function structuredError(answer: Answer): Record<string, unknown> | undefined {
  return 'result' in answer && answer.result.isError === true ? resultMeta(answer.result, ERRORS_ID) : undefined;
}

function approvalIdOf(error: Record<string, unknown> | undefined): unknown {
  return isRecord(error?.details) ? error.details.approval_id : undefined;
}

/** The first gated call held for an operator, answered `CONFIRMATION_PENDING` to a client that does not declare Tasks. */
interface HeldCall {
  readonly found: (GatedCall & { readonly probe: Probe; readonly error: Record<string, unknown> }) | undefined;
  readonly answers: readonly string[];
}

async function holdOne(ctx: CheckContext): Promise<HeldCall> {
  const probe = await ctx.connect(profile(ctx, false));
  const answers: string[] = [];
  for (const call of gatedCalls(ctx)) {
    const answer = await answerOf(probe, 'tools/call', { name: call.tool.name, arguments: call.args });
    const error = structuredError(answer);
    if (error?.code === 'CONFIRMATION_PENDING') return { found: { ...call, probe, error }, answers };
    answers.push(`${call.tool.name} answered ${answered(answer)}`);
    if (ran(answer)) break;
  }
  return { found: undefined, answers };
}

const heldCalls = new WeakMap<ServerFacts, Promise<HeldCall>>();

/** The run's held plain call, made once. */
function heldCall(ctx: CheckContext): Promise<HeldCall> {
  if (!(ERRORS_ID in ctx.server.extensions))
    ctx.skip(`the server does not advertise ${ERRORS_ID}: the kit cannot read the structured error of a held call`);
  let held = heldCalls.get(ctx.server);
  if (held === undefined) {
    held = holdOne(ctx);
    heldCalls.set(ctx.server, held);
  }
  return held;
}

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

/**
 * How the tool-approval suite reaches a call held for an operator: the
 * gated tools it tries, the server's answers to a client with and without
 * Tasks (each found once per server), the waiting task a check works on,
 * and how each answer is described in a failure.
 */
import { isRecord } from '@ext/core/kit';
import { describe, ensure } from '../assert.js';
import type { Probe, ProbeProfile } from '../probe.js';
import { firstText, needsConfirmation, needsScopes, sampleArguments } from '../tools.js';
import type { CheckContext, ListedTool, ServerFacts } from '../types.js';
import { ERRORS_ID, resultMeta } from './methods.js';
import { TASKS_ID } from './tasks-probe.js';
import { answerOf, describeAnswer, isTaskHandle, type Answer } from './tasks-wire.js';
/** The draft's identifier (SEP-2848). */
export const TOOL_APPROVAL_ID = 'io.modelcontextprotocol/tool-approval';
/** Ours, which the draft's is an alias of. */
export const TOOL_APPROVAL_OWN_ID = 'io.github.mcp-ext/tool-approval';

/** Gated tools the kit tries at most, looking for one held for an operator. */
const MAX_CANDIDATES = 5;

interface GatedCall {
  readonly tool: ListedTool;
  readonly args: Record<string, unknown>;
}

export function sleep(ms: number): Promise<void> {
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
export function answered(answer: Answer): string {
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
export function discovery(ctx: CheckContext): Promise<Discovery> {
  requireTasks(ctx);
  let found = discovered.get(ctx.server);
  if (found === undefined) {
    found = discover(ctx);
    discovered.set(ctx.server, found);
  }
  return found;
}

/** A fresh approval task for a check: the probe that created it, its id, and the `tasks/get` sent as soon as it came. */
export interface ApprovalTask {
  readonly probe: Probe;
  readonly handle: Record<string, unknown>;
  readonly taskId: string;
  readonly firstGet: Answer;
}

/** Runs `body` with a new approval task, cancelled afterwards; skipped when no gated tool becomes a task. */
export async function withApprovalTask(ctx: CheckContext, body: (task: ApprovalTask) => Promise<void>): Promise<void> {
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
export function taskOf(answer: Answer, what: string): Record<string, unknown> {
  ensure('result' in answer, `${what} answered ${describeAnswer(answer)}`);
  return answer.result;
}

/** A plain call's structured error: `_meta["io.github.mcp-ext/errors"]` of an `isError` result. */
export function structuredError(answer: Answer): Record<string, unknown> | undefined {
  return 'result' in answer && answer.result.isError === true ? resultMeta(answer.result, ERRORS_ID) : undefined;
}

export function approvalIdOf(error: Record<string, unknown> | undefined): unknown {
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
export function heldCall(ctx: CheckContext): Promise<HeldCall> {
  if (!(ERRORS_ID in ctx.server.extensions))
    ctx.skip(`the server does not advertise ${ERRORS_ID}: the kit cannot read the structured error of a held call`);
  let held = heldCalls.get(ctx.server);
  if (held === undefined) {
    held = holdOne(ctx);
    heldCalls.set(ctx.server, held);
  }
  return held;
}

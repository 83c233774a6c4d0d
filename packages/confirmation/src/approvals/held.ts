/**
 * A call held for an approver out of band (CONF-27 to CONF-31). In a task
 * (SEP-2848 over the Tasks extension) the run waits for the decision, its
 * status message saying so; any other call is held up to `holdSeconds`,
 * with progress notifications, then answered `CONFIRMATION_PENDING`, and its
 * retry attaches to the same request. On approval the server's recheck runs,
 * the request is claimed (once), and the tool runs.
 */
import { detachedRunOf, resumesDetachedRun, type DetachedRun } from '@ext/core/kit';
import { ExtensionError, type CallContext, type ToolCall, type ToolResult } from '@ext/core';
import { callHash, toolDigest, type ToolGate } from '../logic.js';
import type { ConfirmationConfig, HeldCallConfig } from '../options.js';
import { CONFIRMATION_ID } from '../schema.js';
import type { ApprovalRecord } from './record.js';
import { TOOL_APPROVAL_DISPOSITION_KEY, type ToolApprovalDisposition } from './tool-approval.js';

/** How often a held call tells a client that sent a progress token that it still waits: a quarter of the hold, 0.25 to 5 s. */
function progressEveryMs(holdMs: number): number {
  return Math.min(5000, Math.max(250, Math.floor(holdMs / 4)));
}

function waitingText(record: ApprovalRecord): string {
  return `Waiting for an approver to decide on "${record.tool}" (${record.risk_level}); approval request ${record.id} expires at ${new Date(record.expires_at).toISOString()}.`;
}

/** `CONFIRMATION_PENDING` (CONF-28): nobody decided yet; the same call later attaches to the same request. */
function pendingError(record: ApprovalRecord, link: string | undefined, retryAfterSeconds: number): ExtensionError {
  return new ExtensionError(
    'transient',
    'CONFIRMATION_PENDING',
    `"${record.tool}" waits for an approver: approval request ${record.id} is pending; nothing was executed yet`,
    {
      retryAfterSeconds,
      userActionable: true,
      suggestion:
        'Call the tool again later with the same arguments: the call attaches to the same request and runs once it is approved.' +
        (link === undefined ? '' : ` A person can decide it at ${link}.`),
      details: {
        approval_id: record.id,
        tool: record.tool,
        risk_level: record.risk_level,
        expires_at: new Date(record.expires_at).toISOString(),
        ...(link === undefined ? {} : { approval_url: link }),
      },
    },
  );
}

/** Why the call did not run: denied (`CONFIRMATION_DENIED`) or nobody decided in time (`CONFIRMATION_EXPIRED`). */
function notRunError(record: ApprovalRecord): ExtensionError {
  const expired = record.state === 'expired';
  return new ExtensionError(
    'permanent',
    expired ? 'CONFIRMATION_EXPIRED' : 'CONFIRMATION_DENIED',
    expired
      ? `Nobody approved "${record.tool}" before approval request ${record.id} expired; the tool did not run`
      : `An approver denied "${record.tool}"${record.reason === undefined ? '' : ` (${record.reason})`}; the tool did not run`,
    {
      userActionable: true,
      suggestion: expired
        ? 'Call the tool again to open a new approval request, and ask an approver to decide it in time.'
        : 'Do not retry this call as it is; ask the approver why it was denied.',
      details: { approval_id: record.id, tool: record.tool, state: record.state },
    },
  );
}

function withDisposition(result: ToolResult, disposition: ToolApprovalDisposition, record: ApprovalRecord): ToolResult {
  const own = { status: 'confirmed', via: 'approver', approval_id: record.id };
  return {
    ...result,
    _meta: { ...(result._meta ?? {}), [TOOL_APPROVAL_DISPOSITION_KEY]: disposition, [CONFIRMATION_ID]: own },
  };
}

/**
 * The result a task completes with when its call did not run or may have
 * (SEP-2848): `isError`, the body saying so, the disposition, and the
 * structured error under this extension's `_meta` entry.
 */
function taskRefusal(error: ExtensionError, disposition: ToolApprovalDisposition, record: ApprovalRecord): ToolResult {
  const said =
    disposition === 'outcome-unknown' ? 'The tool may have run; its outcome is unknown.' : 'The tool did not run.';
  // The body says whether the tool ran (SEP-2848), once.
  const text = error.message.endsWith('the tool did not run') ? `${error.message}.` : `${error.message}. ${said}`;
  return {
    content: [{ type: 'text', text }],
    isError: true,
    _meta: {
      [TOOL_APPROVAL_DISPOSITION_KEY]: disposition,
      [CONFIRMATION_ID]: { status: record.state, approval_id: record.id, error: error.toStructured() },
    },
  };
}

/** Holds a call that answers its own request up to `holdMs`, telling a client that asked for progress. */
async function hold(held: HeldCallConfig, record: ApprovalRecord, ctx: CallContext): Promise<ApprovalRecord> {
  const start = Date.now();
  let current = record;
  let ticks = 0;
  while (current.state === 'pending') {
    const left = held.holdMs - (Date.now() - start);
    if (left <= 0) return current;
    current = await held.desk.wait(record.id, {
      timeoutMs: Math.min(left, progressEveryMs(held.holdMs)),
      signal: ctx.signal,
    });
    if (current.state === 'pending' && ctx.progressToken !== undefined) {
      ticks += 1;
      await ctx.notify('notifications/progress', {
        progressToken: ctx.progressToken,
        progress: ticks,
        message: waitingText(current),
      });
    }
  }
  return current;
}

/** Waits in a task until the request is decided or expires; the task's status message says what it waits for. */
async function awaitInTask(held: HeldCallConfig, record: ApprovalRecord, ctx: CallContext, run: DetachedRun) {
  await run.progress({ message: waitingText(record) });
  let current = record;
  try {
    while (current.state === 'pending') current = await held.desk.wait(record.id, { signal: ctx.signal });
  } catch (error) {
    // The task was cancelled: its request is withdrawn, so no later decision stands for a call nobody waits on.
    if (ctx.signal.aborted) await held.desk.cancel(record.id);
    throw error;
  }
  return current;
}

/** Store key binding a task to the request its call waits on, so a resumed task finds it again. */
function runKey(config: ConfirmationConfig, run: DetachedRun): string {
  return `${config.keyPrefix}:approval-run:${run.id}`;
}

/** The request a call waits on: the one its task already bound, or the caller's open one for this call, or a new one. */
async function requestFor(
  held: HeldCallConfig,
  config: ConfirmationConfig,
  call: ToolCall,
  ctx: CallContext,
  gate: ToolGate,
  message: string,
  run: DetachedRun | undefined,
): Promise<ApprovalRecord> {
  if (run !== undefined && resumesDetachedRun(ctx)) {
    const bound = await ctx.store.get(runKey(config, run));
    const record = typeof bound === 'string' ? await held.desk.get(bound) : undefined;
    if (record !== undefined) return record;
  }
  const { record } = await held.desk.open({
    principal: ctx.principal,
    tool: call.name,
    argsDigest: callHash(ctx.tool, call.arguments),
    toolDigest: toolDigest(ctx.tool),
    policyVersion: held.policyVersion,
    riskLevel: gate.riskLevel,
    message,
    arguments: config.displayArguments(call.arguments),
  });
  if (run !== undefined) await ctx.store.set(runKey(config, run), record.id, { ttlMs: held.desk.ttlMs * 2 });
  return record;
}

/** Runs the approved call once: the recheck, the claim, the tool; what came of it is recorded. */
async function runApproved(
  held: HeldCallConfig,
  record: ApprovalRecord,
  call: ToolCall,
  ctx: CallContext,
  next: () => Promise<ToolResult>,
): Promise<ToolResult> {
  try {
    await held.recheck?.(call, ctx);
  } catch (error) {
    await held.desk.finish(record.id, 'not_executed');
    throw error;
  }
  const claim = await held.desk.claim(record.id);
  if (claim === undefined) {
    throw new ExtensionError(
      'permanent',
      'CONFIRMATION_ALREADY_USED',
      `Approval request ${record.id} was already used by another call of "${record.tool}"; this one did not run`,
      { userActionable: false, details: { approval_id: record.id } },
    );
  }
  let result: ToolResult;
  try {
    result = await next();
  } catch (error) {
    await held.desk.finish(record.id, 'execution_error');
    throw error;
  }
  await held.desk.finish(record.id, result.isError === true ? 'execution_error' : 'executed');
  return withDisposition(result, result.isError === true ? 'execution-error' : 'approved-executed', record);
}

/** The out-of-band path (`approver: operator`, or `either` when the client cannot be asked). */
export async function approveOutOfBand(
  held: HeldCallConfig,
  config: ConfirmationConfig,
  call: ToolCall,
  ctx: CallContext,
  gate: ToolGate,
  message: string,
  next: () => Promise<ToolResult>,
): Promise<ToolResult> {
  const run = detachedRunOf(ctx);
  const record = await requestFor(held, config, call, ctx, gate, message, run);
  if (run !== undefined && record.claimed_at !== undefined && record.outcome === undefined) {
    // The runner died after the claim: whether the tool ran cannot be known, and it never runs twice.
    await held.desk.finish(record.id, 'outcome_unknown');
    const error = new ExtensionError(
      'permanent',
      'CONFIRMATION_OUTCOME_UNKNOWN',
      `The server stopped while "${record.tool}" ran`,
    );
    return taskRefusal(error, 'outcome-unknown', record);
  }
  const decided = run === undefined ? await hold(held, record, ctx) : await awaitInTask(held, record, ctx, run);
  if (decided.state === 'pending') {
    throw pendingError(decided, held.desk.link(decided.id), Math.max(1, Math.ceil(held.holdMs / 1000)));
  }
  if (decided.state === 'approved') return runApproved(held, decided, call, ctx, next);
  await held.desk.finish(decided.id, 'not_executed');
  const error = notRunError(decided);
  if (run === undefined) throw error;
  return taskRefusal(error, 'denied-not-executed', decided);
}

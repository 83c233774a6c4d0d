/**
 * The tool-call middleware: finds the gate a call must pass and picks the
 * path that asks a person, with a token (b), in-band (a), or not at all, in
 * which case the call is refused (c, fail closed).
 */
import {
  approvalRequirements,
  grantApproval,
  invalidInputError,
  metaFault,
  requireApproval,
  withResultMeta,
} from '@ext/core/kit';
import { type CallContext, type ToolCall, type ToolInfo, type ToolMiddleware, type ToolResult } from '@ext/core';
import { willReplay } from '@ext/idempotency';
import { approveOutOfBand } from './approvals/held.js';
import { decide, type GatedCall } from './decisions.js';
import { runByElicitation, runByInputRound, type InBandCall } from './in-band.js';
import { confirmationMessage, effectiveGate, readToolGate } from './logic.js';
import type { Approver, ApproverRule, ConfirmationConfig } from './options.js';
import { readRequestMeta, type RequestMetaReading } from './request-meta.js';
import { SharedQuestions } from './shared-questions.js';
import { CONFIRMATION_ID, CONFIRMATION_PACKAGE, type ConfirmationRequiredMeta, type ConfirmedMeta } from './schema.js';
import { drawGrant, issueToken, redeemToken } from './token-store.js';
import type { ToolGates } from './tool-gates.js';

/** Holds the call for a token (b): nothing runs, and the result carries the token the person's "yes" redeems. */
async function holdForToken(gated: GatedCall, id: string, message: string): Promise<ToolResult> {
  const { call, gate } = gated;
  const { token, record } = await issueToken(gated, message);
  const meta: ConfirmationRequiredMeta = {
    status: 'confirmation_required',
    confirmation_token: token,
    tool: call.name,
    message,
    risk_level: gate.riskLevel,
    expires_at: new Date(record.expires_at).toISOString(),
  };
  return {
    content: [
      {
        type: 'text',
        text:
          `Confirmation required (${gate.riskLevel}): ${message}\n` +
          `Nothing was done. Ask the user; if they approve, call "${call.name}" again with the same arguments ` +
          `and params._meta["${id}"].confirmation_token. The token expires at ${meta.expires_at}.`,
      },
    ],
    _meta: { [id]: meta },
  };
}

/** The token or grant `params._meta[id]` carries; an entry that is neither is refused, nothing run (CONF-9a). */
function readEntry(id: string, raw: unknown): Exclude<RequestMetaReading, { kind: 'invalid' }> {
  const reading = readRequestMeta(raw);
  if (reading.kind !== 'invalid') return reading;
  throw invalidInputError(
    metaFault(id, reading.path, `params._meta["${id}"]${reading.path} ${reading.message}; nothing was executed`),
    'Send the confirmation_token (or grant_id) exactly as the server issued it, or leave the entry out to get a new token.',
  );
}

/** Runs the call on the token or grant its `params._meta[id]` entry carries (b). */
async function runWithEntry(
  gated: GatedCall,
  next: () => Promise<ToolResult>,
  id: string,
  entry: Exclude<RequestMetaReading, { kind: 'invalid' }>,
): Promise<ToolResult> {
  if (entry.kind === 'token') {
    return redeemToken(gated, entry.token, async () =>
      withResultMeta(await next(), id, { status: 'confirmed', via: 'token' } satisfies ConfirmedMeta),
    );
  }
  return drawGrant(gated, entry.grantId, async (remaining) =>
    withResultMeta(await next(), id, {
      status: 'confirmed',
      via: 'grant',
      grant_calls_remaining: remaining,
    } satisfies ConfirmedMeta),
  );
}

/**
 * A call that idempotency answers from the result of one a person already
 * approved runs nothing, so nobody is asked again (CONF-20). The approval is
 * required and not granted: should the call run after all (its record
 * expired in between), the core refuses it before the handler (CORE-22).
 * The decision is recorded before the call goes on, so that refusal, too,
 * is the outcome of an audited decision.
 */
async function replayUnasked(gated: GatedCall, inner: () => Promise<ToolResult>, message: string): Promise<ToolResult> {
  const { ctx, gate } = gated;
  requireApproval(ctx, { requestedBy: CONFIRMATION_PACKAGE, reason: message, riskLevel: gate.riskLevel });
  return decide(gated, { kind: 'replayed_unasked' }, { run: inner });
}

/**
 * Whether this call goes to an approver out of band (CONF-27): always for
 * `operator`; for `either` when the client can be asked neither in-band nor
 * through this extension's tokens.
 */
export function approvedOutOfBand(approver: ApproverRule, call: ToolCall, ctx: CallContext): boolean {
  const who = approver(ctx.tool, call, ctx);
  if (who === 'user') return false;
  if (who === 'operator') return true;
  const canAsk =
    ctx.negotiated(CONFIRMATION_ID) !== undefined || ctx.elicit !== undefined || ctx.inputRound !== undefined;
  return !canAsk;
}

/**
 * A task support rule for `tasksServer({ tools })` (CONF-29): a gated call
 * that waits for an operator becomes a task, for a client that declared the
 * Tasks extension (SEP-2848); every other call answers its own request.
 */
export function approvalTasks(
  approver: Approver | ApproverRule,
): (tool: ToolInfo, call: ToolCall, ctx: CallContext) => 'optional' | 'forbidden' {
  const rule: ApproverRule = typeof approver === 'function' ? approver : () => approver;
  return (tool, call, ctx) => {
    const gate = effectiveGate(readToolGate(tool, CONFIRMATION_ID), approvalRequirements(ctx));
    return gate !== undefined && approvedOutOfBand(rule, call, ctx) ? 'optional' : 'forbidden';
  };
}

/** Where the call is held for an operator, or `undefined` when a user approves it. */
async function outOfBand(gated: GatedCall): Promise<NonNullable<ConfirmationConfig['held']> | undefined> {
  const { config, call, ctx } = gated;
  if (!approvedOutOfBand(config.approver, call, ctx)) return undefined;
  if (config.held !== undefined) return config.held;
  // An approver rule named an operator, but the server has nowhere to hold the call: fail closed.
  return decide(gated, { kind: 'refused_no_desk' });
}

/** The middleware of the `confirmation` stage. */
export function confirmationMiddleware(config: ConfirmationConfig, gates: ToolGates): ToolMiddleware {
  const questions = new SharedQuestions(config.now);
  return async (call, ctx, inner) => {
    const gate = effectiveGate(gates.of(ctx.tool), approvalRequirements(ctx));
    if (gate === undefined) return inner();
    const gated: GatedCall = { config, call, ctx, gate };
    // Every path that reaches the tool went through a person's explicit yes (CONF-19).
    const next = (): Promise<ToolResult> => {
      grantApproval(ctx);
      return inner();
    };
    // Built from the arguments as a person may see them (a secret hidden), before any cap cuts a value short.
    const message = confirmationMessage(ctx.tool, gate, config.displayArguments(call.arguments));
    const negotiated = ctx.negotiated(CONFIRMATION_ID);
    const raw = negotiated === undefined ? undefined : call.meta[negotiated.id];
    // Any entry sent must be a valid one (CONF-9a), even on a call answered from a stored result.
    const entry = negotiated === undefined || raw === undefined ? undefined : readEntry(negotiated.id, raw);
    if (await willReplay(ctx, call)) return replayUnasked(gated, inner, message);
    // An operator's approval is not the client's to give: a token or an in-band answer does not stand for it.
    const held = await outOfBand(gated);
    if (held !== undefined) return approveOutOfBand(held, config, call, ctx, gate, message, next);
    if (negotiated !== undefined) {
      // Only an absent entry asks for a token.
      if (entry !== undefined) return runWithEntry(gated, next, negotiated.id, entry);
      if (!(config.prefer === 'elicitation' && (ctx.elicit !== undefined || ctx.inputRound !== undefined)))
        return holdForToken(gated, negotiated.id, message);
    }
    const confirmed = (result: ToolResult): ToolResult =>
      negotiated === undefined
        ? result
        : withResultMeta(result, negotiated.id, { status: 'confirmed', via: 'elicitation' } satisfies ConfirmedMeta);
    const inBand: InBandCall = { ...gated, questions, message, next };
    if (ctx.elicit !== undefined) return confirmed(await runByElicitation(inBand, ctx.elicit));
    if (ctx.inputRound !== undefined) {
      const outcome = await runByInputRound(inBand, ctx.inputRound);
      return 'asked' in outcome ? outcome.asked : confirmed(outcome.ran);
    }
    // Fail closed (CONF-7): nobody can be asked, so the call never runs.
    return decide(gated, { kind: 'refused_no_channel', message });
  };
}

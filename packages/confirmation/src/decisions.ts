/**
 * One outcome and one audit entry per confirmation decision (CONF-13). For
 * each kind of decision, the event it is audited as and, for a refusal, the
 * structured error the caller gets (worded in `refusals.ts`); `decide` writes
 * the decision's single entry, then throws its refusal or produces its
 * outcome. Every decision point calls it once: the middleware's paths, the
 * in-band answers, tokens and grants, the extension's methods and the desk.
 */
import type { CallContext, ElicitationResponse, ExtensionError, Store, ToolCall } from '@ext/core';
import { audit, type ConfirmationAuditEvent } from './audit.js';
import type { ToolGate } from './logic.js';
import type { ConfirmationConfig } from './options.js';
import { secretDigest, type GrantRefusal, type TokenRefusal } from './records.js';
import { declinedError, noChannelError, noDeskError, refusalError } from './refusals.js';
import type { RiskLevel } from './schema.js';

/** Who and what a decision is about; its audit entry names them. */
export interface DecisionScope {
  readonly config: Pick<ConfirmationConfig, 'now' | 'keyPrefix' | 'auditMaxLength'>;
  readonly store: Store;
  readonly principal: string;
  readonly tool?: string | undefined;
  /** The risk level the entry carries, for the decisions that record one. */
  readonly riskLevel?: RiskLevel | undefined;
}

/** A gated call in the confirmation stage: the scope of every decision about it is its caller, tool and gate. */
export interface GatedCall {
  readonly config: ConfirmationConfig;
  readonly call: ToolCall;
  readonly ctx: CallContext;
  readonly gate: ToolGate;
}

/** The transitions of an approval request (CONF-26), each audited under its own event. */
export type ApprovalTransition = Extract<ConfirmationAuditEvent, `approval_${string}`>;

/** Every kind of decision, with what its entry or its error needs beyond the scope. Secrets are written digested. */
export type Decision =
  | { readonly kind: 'replayed_unasked' }
  | { readonly kind: 'refused_no_channel'; readonly message: string }
  | { readonly kind: 'refused_no_desk' }
  | { readonly kind: 'token_issued'; readonly token: string }
  | {
      readonly kind: 'token_redeemed';
      readonly token: string;
      readonly riskLevel: RiskLevel;
      readonly batchId: string | undefined;
    }
  | { readonly kind: 'token_refused'; readonly token: string; readonly code: TokenRefusal }
  | { readonly kind: 'batch_approved'; readonly batchId: string; readonly count: number }
  | { readonly kind: 'grant_issued'; readonly grantId: string; readonly maxCalls: number }
  | { readonly kind: 'grant_used'; readonly grantId: string; readonly uses: number }
  | {
      readonly kind: 'grant_refused';
      readonly grantId: string;
      readonly code: GrantRefusal | 'CONFIRMATION_GRANT_EXHAUSTED';
    }
  | { readonly kind: 'elicitation_accepted' }
  | { readonly kind: 'elicitation_declined'; readonly action: ElicitationResponse['action'] }
  | { readonly kind: 'elicitation_unasked' }
  | { readonly kind: 'elicitation_shared' }
  | { readonly kind: 'approval'; readonly transition: ApprovalTransition; readonly id: string };

/** The decisions that refuse the call: their outcome is an error, thrown once the entry is written. */
export type RefusalDecision = Extract<
  Decision,
  {
    readonly kind:
      'refused_no_channel' | 'refused_no_desk' | 'token_refused' | 'grant_refused' | 'elicitation_declined';
  }
>;

/** What an entry records beside the event, the principal and the tool. */
interface Facts {
  readonly riskLevel?: RiskLevel | undefined;
  readonly code?: string | undefined;
  readonly batchId?: string | undefined;
  readonly count?: number | undefined;
  /** A digest of the token or grant id, never the secret itself; an approval request's id. */
  readonly ref?: string | undefined;
}

interface Rule<D extends Decision> {
  readonly event: ConfirmationAuditEvent | ((decision: D) => ConfirmationAuditEvent);
  /** Whether the entry carries the scope's risk level (the gate's, or the approval request's). */
  readonly scopeRisk?: true;
  readonly facts?: (decision: D) => Facts;
  readonly refusal?: (decision: D, gated: GatedCall) => ExtensionError;
}

/** Each kind of decision: the event it is audited as, what its entry records, and the error of a refusal. */
const DECISIONS: { readonly [K in Decision['kind']]: Rule<Extract<Decision, { readonly kind: K }>> } = {
  replayed_unasked: { event: 'replayed_unasked', scopeRisk: true },
  refused_no_channel: {
    event: 'refused_no_channel',
    scopeRisk: true,
    refusal: (decision, { call, gate }) => noChannelError(call.name, gate.riskLevel, decision.message),
  },
  refused_no_desk: { event: 'refused_no_channel', scopeRisk: true, refusal: (_, { call }) => noDeskError(call.name) },
  token_issued: { event: 'token_issued', scopeRisk: true, facts: ({ token }) => ({ ref: secretDigest(token) }) },
  token_redeemed: {
    event: 'token_redeemed',
    // The risk level the person approved: the token's own.
    facts: ({ token, riskLevel, batchId }) => ({ riskLevel, batchId, ref: secretDigest(token) }),
  },
  token_refused: {
    event: 'token_refused',
    facts: ({ token, code }) => ({ code, ref: secretDigest(token) }),
    refusal: ({ code }, { call }) => refusalError(code, { tool: call.name }),
  },
  batch_approved: { event: 'batch_approved', facts: ({ batchId, count }) => ({ batchId, count }) },
  grant_issued: {
    event: 'grant_issued',
    facts: ({ grantId, maxCalls }) => ({ count: maxCalls, ref: secretDigest(grantId) }),
  },
  grant_used: { event: 'grant_used', facts: ({ grantId, uses }) => ({ count: uses, ref: secretDigest(grantId) }) },
  grant_refused: {
    event: 'grant_refused',
    facts: ({ grantId, code }) => ({ code, ref: secretDigest(grantId) }),
    refusal: ({ code }, { call }) => refusalError(code, { tool: call.name }),
  },
  elicitation_accepted: { event: 'elicitation_accepted', scopeRisk: true },
  elicitation_declined: {
    event: 'elicitation_declined',
    scopeRisk: true,
    refusal: ({ action }, { call }) => declinedError(call.name, action),
  },
  elicitation_unasked: { event: 'elicitation_unasked', scopeRisk: true },
  elicitation_shared: { event: 'elicitation_shared', scopeRisk: true },
  approval: { event: ({ transition }) => transition, scopeRisk: true, facts: ({ id }) => ({ ref: id }) },
};

function ruleOf<D extends Decision>(decision: D): Rule<D> {
  return DECISIONS[decision.kind] as unknown as Rule<D>;
}

function isGatedCall(on: GatedCall | DecisionScope): on is GatedCall {
  return 'call' in on;
}

/** The scope of a decision about a gated call: its caller, its tool and the gate's risk level. */
function callScope({ config, call, ctx, gate }: GatedCall): DecisionScope {
  return { config, store: ctx.store, principal: ctx.principal, tool: call.name, riskLevel: gate.riskLevel };
}

/** The decision's entry, its fields in the order entries were always written. */
function entryOf(scope: DecisionScope, decision: Decision): Parameters<typeof audit>[2] {
  const rule = ruleOf(decision);
  const facts = rule.facts?.(decision) ?? {};
  return {
    event: typeof rule.event === 'function' ? rule.event(decision) : rule.event,
    principal: scope.principal,
    tool: scope.tool,
    risk_level: facts.riskLevel ?? (rule.scopeRisk === true ? scope.riskLevel : undefined),
    code: facts.code,
    batch_id: facts.batchId,
    count: facts.count,
    ref: facts.ref,
  };
}

/** What a decision that lets the call go on leads to, and how to take back what it changed. */
export interface DecisionOutcome<T> {
  /** Produces the outcome once the entry is written: runs the call, returns the token or grant, asks again... */
  readonly run?: (() => T | Promise<T>) | undefined;
  /** Takes back what the decision changed in the store (a token spent, a use counted) if its entry cannot be written. */
  readonly undo?: (() => Promise<unknown>) | undefined;
}

/**
 * Takes one decision: writes its single audit entry, then throws its
 * refusal or produces its outcome. No decision stands without its entry:
 * when the entry cannot be written, `undo` takes back what the decision
 * changed, nothing runs, and the store's failure is what the caller gets.
 */
export function decide(on: GatedCall, decision: RefusalDecision): Promise<never>;
export function decide<T = void>(
  on: GatedCall | DecisionScope,
  decision: Exclude<Decision, RefusalDecision>,
  outcome?: DecisionOutcome<T>,
): Promise<T>;
export async function decide<T>(
  on: GatedCall | DecisionScope,
  decision: Decision,
  outcome: DecisionOutcome<T> = {},
): Promise<T> {
  const scope = isGatedCall(on) ? callScope(on) : on;
  try {
    await audit(scope.config, scope.store, entryOf(scope, decision));
  } catch (error) {
    await outcome.undo?.().catch(() => undefined);
    throw error;
  }
  const { refusal } = ruleOf(decision);
  // The overloads give every refusal a gated call.
  if (refusal !== undefined) throw refusal(decision, on as GatedCall);
  return outcome.run === undefined ? (undefined as T) : outcome.run();
}

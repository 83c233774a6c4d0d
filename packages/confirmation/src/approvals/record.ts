/**
 * An approval request decided out of band (CONF-22 to CONF-25): what is kept
 * for one held call, its states, and the transitions between them. Pure: the
 * store I/O is the desk's (`desk.ts`).
 *
 * A request is bound to the caller, the tool, a digest of the arguments, the
 * tool's definition and the policy version; it is decided once (pending to
 * approved or denied, or to expired when nobody decided in time), and an
 * approved request is claimed once, by the one execution it allows.
 */
import { isRecord, type JsonValue } from '@ext/core/kit';
import { isRiskLevel } from '../logic.js';
import type { RiskLevel } from '../schema.js';

/**
 * Where a request stands. Only `pending` changes; `approved` may still be
 * claimed once. `cancelled`: the caller withdrew it (its task was cancelled)
 * before anyone decided.
 */
export type ApprovalState = 'pending' | 'approved' | 'denied' | 'expired' | 'cancelled';

/**
 * What became of the call a request held: it ran (and succeeded, failed, or
 * cannot be known), or it did not run and the caller was told so.
 */
export type ApprovalOutcome = 'executed' | 'execution_error' | 'outcome_unknown' | 'not_executed';

/** One step of a request's life, for its audit trail. Times in epoch milliseconds. */
export interface ApprovalTrailEntry {
  readonly at: number;
  readonly event:
    'requested' | 'attached' | 'approved' | 'denied' | 'expired' | 'cancelled' | 'claimed' | ApprovalOutcome;
  /** Who decided (`approved`, `denied`), or which principal attached. */
  readonly by?: string | undefined;
  readonly reason?: string | undefined;
}

/** The stored request. Times in epoch milliseconds. */
export interface ApprovalRecord {
  readonly v: 1;
  readonly id: string;
  readonly state: ApprovalState;
  readonly principal: string;
  readonly tool: string;
  /** `callHash`: the tool definition's digest and the canonical arguments (CONF-21). */
  readonly args_digest: string;
  /** `toolDigest` of the definition the call was made against. */
  readonly tool_digest: string;
  /** The policy in force when the call was made (the server's `policyVersion`), for audit and the recheck. */
  readonly policy_version?: string | undefined;
  readonly risk_level: RiskLevel;
  /** The message a person reads, built from the arguments as shown (secrets hidden). */
  readonly message: string;
  /** The arguments as a person is shown them (`displayArguments`), never the raw ones. */
  readonly arguments: Readonly<Record<string, JsonValue>>;
  readonly created_at: number;
  readonly expires_at: number;
  readonly decided_at?: number | undefined;
  readonly decided_by?: string | undefined;
  readonly reason?: string | undefined;
  /** Set once, by the execution the approval allows (compare-and-set). */
  readonly claimed_at?: number | undefined;
  readonly outcome?: ApprovalOutcome | undefined;
  readonly trail: readonly ApprovalTrailEntry[];
}

/** What a held call asks to be approved. */
export interface ApprovalRequestInput {
  readonly principal: string;
  readonly tool: string;
  readonly argsDigest: string;
  readonly toolDigest: string;
  readonly policyVersion?: string | undefined;
  readonly riskLevel: RiskLevel;
  readonly message: string;
  readonly arguments: Readonly<Record<string, unknown>>;
}

/** A decision on a pending request. */
export interface ApprovalDecision {
  readonly approve: boolean;
  /** Who decided: the approver's principal. */
  readonly by: string;
  readonly reason?: string | undefined;
}

const STATES: readonly string[] = ['pending', 'approved', 'denied', 'expired', 'cancelled'];
/** Longest reason kept; a longer one is cut. */
export const MAX_REASON_LENGTH = 500;
/** Attach events kept in a trail; later ones are counted in the audit stream only. */
const MAX_TRAIL = 24;

/** A new pending request. */
export function newApprovalRecord(id: string, input: ApprovalRequestInput, now: number, ttlMs: number): ApprovalRecord {
  return {
    v: 1,
    id,
    state: 'pending',
    principal: input.principal,
    tool: input.tool,
    args_digest: input.argsDigest,
    tool_digest: input.toolDigest,
    ...(input.policyVersion === undefined ? {} : { policy_version: input.policyVersion }),
    risk_level: input.riskLevel,
    message: input.message,
    arguments: JSON.parse(JSON.stringify(input.arguments)) as Record<string, JsonValue>,
    created_at: now,
    expires_at: now + ttlMs,
    trail: [{ at: now, event: 'requested', by: input.principal }],
  };
}

/** A stored request, or `undefined` for anything not written by this version. */
export function parseApprovalRecord(value: JsonValue | undefined): ApprovalRecord | undefined {
  if (!isRecord(value) || value.v !== 1) return undefined;
  const ok =
    typeof value.id === 'string' &&
    typeof value.state === 'string' &&
    STATES.includes(value.state) &&
    typeof value.principal === 'string' &&
    typeof value.tool === 'string' &&
    typeof value.args_digest === 'string' &&
    typeof value.tool_digest === 'string' &&
    isRiskLevel(value.risk_level) &&
    typeof value.message === 'string' &&
    isRecord(value.arguments) &&
    typeof value.created_at === 'number' &&
    typeof value.expires_at === 'number' &&
    Array.isArray(value.trail);
  return ok ? (value as unknown as ApprovalRecord) : undefined;
}

function withTrail(record: ApprovalRecord, entry: ApprovalTrailEntry): readonly ApprovalTrailEntry[] {
  const trail = [...record.trail, entry];
  return trail.length <= MAX_TRAIL ? trail : [trail[0] as ApprovalTrailEntry, ...trail.slice(-(MAX_TRAIL - 1))];
}

/** The record as it stands at `now`: a pending request past its expiry is expired. */
export function settled(record: ApprovalRecord, now: number): ApprovalRecord {
  if (record.state !== 'pending' || now < record.expires_at) return record;
  return {
    ...record,
    state: 'expired',
    decided_at: record.expires_at,
    trail: withTrail(record, { at: record.expires_at, event: 'expired' }),
  };
}

/** Why a decision cannot be made. */
export type DecisionRefusal = 'APPROVAL_ALREADY_DECIDED' | 'APPROVAL_EXPIRED';

/** The request once decided, or why it cannot be: it is decided once, and never after it expired. */
export function decided(
  record: ApprovalRecord,
  decision: ApprovalDecision,
  now: number,
): { readonly record: ApprovalRecord } | { readonly refusal: DecisionRefusal; readonly record: ApprovalRecord } {
  const current = settled(record, now);
  if (current.state === 'expired') return { refusal: 'APPROVAL_EXPIRED', record: current };
  if (current.state !== 'pending') return { refusal: 'APPROVAL_ALREADY_DECIDED', record: current };
  const reason = decision.reason === undefined ? undefined : decision.reason.slice(0, MAX_REASON_LENGTH);
  const event = decision.approve ? 'approved' : 'denied';
  return {
    record: {
      ...current,
      state: event,
      decided_at: now,
      decided_by: decision.by,
      ...(reason === undefined || reason === '' ? {} : { reason }),
      trail: withTrail(current, { at: now, event, by: decision.by, ...(reason ? { reason } : {}) }),
    },
  };
}

/** The pending request withdrawn by its caller (its task was cancelled), or `undefined` when it is no longer pending. */
export function withdrawn(record: ApprovalRecord, now: number): ApprovalRecord | undefined {
  const current = settled(record, now);
  if (current.state !== 'pending') return undefined;
  return {
    ...current,
    state: 'cancelled',
    decided_at: now,
    outcome: 'not_executed',
    trail: withTrail(current, { at: now, event: 'cancelled', by: current.principal }),
  };
}

/**
 * Whether a call may still attach to this request: nothing came of it yet
 * (pending; approved and not yet used; or denied or expired and not yet
 * told to a caller), and no execution is under way.
 */
export function isOpen(record: ApprovalRecord): boolean {
  return record.outcome === undefined && record.claimed_at === undefined;
}

/** The request with another call attached to it (a retry of the same call). */
export function attached(record: ApprovalRecord, principal: string, now: number): ApprovalRecord {
  return { ...record, trail: withTrail(record, { at: now, event: 'attached', by: principal }) };
}

/** The approved request claimed by the one execution it allows, or `undefined` when it cannot be. */
export function claimed(record: ApprovalRecord, now: number): ApprovalRecord | undefined {
  if (record.state !== 'approved' || record.claimed_at !== undefined) return undefined;
  return { ...record, claimed_at: now, trail: withTrail(record, { at: now, event: 'claimed' }) };
}

/**
 * The request with what came of its call, or `undefined` when that is
 * already known or cannot be so: only a claimed request ran, and a decided
 * one never claimed did not.
 */
export function finished(record: ApprovalRecord, outcome: ApprovalOutcome, now: number): ApprovalRecord | undefined {
  if (record.outcome !== undefined) return undefined;
  // Only a claimed request ran; one never claimed did not (denied, expired, or refused by the recheck).
  const ran = record.claimed_at !== undefined;
  if (outcome === 'not_executed' ? ran || record.state === 'pending' : !ran) return undefined;
  return { ...record, outcome, trail: withTrail(record, { at: now, event: outcome }) };
}

/** A record as plain JSON for the store. */
export function approvalJson(record: ApprovalRecord): JsonValue {
  return JSON.parse(JSON.stringify(record)) as JsonValue;
}

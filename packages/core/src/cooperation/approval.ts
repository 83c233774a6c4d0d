/**
 * Approvals one extension asks a person for before a call runs, and the
 * grant a gate records: the core refuses the handler of a call whose
 * approval nobody granted (CORE-22).
 */
import { ExtensionError } from '../contract/errors.js';
import { defineLocal } from '../kit/locals.js';
import type { RequestContext } from '../contract/extension.js';

/**
 * A human approval the current tool call needs before it may run, asked for
 * by an extension other than the gate itself (cost's `requires_approval`
 * category). `@ext/confirmation` reads it and, once a person said yes,
 * records the grant; the core refuses to run the handler of a call whose
 * requirement nobody granted, so a server without a gate fails closed.
 */
export interface ApprovalRequirement {
  /** Package name of the extension that asked, e.g. `@ext/cost`. */
  readonly requestedBy: string;
  /** Why, in words a person understands ("This export is billed: 5 credits"). */
  readonly reason: string;
  /** Risk of the call, in confirmation's terms. Default `reversible`. */
  readonly riskLevel?: 'safe' | 'reversible' | 'destructive' | undefined;
}

interface ApprovalSlot {
  readonly requirements: ApprovalRequirement[];
  granted: boolean;
}

// Keyed by Symbol.for, so duplicate copies of core agree on the slot.
const approvalSlot = defineLocal<ApprovalSlot>('core/approval');

/** Asks that a person approve the current call before it runs (call from a middleware outside the confirmation stage). */
export function requireApproval(ctx: Pick<RequestContext, 'locals'>, requirement: ApprovalRequirement): void {
  const slot = approvalSlot.get(ctx);
  if (slot) slot.requirements.push({ ...requirement });
  else approvalSlot.set(ctx, { requirements: [{ ...requirement }], granted: false });
}

/** What other extensions asked a person to approve for this call (empty when nothing). */
export function approvalRequirements(ctx: Pick<RequestContext, 'locals'>): readonly ApprovalRequirement[] {
  return approvalSlot.get(ctx)?.requirements ?? [];
}

/** Records that a person approved the current call (the confirmation gate does, after explicit acceptance). */
export function grantApproval(ctx: Pick<RequestContext, 'locals'>): void {
  const slot = approvalSlot.get(ctx);
  if (slot) slot.granted = true;
}

/**
 * Throws a `permanent` `APPROVAL_REQUIRED` error when an approval was asked
 * for and never granted. The core calls it just before the tool handler.
 */
export function assertApproved(ctx: Pick<RequestContext, 'locals'>): void {
  const slot = approvalSlot.get(ctx);
  if (!slot || slot.granted || slot.requirements.length === 0) return;
  const reasons = slot.requirements.map((requirement) => requirement.reason).join('; ');
  throw new ExtensionError(
    'permanent',
    'APPROVAL_REQUIRED',
    `This call needs a person's approval and no confirmation gate granted it: ${reasons}`,
    {
      userActionable: true,
      suggestion: 'Use a client and server that support the confirmation extension, so a person can approve the call.',
      details: { requested_by: [...new Set(slot.requirements.map((requirement) => requirement.requestedBy))] },
    },
  );
}

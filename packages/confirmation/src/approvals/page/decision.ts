/** The decision the API takes (`{ "approve": boolean, "reason"?: string }`), read and checked. Pure. */
import { isRecord } from '@ext/core/kit';
import { MAX_REASON_LENGTH } from '../record.js';

/** A decision as asked for; the approver is whoever is signed in, never the body. */
export interface DecisionBody {
  readonly approve: boolean;
  readonly reason: string | undefined;
}

/** The decision in a request body, or why it is not one. */
export function parseDecision(text: string): { readonly decision: DecisionBody } | { readonly problem: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { problem: 'The body is not JSON: send { "approve": true|false, "reason"?: string }' };
  }
  if (!isRecord(value) || typeof value.approve !== 'boolean') {
    return { problem: 'approve must be true or false' };
  }
  if (value.reason !== undefined && value.reason !== null && typeof value.reason !== 'string') {
    return { problem: 'reason must be a string' };
  }
  const reason = typeof value.reason === 'string' ? value.reason.trim() : '';
  if (reason.length > MAX_REASON_LENGTH) {
    return { problem: `reason must be at most ${MAX_REASON_LENGTH} characters` };
  }
  return { decision: { approve: value.approve, reason: reason === '' ? undefined : reason } };
}

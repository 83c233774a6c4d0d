/**
 * The Standard Webhooks body of an approval event: `approval.requested`
 * with the request and its two decision links, or `approval.decided`.
 * Pure: signing and sending are `delivery.ts`'s.
 */
import type { JsonValue } from '@ext/core/kit';
import type { ApprovalEvent } from '../desk.js';
import { approvalSummary } from '../summary.js';

/** A request's two decision links. */
export interface DecisionLinks {
  readonly approve: string;
  readonly deny: string;
}

/** The event types sent. */
export type ApprovalWebhookType = 'approval.requested' | 'approval.decided';

/** The webhook type of a desk event. */
export function webhookType(event: ApprovalEvent): ApprovalWebhookType {
  return event.type === 'requested' ? 'approval.requested' : 'approval.decided';
}

/**
 * `{ type, timestamp, data }`: `data` is the request's summary, with
 * `actions` (the decision links) when it was just requested.
 */
export function standardMessage(event: ApprovalEvent, links: DecisionLinks | undefined, nowMs: number): JsonValue {
  const summary = approvalSummary(event.record, event.link);
  return {
    type: webhookType(event),
    timestamp: new Date(nowMs).toISOString(),
    data: links === undefined ? summary : { ...summary, actions: { approve: links.approve, deny: links.deny } },
  };
}

/**
 * A request as the page and its API show it: the desk's summary (what a
 * person needs, nothing that authorises) with the audit trail and what
 * came of the call, times as ISO 8601.
 */
import type { JsonValue } from '@ext/core/kit';
import type { ApprovalDesk } from '../desk.js';
import { approvalSummary } from '../summary.js';
import type { ApprovalRecord, ApprovalTrailEntry } from '../record.js';

function trailJson(entry: ApprovalTrailEntry): JsonValue {
  return {
    at: new Date(entry.at).toISOString(),
    event: entry.event,
    ...(entry.by === undefined ? {} : { by: entry.by }),
    ...(entry.reason === undefined ? {} : { reason: entry.reason }),
  };
}

/** The JSON the API answers with and the live stream sends for one request. */
export function pageRecord(desk: ApprovalDesk, record: ApprovalRecord): Record<string, JsonValue> {
  return {
    ...approvalSummary(record, desk.link(record.id)),
    ...(record.outcome === undefined ? {} : { outcome: record.outcome }),
    trail: record.trail.map(trailJson),
    version: recordVersion(record),
  };
}

/** Changes whenever anything shown about the request does: lets page.js skip a card it already shows. */
export function recordVersion(record: ApprovalRecord): string {
  return `${record.state}.${record.trail.length}.${record.trail.at(-1)?.at ?? 0}.${record.outcome ?? ''}`;
}

/** Pending requests first, soonest to expire first; then the rest, latest decided first. */
export function splitRequests(records: readonly ApprovalRecord[]): {
  readonly pending: ApprovalRecord[];
  readonly decided: ApprovalRecord[];
} {
  const pending = records.filter((record) => record.state === 'pending').sort((a, b) => a.expires_at - b.expires_at);
  const decided = records
    .filter((record) => record.state !== 'pending')
    .sort((a, b) => (b.decided_at ?? b.created_at) - (a.decided_at ?? a.created_at));
  return { pending, decided };
}

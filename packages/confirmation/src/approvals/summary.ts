/** What an approver backend may send about a request. */
import type { JsonValue } from '@ext/core/kit';
import type { ApprovalRecord } from './record.js';

/** The JSON a backend may send about a request: everything a person needs, nothing that authorises. */
export function approvalSummary(record: ApprovalRecord, link: string | undefined): Record<string, JsonValue> {
  return {
    id: record.id,
    state: record.state,
    tool: record.tool,
    principal: record.principal,
    risk_level: record.risk_level,
    message: record.message,
    arguments: record.arguments,
    created_at: new Date(record.created_at).toISOString(),
    expires_at: new Date(record.expires_at).toISOString(),
    ...(record.decided_by === undefined ? {} : { decided_by: record.decided_by }),
    ...(record.decided_at === undefined ? {} : { decided_at: new Date(record.decided_at).toISOString() }),
    ...(record.reason === undefined ? {} : { reason: record.reason }),
    ...(link === undefined ? {} : { link }),
  };
}

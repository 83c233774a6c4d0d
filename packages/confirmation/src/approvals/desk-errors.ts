/** The desk's refusals: an unknown request, and a decision on one that was already decided or expired. */
import { ExtensionError } from '@ext/core';
import type { ApprovalRecord } from './record.js';

export function notFound(id: string): ExtensionError {
  return new ExtensionError('invalid_input', 'APPROVAL_NOT_FOUND', `No approval request ${JSON.stringify(id)}`, {
    userActionable: false,
    details: { approval_id: id },
  });
}

export function refused(code: 'APPROVAL_ALREADY_DECIDED' | 'APPROVAL_EXPIRED', record: ApprovalRecord): ExtensionError {
  const message =
    code === 'APPROVAL_EXPIRED'
      ? `Approval request ${record.id} expired before anyone decided it`
      : `Approval request ${record.id} was already ${record.state}`;
  return new ExtensionError('permanent', code, message, {
    userActionable: false,
    details: { approval_id: record.id, state: record.state },
  });
}

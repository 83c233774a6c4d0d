/** The client half of `@ext/example-audit-log`. */
import type { ClientExtension } from '@ext/core';
import { AUDIT_LOG_ID, AUDIT_LOG_PACKAGE, AUDIT_LOG_WIRE_VERSION } from './schema.js';

/** Advertises the extension, so each result says which log entry records its call. */
export function auditLogClient(): ClientExtension {
  return {
    side: 'client',
    name: AUDIT_LOG_PACKAGE,
    ids: [AUDIT_LOG_ID],
    settings: { version: AUDIT_LOG_WIRE_VERSION },
  };
}

/** The `@ext/example-audit-log` entry, free of any SDK: the identifier, the wire schemas and the entry type. */
export { AUDIT_LOG_ID, AUDIT_LOG_PACKAGE, AUDIT_LOG_WIRE_VERSION, AuditLogResultMetaSchema } from './schema.js';
export type { AuditEntry, AuditLogResultMeta, AuditOutcome } from './schema.js';

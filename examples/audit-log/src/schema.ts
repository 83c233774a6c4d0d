/** The wire contract: the identifier, the version, and one TypeBox schema per payload. */
import Type, { type Static } from 'typebox';

/** The extension identifier. */
export const AUDIT_LOG_ID = 'com.example/audit-log';

/** npm package name: the core names the extension by it in messages and `requires`. */
export const AUDIT_LOG_PACKAGE = '@ext/example-audit-log';

/** Wire contract version this package speaks. */
export const AUDIT_LOG_WIRE_VERSION = '1.0';

/** `_meta[AUDIT_LOG_ID]` of a result: the number of the entry that records the call. */
export const AuditLogResultMetaSchema = Type.Object({ entry: Type.Integer({ minimum: 1 }) });
export type AuditLogResultMeta = Static<typeof AuditLogResultMetaSchema>;

/** How a call ended, as the log records it. */
export type AuditOutcome = 'ok' | 'tool_error' | 'refused';

/** One recorded call. */
export interface AuditEntry {
  /** 1, 2, 3, ... in the order calls ended. */
  readonly entry: number;
  readonly at: string;
  readonly principal: string;
  readonly tool: string;
  readonly outcome: AuditOutcome;
  /** The refusal's code (`PERMISSION_DENIED`, `QUOTA_EXHAUSTED`, ...), for a refused call. */
  readonly code?: string | undefined;
  readonly durationMs: number;
}

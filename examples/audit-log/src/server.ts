/**
 * The server half of `@ext/example-audit-log`: one entry per tool call,
 * written where the deployment says, written only against `@ext/core`'s
 * public entry. Placed just inside the errors stage, it sees every other
 * stage's refusal as the error it throws, before it becomes a result.
 */
import { ExtensionError, WireError, type ServerExtension, type ToolResult } from '@ext/core';
import { AUDIT_LOG_ID, AUDIT_LOG_PACKAGE, AUDIT_LOG_WIRE_VERSION, type AuditEntry } from './schema.js';

export interface AuditLogServerOptions {
  /** Where each entry goes (a file, a queue); a failure to write is logged and the call's answer stands. */
  readonly write: (entry: AuditEntry) => void | Promise<void>;
  /** Where the middleware runs. Default: just inside the errors stage, so it sees every refusal. */
  readonly stage?: ServerExtension['stage'];
}

/** A refusal's code: the structured error's, a protocol error's JSON-RPC code, or `INTERNAL_ERROR`. */
function codeOf(error: unknown): string {
  if (ExtensionError.isInstance(error)) return error.code;
  return WireError.isInstance(error) ? String(error.code) : 'INTERNAL_ERROR';
}

/** Records every tool call: who called what, how it ended, how long it took. */
export function auditLogServer({ write, stage = { after: 'errors' } }: AuditLogServerOptions): ServerExtension {
  let entries = 0;
  return {
    side: 'server',
    name: AUDIT_LOG_PACKAGE,
    ids: [AUDIT_LOG_ID],
    settings: { version: AUDIT_LOG_WIRE_VERSION },
    stage,
    middleware: async (call, ctx, next) => {
      const started = performance.now();
      const record = async (ended: Pick<AuditEntry, 'outcome' | 'code'>): Promise<number> => {
        // Numbered when the call ends, so entries are in the order calls ended.
        const entry = (entries += 1);
        const durationMs = Math.round(performance.now() - started);
        const principal = ctx.principal;
        try {
          await write({ entry, at: new Date().toISOString(), principal, tool: call.name, durationMs, ...ended });
        } catch (error) {
          ctx.logger.warn('audit-log: an entry could not be written', { entry, error: String(error) });
        }
        return entry;
      };
      let result: ToolResult;
      try {
        result = await next();
      } catch (error) {
        await record({ outcome: 'refused', code: codeOf(error) });
        throw error;
      }
      const entry = await record({ outcome: result.isError === true ? 'tool_error' : 'ok' });
      if (ctx.negotiated(AUDIT_LOG_ID) === undefined) return result;
      return { ...result, _meta: { ...result._meta, [AUDIT_LOG_ID]: { entry } } };
    },
  };
}

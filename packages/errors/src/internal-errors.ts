/** Internal errors, made traceable: a correlation id for the client, one log line with the cause for the server. */
import { logInternalError, newCorrelationId, withCorrelationId } from '@ext/core/kit';
import { type CallContext, type StructuredError } from '@ext/core';

/** The code of an error answered without its cause (ERR-10, ERR-11's last row). */
const INTERNAL_ERROR = 'INTERNAL_ERROR';

/** Whether the client is told `INTERNAL_ERROR`: the one answer that says nothing of what happened (ERR-29). */
export function isInternalError(structured: StructuredError): boolean {
  return structured.code === INTERNAL_ERROR;
}

/**
 * An internal error, made traceable: a new correlation id goes into
 * `details.correlation_id` of what the client receives, and the error is
 * logged once with that id, the tool, the caller and its stack (ERR-29,
 * ERR-30). Any other error is returned as it is, unlogged.
 */
export function traceableError(
  error: unknown,
  structured: StructuredError,
  ctx: CallContext,
): { readonly structured: StructuredError; readonly correlationId?: string | undefined } {
  if (!isInternalError(structured)) return { structured };
  const correlationId = newCorrelationId();
  logInternalError(ctx.logger, {
    correlationId,
    method: 'tools/call',
    tool: ctx.tool.name,
    principal: ctx.principal,
    error,
  });
  return { structured: withCorrelationId(structured, correlationId), correlationId };
}

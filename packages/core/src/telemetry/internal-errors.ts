/**
 * Internal errors: failures the server answers for without telling the
 * client their cause. Each gets a correlation id that goes both into the
 * answer and into one log line with the cause, so a user's report can be
 * matched to what happened (core SPEC, OBS-1..OBS-3).
 */
import { randomBytes } from 'node:crypto';
import { ErrorCodes, WireError, toWireError, type StructuredError } from '../contract/errors.js';
import { logError, type Logger } from './logger.js';
import { activeTraceIds } from './telemetry.js';
import type { RequestContext } from '../contract/extension.js';

/** A new correlation id: 16 hex characters (64 random bits), short enough to read out over the phone. */
export function newCorrelationId(): string {
  return randomBytes(8).toString('hex');
}

/** What one internal error is logged with. */
export interface InternalErrorReport {
  readonly correlationId: string;
  /** `tools/call`, or the extension method. */
  readonly method: string;
  /** The tool of a `tools/call`. */
  readonly tool?: string | undefined;
  /** The caller (`ctx.principal`). */
  readonly principal: string;
  /** What was thrown. */
  readonly error: unknown;
}

/** Reads what was thrown without ever throwing (a proxy, a getter that throws). */
function describe(error: unknown): { error: string; error_type?: string; stack?: string } {
  try {
    if (error instanceof Error) {
      return {
        error: error.message,
        error_type: error.name,
        ...(typeof error.stack === 'string' ? { stack: error.stack } : {}),
      };
    }
    return { error: String(error) };
  } catch {
    return { error: '[a thrown value that cannot be read]' };
  }
}

/**
 * Logs one internal error, once, through `logger.error` (`warn` when the
 * logger has none): the correlation id, the method and tool, the caller,
 * the cause with its stack, and the active trace's ids when telemetry runs.
 */
export function logInternalError(logger: Logger, report: InternalErrorReport): void {
  const target = report.tool === undefined ? report.method : `${report.method} ${report.tool}`;
  try {
    logError(logger, `${target} failed with an internal error (correlation id ${report.correlationId})`, {
      correlation_id: report.correlationId,
      method: report.method,
      ...(report.tool === undefined ? {} : { tool: report.tool }),
      principal: report.principal,
      ...describe(report.error),
      ...activeTraceIds(),
    });
  } catch {
    // A failing logger must not turn the answer into another failure.
  }
}

/** `structured` with the correlation id in `details.correlation_id` (the place the structured error schema leaves for it). */
export function withCorrelationId(structured: StructuredError, correlationId: string): StructuredError {
  return { ...structured, details: { ...(structured.details ?? {}), correlation_id: correlationId } };
}

/**
 * What an extension method's failure is answered with. An internal error
 * (what `toWireError` would send as JSON-RPC "Internal error", -32603, not a
 * deliberate `WireError`) is logged once and answered with its correlation
 * id in the structured `data`; anything else is returned as it was thrown.
 */
export function answerMethodFailure(
  error: unknown,
  method: string,
  ctx: Pick<RequestContext, 'logger' | 'principal'>,
): unknown {
  if (WireError.isInstance(error)) return error;
  const wire = toWireError(error);
  if (wire.code !== ErrorCodes.InternalError) return error;
  const correlationId = newCorrelationId();
  logInternalError(ctx.logger, { correlationId, method, principal: ctx.principal, error });
  const data = wire.data as StructuredError | undefined;
  return new WireError(wire.code, wire.message, data === undefined ? data : withCorrelationId(data, correlationId));
}

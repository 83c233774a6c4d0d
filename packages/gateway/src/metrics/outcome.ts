/**
 * How a tool call ended, read from what its client got: the result (an
 * `isError` result, a call held for a person, a task) or what was thrown,
 * with the structured error the errors stage made of a failure (it keeps it
 * from clients that did not ask for it, so it is remembered on the call's
 * context). Pure: no I/O, labels from closed sets only.
 */
import { defineLocal, isInputRequiredResult, isRecord } from '@ext/core/kit';
import { ERROR_CATEGORIES, WireError } from '@ext/core';
import type { CallContext, StructuredError } from '@ext/core';
import { CONFIRMATION_ID } from '@ext/confirmation';
import type { ErrorReport } from '@ext/errors/server';
import { getStructuredError } from '@ext/errors/client';
import type { CallOutcome, ConfirmationDecision, LimitKind } from './recorder.js';

/** `error.type` of a result with `isError`, as the OpenTelemetry conventions name it. */
export const TOOL_ERROR = 'tool_error';
/** A label value standing for any value outside the closed set (the conventions' fallback). */
export const OTHER = '_OTHER';

/** How a call ended, as the series label it. */
export interface CallEnd {
  readonly outcome: CallOutcome;
  /** The structured error's category, `tool_error`, `protocol_error` or `internal`; empty when it did not fail. */
  readonly category: string;
  /** `error.type`: `tool_error` for a failed result, the JSON-RPC code of a protocol error; empty otherwise. */
  readonly errorType: string;
  /** The limit that refused it, when one did. */
  readonly limit?: LimitKind | undefined;
  /** What became of a confirmation asked through the client. */
  readonly confirmation?: 'requested' | ConfirmationDecision | undefined;
}

const LIMITS: Readonly<Record<string, LimitKind>> = { QUOTA_EXHAUSTED: 'quota', RATE_LIMIT_EXCEEDED: 'rate_limit' };

/** Confirmation codes that are an operator's (the approvals series count them), not the client's. */
const OUT_OF_BAND = new Set([
  'CONFIRMATION_PENDING',
  'CONFIRMATION_DENIED',
  'CONFIRMATION_EXPIRED',
  'CONFIRMATION_OUTCOME_UNKNOWN',
]);

const reported = defineLocal<StructuredError>('gateway/metrics-error');

/** The errors stage's `onError`: keeps the structured error a failed call was answered with, for {@link callEnd}. */
export function rememberCallError(report: Pick<ErrorReport, 'structured' | 'ctx'>): void {
  reported.set(report.ctx, report.structured);
}

/** The structured error the errors stage answered the call with, if it failed that way. */
export function reportedError(ctx: Pick<CallContext, 'locals'>): StructuredError | undefined {
  return reported.get(ctx);
}

function confirmationOfCode(code: string): CallEnd['confirmation'] {
  if (code === 'CONFIRMATION_DECLINED') return 'declined';
  return code.startsWith('CONFIRMATION_') && !OUT_OF_BAND.has(code) ? 'refused' : undefined;
}

function categoryOf(error: StructuredError | undefined): string {
  if (error === undefined) return TOOL_ERROR;
  return (ERROR_CATEGORIES as readonly string[]).includes(error.category) ? error.category : OTHER;
}

/** What the confirmation extension said of the call in the result's `_meta`. */
function confirmationStatus(result: Record<string, unknown>): unknown {
  const meta = result._meta;
  const entry = isRecord(meta) ? meta[CONFIRMATION_ID] : undefined;
  return isRecord(entry) ? entry.status : undefined;
}

function failed(error: StructuredError | undefined): CallEnd {
  const code = error?.code ?? '';
  return {
    outcome: 'error',
    category: categoryOf(error),
    errorType: TOOL_ERROR,
    limit: LIMITS[code],
    confirmation: confirmationOfCode(code),
  };
}

/** A result the call was answered with; `error`: the structured error the errors stage made of a failure. */
export function resultEnd(result: unknown, error: StructuredError | undefined): CallEnd {
  const answer = isRecord(result) ? result : {};
  if (answer.isError === true) return failed(error ?? getStructuredError(answer));
  if (answer.resultType === 'task' || isInputRequiredResult(answer))
    return { outcome: 'held', category: '', errorType: '' };
  const status = confirmationStatus(answer);
  if (status === 'confirmation_required')
    return { outcome: 'held', category: '', errorType: '', confirmation: 'requested' };
  return { outcome: 'ok', category: '', errorType: '', confirmation: status === 'confirmed' ? 'confirmed' : undefined };
}

/** Something thrown past the errors stage: a JSON-RPC error by intent, else a failure the client sees as `isError`. */
export function thrownEnd(thrown: unknown, error: StructuredError | undefined): CallEnd {
  if (WireError.isInstance(thrown))
    return { outcome: 'error', category: 'protocol_error', errorType: String(thrown.code) };
  const end = failed(error ?? getStructuredError(thrown));
  return error === undefined && getStructuredError(thrown) === undefined ? { ...end, category: 'internal' } : end;
}

/** `error.type` of a call sent upstream: empty when answered, `tool_error` for `isError`, else the fault's code or class. */
export function upstreamErrorType(result: unknown, thrown: unknown): string {
  if (thrown === undefined) return isRecord(result) && result.isError === true ? TOOL_ERROR : '';
  if (WireError.isInstance(thrown)) return String(thrown.code);
  const code = getStructuredError(thrown)?.code;
  if (code !== undefined && /^[A-Z][A-Z0-9_]{0,63}$/.test(code)) return code;
  const name = thrown instanceof Error ? thrown.name : '';
  return /^[A-Za-z][A-Za-z0-9]{0,63}$/.test(name) ? name : OTHER;
}

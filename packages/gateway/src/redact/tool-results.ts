/**
 * What the gateway's proxied tools hand on from an upstream, redacted: the
 * result (unless the config says `redact.results: false`), with the count in
 * the gateway's own `_meta` entry (GW-23), and always an error the upstream
 * answered with, since that error also reaches traces and logs (GW-24). Pure.
 */
import { ExtensionError, extensionId } from '@ext/core';
import { isRecord } from '@ext/core/kit';
import { redactToolResult, type Redactor, type ToolResultLike } from './redactor.js';

/**
 * The `_meta` key of what the gateway itself says about a result, named as
 * every package of the family names its own (`io.github.mcp-ext/<package>`).
 * A result in which secrets were replaced carries
 * `{ redaction: { count, detectors } }` there.
 */
export const GATEWAY_META_KEY = extensionId('gateway');

/** What `_meta[GATEWAY_META_KEY].redaction` holds. */
export interface RedactionMeta {
  /** How many secrets were replaced. */
  readonly count: number;
  /** The ids of the detectors that fired, sorted, each once. */
  readonly detectors: readonly string[];
}

/** How the gateway redacts what its proxied tools hand on. */
export interface ToolRedaction {
  readonly redactor: Redactor;
  /** Whether results are redacted (`redact.results`, default `true`); upstream errors always are. */
  readonly results: boolean;
}

/** `result` with its secrets replaced and, when there were any, their count in `_meta[GATEWAY_META_KEY]`. */
export function redactedResult<R extends ToolResultLike>(redactor: Redactor, result: R): R {
  const redaction = redactToolResult(redactor, result);
  if (redaction.count === 0) return result;
  const meta = isRecord(result._meta) ? result._meta : {};
  const entry: { redaction: RedactionMeta } = {
    redaction: { count: redaction.count, detectors: redaction.detectors },
  };
  // An entry the upstream put under our key is replaced: only the gateway speaks for itself there.
  return { ...redaction.value, _meta: { ...meta, [GATEWAY_META_KEY]: entry } };
}

/**
 * An upstream's error with its secrets replaced in the message, suggestion
 * and details, or the error itself when it holds none (or is not one the
 * upstream connection made). The copy leaves the cause out: the SDK's error
 * there carries the upstream's own words, secret included.
 */
export function redactedError(redactor: Redactor, error: unknown): unknown {
  if (!ExtensionError.isInstance(error)) return error;
  const message = redactor.text(error.message);
  const suggestion = error.suggestion === undefined ? undefined : redactor.text(error.suggestion);
  const details = error.details === undefined ? undefined : redactor.value(error.details);
  if (message.count + (suggestion?.count ?? 0) + (details?.count ?? 0) === 0) return error;
  return new ExtensionError(error.category, error.code, message.value, {
    retryAfterSeconds: error.retryAfterSeconds,
    userActionable: error.userActionable,
    suggestion: suggestion?.value,
    details: details?.value,
    documentationUrl: error.documentationUrl,
  });
}

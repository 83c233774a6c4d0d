/** `mapError`: anything thrown, mapped to a structured error that is safe to send. */
import {
  ERROR_CATEGORIES,
  ErrorCodes,
  ExtensionError,
  WireError,
  type ErrorCategory,
  type StructuredError,
} from '@ext/core';
import { DEFAULT_CODES } from './classes.js';
import {
  REQUEST_TIMEOUT,
  storeOutage,
  TIMEOUT_CODES,
  TIMEOUT_NAMES,
  UNAVAILABLE_CODES,
  zodCandidate,
  zodIssues,
  type Candidate,
} from './foreign.js';
import { readProperty } from './read.js';
import {
  httpsUrl,
  MAX_MESSAGE_LENGTH,
  MAX_SUGGESTION_LENGTH,
  normalizeCode,
  redactText,
  sanitizeDetails,
} from './sanitize.js';

export interface MapErrorOptions {
  /**
   * Put the (redacted) message of foreign errors on the wire instead of a
   * generic one. Default `false`: a plain `Error`'s message is written for
   * developers and often names internals. `ExtensionError` messages are
   * always used, since they are written for the peer.
   */
  readonly exposeMessages?: boolean | undefined;
  /**
   * Base of `documentation_url` for errors that carry none: the code is
   * appended (`https://docs.example.com/errors#` + `RATE_LIMIT_EXCEEDED`).
   * Must be https.
   */
  readonly documentationBaseUrl?: string | undefined;
}

/** Messages used when the original one is not exposed, per category. */
export const GENERIC_MESSAGES: Readonly<Record<ErrorCategory, string>> = {
  transient: 'The operation failed temporarily.',
  permanent: 'The tool failed because of an internal error.',
  auth_required: 'Authentication is required for this operation.',
  invalid_input: 'The tool arguments are invalid.',
  rate_limited: 'Too many requests.',
};

const read = readProperty;

function isCategory(value: unknown): value is ErrorCategory {
  return typeof value === 'string' && (ERROR_CATEGORIES as readonly string[]).includes(value);
}

function textOf(value: unknown, fallback: string, max: number): string {
  if (typeof value !== 'string') return fallback;
  return redactText(value, max) ?? fallback;
}

/**
 * Turns a candidate (possibly hostile, possibly from another copy of this
 * package) into a payload valid against the schema: every field checked,
 * text redacted, details sanitized, url https only.
 */
export function normalizeStructured(candidate: Candidate, options: MapErrorOptions = {}): StructuredError {
  const category: ErrorCategory = isCategory(candidate.category) ? candidate.category : 'permanent';
  const code = normalizeCode(candidate.code) ?? DEFAULT_CODES[category];
  const out: StructuredError = {
    code,
    message: textOf(candidate.message, GENERIC_MESSAGES[category], MAX_MESSAGE_LENGTH),
    category,
  };
  const retry = candidate.retry_after_seconds;
  if (typeof retry === 'number' && Number.isFinite(retry)) {
    out.retry_after_seconds = Math.min(Number.MAX_SAFE_INTEGER, Math.max(0, Math.ceil(retry)));
  }
  if (typeof candidate.user_actionable === 'boolean') out.user_actionable = candidate.user_actionable;
  if (typeof candidate.suggestion === 'string') {
    const suggestion = redactText(candidate.suggestion, MAX_SUGGESTION_LENGTH);
    if (suggestion !== undefined) out.suggestion = suggestion;
  }
  const details = sanitizeDetails(candidate.details);
  if (details !== undefined) out.details = details;
  const url =
    httpsUrl(candidate.documentation_url) ??
    (options.documentationBaseUrl === undefined ? undefined : httpsUrl(`${options.documentationBaseUrl}${code}`));
  if (url !== undefined) out.documentation_url = url;
  return out;
}

function fromExtensionError(error: ExtensionError, options: MapErrorOptions): StructuredError {
  let structured: unknown;
  const toStructured = read(error, 'toStructured');
  if (typeof toStructured === 'function') {
    try {
      structured = toStructured.call(error);
    } catch {
      // A broken toStructured (another copy, a subclass) falls back to the public fields below.
      structured = undefined;
    }
  }
  if (typeof structured === 'object' && structured !== null) return normalizeStructured(structured, options);
  return normalizeStructured(
    {
      code: read(error, 'code'),
      message: read(error, 'message'),
      category: read(error, 'category'),
      retry_after_seconds: read(error, 'retryAfterSeconds'),
      user_actionable: read(error, 'userActionable'),
      suggestion: read(error, 'suggestion'),
      details: read(error, 'details'),
      documentation_url: read(error, 'documentationUrl'),
    },
    options,
  );
}

function foreignMessage(error: unknown, category: ErrorCategory, options: MapErrorOptions): string {
  if (options.exposeMessages !== true) return GENERIC_MESSAGES[category];
  const message = typeof error === 'string' ? error : read(error, 'message');
  return textOf(message, GENERIC_MESSAGES[category], MAX_MESSAGE_LENGTH);
}

function mapUnsafe(error: unknown, options: MapErrorOptions): StructuredError {
  if (ExtensionError.isInstance(error)) return fromExtensionError(error, options);

  const name = read(error, 'name');
  const code = read(error, 'code');
  const data = read(error, 'data');

  // JSON-RPC errors (core's WireError, the SDKs' protocol errors): numeric code.
  if (
    WireError.isInstance(error) ||
    (typeof code === 'number' && Number.isInteger(code) && (typeof data === 'object' || data === undefined))
  ) {
    const dataCategory = read(data, 'category');
    if (
      isCategory(dataCategory) &&
      typeof read(data, 'code') === 'string' &&
      typeof read(data, 'message') === 'string'
    ) {
      return normalizeStructured(data as Candidate, options);
    }
    if (code === ErrorCodes.InvalidParams) {
      return normalizeStructured(
        { code: 'INVALID_INPUT', category: 'invalid_input', message: foreignMessage(error, 'invalid_input', options) },
        options,
      );
    }
    if (code === REQUEST_TIMEOUT) {
      return normalizeStructured(
        {
          code: 'OPERATION_TIMEOUT',
          category: 'transient',
          message: 'The operation timed out.',
          suggestion: 'Try again later.',
        },
        options,
      );
    }
  }

  const issues = zodIssues(error);
  if (issues?.[0] !== undefined) return normalizeStructured(zodCandidate(issues[0]), options);

  const outage = storeOutage(error);
  if (outage !== undefined) return fromExtensionError(outage, options);

  if ((typeof name === 'string' && TIMEOUT_NAMES.has(name)) || (typeof code === 'string' && TIMEOUT_CODES.has(code))) {
    return normalizeStructured(
      {
        code: 'OPERATION_TIMEOUT',
        category: 'transient',
        message: 'The operation timed out or was cancelled.',
        suggestion: 'Try again later.',
      },
      options,
    );
  }
  if (typeof code === 'string' && UNAVAILABLE_CODES.has(code)) {
    return normalizeStructured(
      {
        code: 'SERVER_UNAVAILABLE',
        category: 'transient',
        message: 'A service the tool depends on is unavailable.',
        suggestion: 'Try again later.',
      },
      options,
    );
  }
  return normalizeStructured(
    { code: 'INTERNAL_ERROR', category: 'permanent', message: foreignMessage(error, 'permanent', options) },
    options,
  );
}

const LAST_RESORT: StructuredError = {
  code: 'INTERNAL_ERROR',
  message: GENERIC_MESSAGES.permanent,
  category: 'permanent',
};

/**
 * Maps anything thrown to a structured error that is safe to send: an
 * `ExtensionError` to its own structured object, a zod error to
 * `invalid_input` naming the first field, a JSON-RPC -32602 to
 * `invalid_input`, a store outage (core's `StoreUnavailableError`, also
 * inside a `cause` chain, or node-redis's and SQLite's own errors) to
 * `transient` `SERVICE_UNAVAILABLE` with `retry_after_seconds`, aborts and
 * timeouts to `transient` `OPERATION_TIMEOUT`, network failures to
 * `transient` `SERVER_UNAVAILABLE`, everything else to
 * `permanent` `INTERNAL_ERROR` with a generic message. Never throws; the
 * result always validates against the schema.
 */
export function mapError(error: unknown, options: MapErrorOptions = {}): StructuredError {
  try {
    return mapUnsafe(error, options);
  } catch {
    // Only a hostile value (a proxy that throws on every trap) gets here; it deserves nothing more specific.
    return { ...LAST_RESORT };
  }
}

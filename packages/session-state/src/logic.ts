/**
 * The pure logic of session state: reading the `_meta` entries, encoding
 * state as JSON, sizing it, and the errors the extension reports. No I/O
 * here; the server and client halves only translate.
 */
import { canonicalJson, isRecord, lazyValidator, metaFault, metaPointer, type JsonValue } from '@ext/core/kit';
import { ExtensionError, type ToolResult } from '@ext/core';
import {
  SESSION_STATE_ID,
  SESSION_STATE_INVALID,
  SESSION_STATE_INVALID_VALUE,
  SESSION_STATE_TOO_LARGE,
  SessionStateRequestMetaSchema,
  SessionStateResultMetaSchema,
  type SessionStateResultMeta,
} from './schema.js';
import type { TokenFailureReason } from './token.js';

/** Why an incoming token was refused: the token checks, plus state the server no longer accepts. */
export type SessionStateFailureReason = TokenFailureReason | 'invalid_state';

/** What the client is told to do about a refused token (SS-9). */
export const RETRY_WITHOUT_TOKEN_SUGGESTION =
  'Retry the call without a session_state token (drop the stored one); the server then starts from empty session state.';

/** JSON Pointer, relative to the request `params`, of this extension's entry (under `id`) or a field in it. */
export function statePointer(field?: string, id: string = SESSION_STATE_ID): string {
  return metaPointer(id, field);
}

// Compiled on first use: keeps import free of work.
const requestValidator = lazyValidator(SessionStateRequestMetaSchema);
const resultValidator = lazyValidator(SessionStateResultMetaSchema);

export type RequestMetaParse =
  | { readonly ok: true; readonly token: string | undefined }
  | { readonly ok: false; readonly field: string; readonly pointer: string; readonly message: string };

/**
 * Reads `params._meta[id]` as it arrived. Absent means no token. Only the
 * shape is checked here (an object with a base64url `session_state`); the
 * token itself is opened by `openToken`. Never throws.
 */
export function parseRequestMeta(raw: unknown, id: string = SESSION_STATE_ID): RequestMetaParse {
  if (raw === undefined) return { ok: true, token: undefined };
  if (requestValidator().Check(raw)) return { ok: true, token: raw.session_state };
  if (!isRecord(raw)) return metaFault(id, '', `params._meta["${id}"] must be an object with a "session_state" string`);
  return metaFault(id, '/session_state', `params._meta["${id}"].session_state must be a non-empty base64url string`);
}

function describe(reason: SessionStateFailureReason, maxTokenBytes: number): string {
  switch (reason) {
    case 'malformed':
      return 'The session_state token is malformed';
    case 'too_large':
      return `The session_state token is longer than the ${maxTokenBytes} bytes this server accepts`;
    case 'unsupported_version':
      return 'The session_state token uses a format version this server does not read';
    case 'unknown_key':
      return 'The session_state token was sealed with a key this server no longer holds';
    case 'not_authentic':
      return 'The session_state token is not authentic: it was altered, or it was issued to another caller or another server';
    case 'expired':
      return 'The session_state token has expired';
    case 'invalid_state':
      return 'The session_state token holds state this server no longer accepts';
  }
}

/**
 * The refusal of an incoming token: `invalid_input`, code
 * `SESSION_STATE_INVALID`, the reason in `details`, and the suggestion to
 * retry without a token (SS-8, SS-9).
 */
export function invalidTokenError(
  reason: SessionStateFailureReason,
  options: {
    readonly maxTokenBytes: number;
    readonly id?: string;
    readonly message?: string;
    readonly field?: string;
    readonly pointer?: string;
  },
): ExtensionError {
  const id = options.id ?? SESSION_STATE_ID;
  return new ExtensionError(
    'invalid_input',
    SESSION_STATE_INVALID,
    options.message ?? describe(reason, options.maxTokenBytes),
    {
      userActionable: false,
      suggestion: RETRY_WITHOUT_TOKEN_SUGGESTION,
      details: {
        reason,
        field: options.field ?? 'session_state',
        pointer: options.pointer ?? statePointer('session_state', id),
      },
    },
  );
}

/**
 * The refusal as a finished tool result, for a client that cannot receive
 * structured errors (`@ext/errors` not negotiated): the message and the
 * suggestion as text, and this extension's own order to drop the token
 * (`state_changed: true` without a token), so the client still recovers.
 */
export function refusalResult(error: ExtensionError, id: string = SESSION_STATE_ID): ToolResult {
  const text = [error.message, error.suggestion].filter((line) => line !== undefined).join('\n');
  return {
    content: [{ type: 'text', text }],
    isError: true,
    _meta: { [id]: { state_changed: true } satisfies SessionStateResultMeta },
  };
}

/**
 * The state as the JSON that gets sealed (RFC 8785 canonical form). Throws
 * `SESSION_STATE_INVALID_VALUE` for what JSON cannot carry: `undefined`,
 * functions, symbols, bigints, non-finite numbers, cycles.
 */
export function encodeState(value: unknown): string {
  if (value === undefined || typeof value === 'function' || typeof value === 'symbol') {
    throw invalidValueError(`session state must be a JSON value, got ${typeof value}`);
  }
  try {
    return canonicalJson(value);
  } catch (error) {
    throw invalidValueError(
      `session state must be a JSON value: ${error instanceof Error ? error.message : String(error)}`,
      error,
    );
  }
}

/** Parses sealed JSON back; `undefined` when it is not JSON (a token this version cannot have sealed). */
export function decodeState(plaintext: string): { readonly value: JsonValue } | undefined {
  try {
    return { value: JSON.parse(plaintext) as JsonValue };
  } catch {
    // Reported by the caller as `invalid_state`; the text itself never leaves the server.
    return undefined;
  }
}

/** Thrown by `set()` for a value that is not JSON, or that the server's schema refuses. */
export function invalidValueError(message: string, cause?: unknown): ExtensionError {
  return new ExtensionError('permanent', SESSION_STATE_INVALID_VALUE, message, {
    userActionable: false,
    details: { field: 'session_state' },
    cause,
  });
}

/** Thrown by `set()` when the sealed token would exceed the limit (SS-12). */
export function tooLargeError(sizeBytes: number, limitBytes: number): ExtensionError {
  return new ExtensionError(
    'permanent',
    SESSION_STATE_TOO_LARGE,
    `Session state too large: sealed it would take ${sizeBytes} bytes, the limit is ${limitBytes} bytes`,
    {
      userActionable: false,
      suggestion:
        'Keep less in session state: store large data on the server or behind a data reference and keep only its id.',
      details: { size_bytes: sizeBytes, limit_bytes: limitBytes },
    },
  );
}

/** `result._meta[id]` when it is well formed, else `undefined`. Never throws. */
export function readResultMeta(result: unknown, id: string = SESSION_STATE_ID): SessionStateResultMeta | undefined {
  const meta = isRecord(result) ? result._meta : undefined;
  const entry = isRecord(meta) ? meta[id] : undefined;
  if (!isRecord(entry) || !resultValidator().Check(entry)) return undefined;
  // A token without its expiry cannot be kept safely.
  if (
    entry.session_state !== undefined &&
    (entry.expires_at === undefined || Number.isNaN(Date.parse(entry.expires_at)))
  )
    return undefined;
  return entry;
}

// `io.github.mcp-ext/errors` and its later generations (`errors-v2`, ...).
const ERRORS_KEY = /^io\.github\.mcp-ext\/errors(?:-v\d+)?$/;

/**
 * Whether a tool result is the refusal of its session token
 * (`SESSION_STATE_INVALID`), read from the structured error `@ext/errors`
 * attaches. `false` when no structured error is present.
 */
export function isSessionStateRejected(result: unknown): boolean {
  if (!isRecord(result) || !isRecord(result._meta) || result.isError !== true) return false;
  return Object.entries(result._meta).some(
    ([key, value]) => ERRORS_KEY.test(key) && isRecord(value) && value.code === SESSION_STATE_INVALID,
  );
}

/**
 * The draft official shape of a classified tool failure, SEP-3313
 * "Structured Tool-Failure Classification" (`ToolFailure`): the object under
 * `_meta["io.modelcontextprotocol/toolFailure"]` of a failed `CallToolResult`,
 * and the mapping between it and this package's structured error (SPEC.md
 * section 7). Pure: the clock and the correlation id are passed in.
 */
import { isRecord, lazyValidator } from '@ext/core/kit';
import { type ErrorCategory, type StructuredError } from '@ext/core';
import Type, { type Static } from 'typebox';
import { DEFAULT_CODES } from './classes.js';

/** The `_meta` key the draft defines on `CallToolResult` (a reserved-prefix key, not a negotiated identifier). */
export const TOOL_FAILURE_KEY = 'io.modelcontextprotocol/toolFailure';

/** The draft's three behavioural classes. */
export const TOOL_FAILURE_CLASSES = ['capability', 'reliability', 'governance'] as const;
export type ToolFailureClass = (typeof TOOL_FAILURE_CLASSES)[number];

/**
 * The draft's `ToolFailure` as a schema. The draft types it as a TypeScript
 * interface, so fields it does not name are not forbidden; `code` and
 * `correlationId` are plain strings there, and `retryNotBefore` is Unix
 * epoch milliseconds.
 */
export const ToolFailureSchema = Type.Object(
  {
    class: Type.Enum([...TOOL_FAILURE_CLASSES], { type: 'string' }),
    code: Type.String(),
    retryable: Type.Optional(Type.Boolean()),
    retryNotBefore: Type.Optional(Type.Number()),
    correlationId: Type.String(),
    agentGuidance: Type.Optional(Type.String()),
  },
  { title: 'ToolFailure', description: 'SEP-3313: structured classification of a failed tool call.' },
);
export type ToolFailure = Static<typeof ToolFailureSchema>;

const compiled = lazyValidator(ToolFailureSchema);

/** Whether `value` has the draft's `ToolFailure` shape. Never throws. */
export function isToolFailure(value: unknown): value is ToolFailure {
  try {
    return isRecord(value) && compiled().Check(value);
  } catch {
    // A hostile object (throwing getters, proxies) is no failure object.
    return false;
  }
}

/** The class of each category: what the client may do, in the draft's terms (SPEC ERR-32). */
export const CLASS_OF_CATEGORY: Readonly<Record<ErrorCategory, ToolFailureClass>> = {
  transient: 'reliability',
  rate_limited: 'reliability',
  invalid_input: 'capability',
  permanent: 'capability',
  auth_required: 'governance',
};

/** Whether the category says that retrying the same call may succeed. */
function retries(category: ErrorCategory): boolean {
  return CLASS_OF_CATEGORY[category] === 'reliability';
}

/**
 * Our structured error as the draft's `ToolFailure` (ERR-32): `code` is
 * ours in the draft's lower snake case, `retryable` is sent for reliability
 * only, `retryNotBefore` is `nowMs` plus `retry_after_seconds`, and
 * `agentGuidance` is the suggestion.
 */
export function toToolFailure(error: StructuredError, correlationId: string, nowMs: number): ToolFailure {
  const failure: ToolFailure = {
    class: CLASS_OF_CATEGORY[error.category],
    code: error.code.toLowerCase(),
    correlationId,
  };
  if (retries(error.category)) {
    failure.retryable = true;
    if (error.retry_after_seconds !== undefined) failure.retryNotBefore = nowMs + error.retry_after_seconds * 1000;
  }
  if (error.suggestion !== undefined) failure.agentGuidance = error.suggestion;
  return failure;
}

/**
 * The category of a draft failure (ERR-34): the class decides, the code
 * only picks between the two categories of a class: `invalid_input` among
 * capability failures, a rate limit among reliability failures.
 */
export function categoryOfFailure(failureClass: ToolFailureClass, code: string): ErrorCategory {
  const lower = code.toLowerCase();
  if (failureClass === 'governance') return 'auth_required';
  if (failureClass === 'reliability') return lower.includes('rate_limit') ? 'rate_limited' : 'transient';
  return lower === 'invalid_input' ? 'invalid_input' : 'permanent';
}

const CODE_LIMIT = 64;

/** The draft's open `code` as ours (ERR-5: UPPER_SNAKE_CASE, at most 64); the category's default when nothing is left. */
function ourCode(code: string, category: ErrorCategory): string {
  const upper = code
    .toUpperCase()
    .replace(/[^A-Z0-9]+/g, '_')
    .replace(/^[_0-9]+|_+$/g, '')
    .slice(0, CODE_LIMIT)
    .replace(/_+$/, '');
  return upper === '' ? DEFAULT_CODES[category] : upper;
}

/** The message when the result carries no text of its own. */
const CLASS_MESSAGES: Readonly<Record<ToolFailureClass, string>> = {
  capability: 'The tool call failed and cannot succeed as requested.',
  reliability: 'The tool call failed on a transient condition.',
  governance: 'The tool call was refused by policy.',
};

/**
 * A draft failure read back as our structured error (ERR-34): `message` is
 * the result's text (`text`, what the plain protocol carries) or a generic
 * one for the class, `suggestion` the `agentGuidance`, `details.correlation_id`
 * the `correlationId`, and `retry_after_seconds` what is left until
 * `retryNotBefore` at `nowMs`, rounded up.
 */
export function fromToolFailure(failure: ToolFailure, text: string | undefined, nowMs: number): StructuredError {
  const category = categoryOfFailure(failure.class, failure.code);
  const message = text !== undefined && text.trim() !== '' ? text : CLASS_MESSAGES[failure.class];
  const error: StructuredError = {
    code: ourCode(failure.code, category),
    message,
    category,
    details: { correlation_id: failure.correlationId },
  };
  const waitMs = failure.retryNotBefore === undefined ? 0 : failure.retryNotBefore - nowMs;
  if (retries(category) && failure.retryable === true && Number.isFinite(waitMs) && waitMs > 0) {
    error.retry_after_seconds = Math.ceil(waitMs / 1000);
  }
  if (failure.agentGuidance !== undefined && failure.agentGuidance !== '') error.suggestion = failure.agentGuidance;
  return error;
}

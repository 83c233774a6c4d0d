/**
 * Recognizing errors this package did not make: zod validation errors, store
 * outages (core's, node-redis's, SQLite's, anywhere in a `cause` chain),
 * timeouts and network failures. Each is read defensively (`readProperty`).
 */
import { StoreUnavailableError, type StoreUnavailableReason, type StructuredError } from '@ext/core';
import { readProperty as read } from './read.js';
import { redactText } from './sanitize.js';

/** A structured error before it is checked: every field possibly missing or of the wrong type. */
export type Candidate = Partial<Record<keyof StructuredError, unknown>>;

export const TIMEOUT_NAMES = new Set(['AbortError', 'TimeoutError']);
export const TIMEOUT_CODES = new Set([
  'ABORT_ERR',
  'ETIMEDOUT',
  'ESOCKETTIMEDOUT',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);
export const UNAVAILABLE_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'EPIPE',
  'EAI_AGAIN',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'UND_ERR_SOCKET',
]);
/** JSON-RPC request timeout as both MCP SDK lines define it. */
export const REQUEST_TIMEOUT = -32001;

/**
 * node-redis's own connection and timeout errors, by class name: their
 * `name` is a plain `Error`, and this package must not depend on a store.
 * Stores convert them to core's `StoreUnavailableError`; these are for one
 * that leaks from code using node-redis directly.
 */
const REDIS_UNAVAILABLE_CLASSES: ReadonlyMap<string, StoreUnavailableReason> = new Map([
  ['ClientOfflineError', 'unreachable'],
  ['ClientClosedError', 'unreachable'],
  ['SocketClosedUnexpectedlyError', 'unreachable'],
  ['ReconnectStrategyError', 'unreachable'],
  ['DisconnectsClientError', 'unreachable'],
  ['ConnectionTimeoutError', 'timeout'],
  ['SocketTimeoutError', 'timeout'],
  ['SocketTimeoutDuringMaintenanceError', 'timeout'],
  ['CommandTimeoutDuringMaintenanceError', 'timeout'],
  // node-redis's command timeout; a `TimeoutError` named as such (DOMException) is an OPERATION_TIMEOUT below.
  ['TimeoutError', 'timeout'],
]);

/** SQLite result codes (better-sqlite3's `code`) that say the database cannot take writes now. */
const SQLITE_UNAVAILABLE: readonly (readonly [RegExp, StoreUnavailableReason])[] = [
  [/^SQLITE_(BUSY|LOCKED)/, 'busy'],
  [/^SQLITE_FULL/, 'full'],
  [/^SQLITE_READONLY/, 'read_only'],
  [/^SQLITE_(IOERR|CANTOPEN)/, 'io_error'],
];

/** How deep `cause` chains are followed looking for a store outage. */
const MAX_CAUSE_DEPTH = 4;

/** A zod error (v3 or v4), duck-typed: `issues` with `path` arrays. */
export function zodIssues(error: unknown): { path: unknown[]; message: unknown; code: unknown }[] | undefined {
  const issues = read(error, 'issues');
  if (!Array.isArray(issues) || issues.length === 0) return undefined;
  const first: unknown = issues[0];
  const path = read(first, 'path');
  if (!Array.isArray(path)) return undefined;
  return [{ path: path as unknown[], message: read(first, 'message'), code: read(first, 'code') }];
}

const SAFE_SEGMENT = /^[\w-]{1,64}$/;

/** The `invalid_input` error for a zod issue, naming its field when the path is safe to repeat. */
export function zodCandidate(issue: { path: unknown[]; message: unknown; code: unknown }): Candidate {
  const segments: string[] = [];
  for (const segment of issue.path.slice(0, 32)) {
    if (typeof segment === 'number' && Number.isSafeInteger(segment)) segments.push(String(segment));
    else if (typeof segment === 'string' && SAFE_SEGMENT.test(segment)) segments.push(segment);
    else break;
  }
  const field = segments.join('.');
  const details: Record<string, unknown> = {};
  if (field !== '') {
    details.field = field;
    details.pointer = `/${segments.join('/')}`;
  }
  if (typeof issue.code === 'string' && SAFE_SEGMENT.test(issue.code)) details.constraint = issue.code;
  const reason = typeof issue.message === 'string' ? redactText(issue.message, 500) : undefined;
  const where = field === '' ? 'The tool arguments are invalid' : `Invalid value for "${field}"`;
  return {
    code: 'INVALID_INPUT',
    category: 'invalid_input',
    message: reason === undefined ? `${where}.` : `${where}: ${reason}`,
    suggestion:
      field === '' ? 'Correct the arguments and call the tool again.' : `Correct "${field}" and call the tool again.`,
    details,
  };
}

/** The store outage a foreign error stands for, judged by its class name or its code. */
function storeReason(error: unknown): StoreUnavailableReason | undefined {
  const code = read(error, 'code');
  if (typeof code === 'string') {
    const found = SQLITE_UNAVAILABLE.find(([pattern]) => pattern.test(code));
    if (found) return found[1];
  }
  const className = read(read(error, 'constructor'), 'name');
  if (typeof className !== 'string') return undefined;
  // node-redis leaves `name` as `Error`; a timeout that names itself is a generic one.
  if (className === 'TimeoutError' && read(error, 'name') === className) return undefined;
  return REDIS_UNAVAILABLE_CLASSES.get(className);
}

/**
 * A store outage anywhere in a foreign error's `cause` chain (an extension
 * may wrap what its store threw): core's `StoreUnavailableError` as it is,
 * or one made for a store client's own connection, timeout or storage error. Without
 * this, a retryable outage would go out as a permanent INTERNAL_ERROR and
 * well-behaved clients would never retry.
 */
export function storeOutage(error: unknown): StoreUnavailableError | undefined {
  let current = error;
  for (let depth = 0; depth <= MAX_CAUSE_DEPTH && typeof current === 'object' && current !== null; depth++) {
    if (StoreUnavailableError.isInstance(current)) return current;
    const reason = storeReason(current);
    if (reason !== undefined) return new StoreUnavailableError({ reason });
    current = read(current, 'cause');
  }
  return undefined;
}

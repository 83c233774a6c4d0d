/**
 * Leak filters for everything a structured error carries to the peer.
 * Error text written for developers (stack traces, file paths, SQL, secrets,
 * internal addresses) must never reach a client or a model (docs/ARCHITECTURE.md, 'Errors').
 * These are heuristics tuned to over-redact rather than leak.
 */

/** Longest `message` put on the wire; longer text is cut. */
export const MAX_MESSAGE_LENGTH = 2000;
/** Longest `suggestion` put on the wire. */
export const MAX_SUGGESTION_LENGTH = 1000;
/** Longest string kept inside `details`. */
export const MAX_DETAIL_STRING_LENGTH = 1000;
/** Deepest nesting kept inside `details`; deeper values are dropped. */
export const MAX_DETAILS_DEPTH = 6;
/** Most keys (or array items) kept per object (or array) inside `details`. */
export const MAX_DETAILS_ENTRIES = 50;

// Bounds regex work on hostile input: nothing longer is ever scanned.
const MAX_SCAN_LENGTH = 8192;

const REDACTED = '[redacted]';

/** Patterns whose match, and everything after it, is internal (a stack trace, a SQL statement). */
const CUT_FROM_MATCH: readonly RegExp[] = [
  // A stack frame on its own line: "\n    at fn (file:1:2)".
  /\r?\n\s*at\s+\S/,
  // SQL statements; keywords alone are common English, so each needs SQL syntax around it.
  /\bselect\s+(?:\*|distinct\b|count\s*\(|[\w"`.[\]]+\s*,|[\w"`.[\]]+\s+from\b)/i,
  /\binsert\s+into\s+[\w"`.[\]]+\s*(?:\(|values\b|select\b)/i,
  /\bupdate\s+[\w"`.[\]]+\s+set\s+[\w"`.[\]]+\s*=/i,
  /\bdelete\s+from\s+[\w"`.[\]]+/i,
  /\b(?:drop|create|alter|truncate)\s+(?:table|database|index|schema|view)\b/i,
  /\bwhere\s+[\w"`.[\]]+\s*(?:=|<>|!=|\blike\b|\bin\s*\(|\bis\s+(?:not\s+)?null\b)/i,
  /-----BEGIN [A-Z ]*PRIVATE KEY-----/,
];

/** Patterns whose match alone is replaced by `[redacted]`. */
const REPLACE_MATCH: readonly RegExp[] = [
  // A single-line stack frame: "at fn (/x/y.js:1:2)" or "at /x/y.js:1:2".
  /\bat\s+(?:[\w$.<>[\]]+\s+)?\(?(?:[^\s()]*[/\\.][^\s()]*|<anonymous>):\d+:\d+\)?/g,
  // Source file with a line number: "server.ts:12", "db.py:7:3".
  /[\w.-]+\.(?:[cm]?[jt]sx?|py|rb|go|java|kt|rs|php|cs|cpp|c|h|swift|scala|sql):\d+(?::\d+)?/gi,
  // URLs with credentials, and file URLs.
  /\b[a-z][a-z0-9+.-]*:\/\/[^\s/:@]*:[^\s/@]*@\S*/gi,
  /\bfile:\/\/\S*/gi,
  // Absolute or home-relative POSIX paths of at least two segments, and ./ ../ relative paths.
  /(?<![\w:/.~-])~?\/(?:[\w.@+-]+\/)+[\w.@+-]*/g,
  /(?<![\w.])\.{1,2}\/[\w.@+-]+(?:\/[\w.@+-]*)*/g,
  // Windows drive and UNC paths.
  /(?<![\w])[A-Za-z]:\\[^\s'"]*/g,
  /\\\\[\w.$-]+\\[^\s'"]*/g,
  /\bnode_modules\b\S*/g,
  // Credentials and well-known token shapes.
  /\b(?:Bearer|Basic|Token)\s+[\w\-.~+/]{8,}=*/g,
  /\b(?:password|passwd|pwd|secret|token|api[_-]?key|apikey|access[_-]?key|client[_-]?secret|auth)\s*[:=]\s*\S+/gi,
  /\bAKIA[0-9A-Z]{16}\b/g,
  /\bgh[pousr]_[A-Za-z0-9]{20,}\b/g,
  /\bsk-[A-Za-z0-9_-]{16,}/g,
  /\bxox[abprs]-[A-Za-z0-9-]{10,}/g,
  /\beyJ[\w-]{5,}\.[\w-]{5,}\.[\w-]*/g,
  /\b[A-Fa-f0-9]{32,}\b/g,
  // Network addresses of the infrastructure.
  /\b\d{1,3}(?:\.\d{1,3}){3}(?::\d{1,5})?\b/g,
  /\blocalhost:\d{1,5}\b/gi,
  /\b(?:[A-Fa-f0-9]{1,4}:){5,7}[A-Fa-f0-9]{1,4}\b/g,
  /\b(?:[A-Fa-f0-9]{1,4}:){1,6}:[A-Fa-f0-9]{1,4}\b/g,
];

// Long unbroken runs of base64 alphabet are keys when they mix digits and both cases.
const BLOB = /[A-Za-z0-9+/_=-]{40,}/g;

function isKeyLike(run: string): boolean {
  return /\d/.test(run) && /[a-z]/.test(run) && /[A-Z]/.test(run);
}

function bounded(text: string): string {
  return text.length > MAX_SCAN_LENGTH ? text.slice(0, MAX_SCAN_LENGTH) : text;
}

/** Whether `text` looks like it carries a stack trace, a path, SQL, a secret or an internal address. */
export function looksSensitive(text: string): boolean {
  const scanned = bounded(text);
  for (const pattern of CUT_FROM_MATCH) if (pattern.test(scanned)) return true;
  for (const pattern of REPLACE_MATCH) {
    pattern.lastIndex = 0;
    const hit = pattern.test(scanned);
    pattern.lastIndex = 0;
    if (hit) return true;
  }
  return (scanned.match(BLOB) ?? []).some(isKeyLike);
}

/** Cuts `text` to `max` characters, ending with an ellipsis when cut. */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, Math.max(0, max - 1))}\u2026`;
}

// eslint-disable-next-line no-control-regex -- control characters are exactly what is removed
const CONTROL_RUN = /[\u0000-\u001f\u007f]+/g;

/**
 * Removes internals from a human-readable string: everything from a stack
 * trace or SQL statement on is cut, and paths, secrets and addresses are
 * replaced by `[redacted]`. Control characters are flattened to spaces.
 * Returns `undefined` when nothing readable is left.
 */
export function redactText(text: string, max: number): string | undefined {
  let out = bounded(text);
  for (const pattern of CUT_FROM_MATCH) {
    const match = pattern.exec(out);
    if (match) out = `${out.slice(0, match.index)} ${REDACTED}`;
  }
  for (const pattern of REPLACE_MATCH) out = out.replace(pattern, REDACTED);
  out = out.replace(BLOB, (run) => (isKeyLike(run) ? REDACTED : run));
  out = out
    .replace(CONTROL_RUN, ' ')
    .replace(/\s{2,}/g, ' ')
    .trim();
  const readable = out.replaceAll(REDACTED, '').replace(/[\s.,:;'"()[\]-]+/g, '');
  if (readable.length === 0) return undefined;
  return truncate(out, max);
}

const SECRET_KEY =
  /(?:^|_)(?:password|passwd|pwd|secret|authorization|cookie|set_cookie|credentials?|stack|stacktrace|stack_trace|sql|query_text|private_key|api_key|apikey|access_key|secret_key|client_secret)$|(?:^|_)(?:access|refresh|id|auth|bearer|session|csrf)_token$/;

/** Whether a `details` key names something that is secret or internal by nature. */
export function isSecretKey(key: string): boolean {
  const normalized = key
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/[-\s.]+/g, '_')
    .toLowerCase();
  return SECRET_KEY.test(normalized);
}

function isPlainObject(value: object): boolean {
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

// Keys whose value names a field of the request: a JSON pointer there is not a file path.
const FIELD_KEY = /^(?:field|pointer|json_pointer|[\w]+_pointer)$/;
// Segments are plain names, or `_meta` keys holding an escaped slash (`io.github.mcp-ext~1idempotency`);
// a dotted segment without `~1` stays refused, as `/etc/app.conf` would be a file path.
const FIELD_POINTER = /^(?:\/(?:[\w-]{1,128}|[\w.-]{0,64}~1[\w.~-]{1,64})){1,32}$/;

function sanitizeValue(value: unknown, depth: number, seen: Set<object>, key?: string): unknown {
  if (value === null || typeof value === 'boolean') return value;
  // -0 is not JSON (it serializes as 0); normalizing keeps the payload equal to what the peer parses.
  if (typeof value === 'number') return Number.isFinite(value) ? value + 0 : undefined;
  if (typeof value === 'string') {
    if (key !== undefined && FIELD_KEY.test(key) && FIELD_POINTER.test(value)) return value;
    if (value.length > MAX_DETAIL_STRING_LENGTH || looksSensitive(value)) return undefined;
    return value;
  }
  if (typeof value !== 'object' || depth >= MAX_DETAILS_DEPTH || seen.has(value)) return undefined;
  seen.add(value);
  try {
    if (Array.isArray(value)) {
      const items: unknown[] = [];
      for (const item of value.slice(0, MAX_DETAILS_ENTRIES) as unknown[]) {
        const clean = sanitizeValue(item, depth + 1, seen);
        if (clean !== undefined) items.push(clean);
      }
      return items;
    }
    if (!isPlainObject(value)) return undefined;
    return sanitizeRecord(value as Record<string, unknown>, depth, seen);
  } finally {
    seen.delete(value);
  }
}

function sanitizeRecord(record: Record<string, unknown>, depth: number, seen: Set<object>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  let kept = 0;
  for (const key of Object.keys(record)) {
    if (kept >= MAX_DETAILS_ENTRIES) break;
    if (key === '__proto__' || isSecretKey(key) || key.length > 128 || looksSensitive(key)) continue;
    const descriptor = Object.getOwnPropertyDescriptor(record, key);
    // Accessors are skipped: running a getter could throw or have effects.
    if (!descriptor || !('value' in descriptor)) continue;
    const clean = sanitizeValue(descriptor.value, depth + 1, seen, key);
    if (clean === undefined) continue;
    out[key] = clean;
    kept += 1;
  }
  return out;
}

/**
 * Keeps only what is plain JSON and harmless in `details`: finite numbers,
 * booleans, null, short strings that do not look sensitive, plain objects
 * and arrays (bounded depth and size). Keys naming secrets are dropped.
 * Returns `undefined` when `details` is not a plain object or nothing is left.
 */
export function sanitizeDetails(details: unknown): Record<string, unknown> | undefined {
  if (typeof details !== 'object' || details === null || Array.isArray(details) || !isPlainObject(details)) {
    return undefined;
  }
  const out = sanitizeRecord(details as Record<string, unknown>, 0, new Set([details]));
  return Object.keys(out).length > 0 ? out : undefined;
}

/** The `href` of an https URL without credentials, or `undefined`. */
export function httpsUrl(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.length > 2048) return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    // Not a URL at all: the field is simply omitted.
    return undefined;
  }
  if (url.protocol !== 'https:' || url.username !== '' || url.password !== '' || url.hostname === '') return undefined;
  return url.href;
}

const UPPER_SNAKE = /^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*$/;

/** Longest error code put on the wire. */
export const MAX_CODE_LENGTH = 64;

/**
 * An UPPER_SNAKE_CASE code: kept when it already is one, otherwise
 * normalized (`rateLimited` -> `RATE_LIMITED`); `undefined` when nothing usable is left.
 */
export function normalizeCode(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  if (value.length <= MAX_CODE_LENGTH && UPPER_SNAKE.test(value)) return value;
  const normalized = bounded(value)
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toUpperCase()
    .replace(/[^A-Z0-9]+/g, '_')
    .replace(/^[^A-Z]+/, '')
    .slice(0, MAX_CODE_LENGTH)
    .replace(/_+$/, '');
  return UPPER_SNAKE.test(normalized) ? normalized : undefined;
}

/** Canonical JSON (RFC 8785 JCS): text, SHA-256 digest and equality of JSON values, the same in every process. */
import * as crypto from 'node:crypto';
import { ExtensionError } from '../contract/errors.js';

/** A JSON value as it travels on the wire. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/**
 * How many arrays and objects may nest in a value that {@link canonicalJson}
 * serializes (core SPEC, CORE-48). The serializer recurses, and tool
 * arguments are hashed on every idempotent or gated call: without a bound a
 * peer could overflow the stack with a few kilobytes of brackets. A
 * top-level object is depth 1; scalars add none.
 */
export const CANONICAL_MAX_DEPTH = 100;

/** The code of the `invalid_input` error a value nested deeper than {@link CANONICAL_MAX_DEPTH} is refused with. */
export const JSON_TOO_DEEP_CODE = 'JSON_TOO_DEEP';

/** The structured refusal of a value nested deeper than {@link CANONICAL_MAX_DEPTH} (CORE-48). */
export function jsonTooDeepError(): ExtensionError {
  return new ExtensionError(
    'invalid_input',
    JSON_TOO_DEEP_CODE,
    `The value nests arrays and objects deeper than ${String(CANONICAL_MAX_DEPTH)} levels, the most this server reads.`,
    {
      userActionable: true,
      suggestion: `Send values nested at most ${String(CANONICAL_MAX_DEPTH)} levels deep.`,
      details: { max_depth: CANONICAL_MAX_DEPTH },
    },
  );
}

/**
 * Throws {@link jsonTooDeepError} when `value` nests arrays and objects
 * deeper than {@link CANONICAL_MAX_DEPTH}; looks no deeper than that, so it
 * never overflows the stack. Cycles are left to the serializer.
 */
export function assertJsonDepth(value: unknown): void {
  if (deeperThanLimit(value, 0, new Set())) throw jsonTooDeepError();
}

function deeperThanLimit(value: unknown, depth: number, seen: Set<object>): boolean {
  if (typeof value !== 'object' || value === null || seen.has(value)) return false;
  if (depth >= CANONICAL_MAX_DEPTH) return true;
  seen.add(value);
  try {
    for (const member of Object.values(value)) if (deeperThanLimit(member, depth + 1, seen)) return true;
    return false;
  } finally {
    seen.delete(value);
  }
}

/**
 * Serializes a JSON value canonically (RFC 8785 JCS for the values JSON can
 * carry): object keys sorted by UTF-16 code units, no whitespace, numbers in
 * ECMAScript shortest form. Used to bind tokens to arguments, to compare
 * idempotent calls and to digest results. `undefined` members are dropped
 * as `JSON.stringify` does; non-finite numbers throw. A value nested deeper
 * than {@link CANONICAL_MAX_DEPTH} is refused with the structured
 * `invalid_input` error {@link jsonTooDeepError} (CORE-48).
 */
export function canonicalJson(value: unknown): string {
  return serialize(value, new Set());
}

function isMember(value: unknown): boolean {
  return value !== undefined && typeof value !== 'function';
}

function serialize(value: unknown, seen: Set<object>): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError('canonicalJson: non-finite number');
      return JSON.stringify(value);
    case 'string':
      return JSON.stringify(value);
    case 'object': {
      if (seen.has(value)) throw new TypeError('canonicalJson: circular structure');
      // The objects being serialized are exactly the ancestors of this one, so their count is its depth.
      if (seen.size >= CANONICAL_MAX_DEPTH) throw jsonTooDeepError();
      seen.add(value);
      try {
        // Plain loops and concatenation: this runs on every idempotent call and token check.
        if (Array.isArray(value)) {
          let out = '[';
          for (let index = 0; index < value.length; index++) {
            const item: unknown = value[index];
            if (index > 0) out += ',';
            out += item === undefined ? 'null' : serialize(item, seen);
          }
          return `${out}]`;
        }
        const record = value as Record<string, unknown>;
        const keys = Object.keys(record).sort();
        let out = '{';
        for (const key of keys) {
          const member = record[key];
          if (!isMember(member)) continue;
          if (out.length > 1) out += ',';
          out += `${JSON.stringify(key)}:${serialize(member, seen)}`;
        }
        return `${out}}`;
      } finally {
        seen.delete(value);
      }
    }
    case 'bigint':
      throw new TypeError('canonicalJson: bigint is not JSON');
    default:
      throw new TypeError(`canonicalJson: ${typeof value} is not JSON`);
  }
}

/** How deep {@link jsonEqual} looks before it answers "not equal" (JSON this deep is not a declaration). */
const EQUAL_MAX_DEPTH = 64;

/**
 * Whether two values have the same canonical JSON (see {@link canonicalJson}),
 * decided without serializing either: member order does not matter,
 * `undefined` and function members count as absent. Never throws; values
 * nested deeper than 64 levels (or circular) compare as not equal.
 */
export function jsonEqual(a: unknown, b: unknown): boolean {
  return equalAt(a, b, 0);
}

const hasOwn = (record: object, key: string): boolean => Object.prototype.hasOwnProperty.call(record, key);

function equalAt(a: unknown, b: unknown, depth: number): boolean {
  if (a === b) return typeof a !== 'number' || Number.isFinite(a);
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null || depth >= EQUAL_MAX_DEPTH)
    return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let index = 0; index < a.length; index++) {
      const left: unknown = a[index] === undefined ? null : a[index];
      const right: unknown = b[index] === undefined ? null : b[index];
      if (!equalAt(left, right, depth + 1)) return false;
    }
    return true;
  }
  if (Array.isArray(b)) return false;
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  // for-in with an own-property check rather than Object.keys: no key arrays on a path every request takes.
  let members = 0;
  for (const key in left) {
    if (!hasOwn(left, key)) continue;
    const value = left[key];
    if (!isMember(value)) continue;
    members++;
    if (!hasOwn(right, key) || !equalAt(value, right[key], depth + 1)) return false;
  }
  for (const key in right) if (hasOwn(right, key) && isMember(right[key])) members--;
  return members === 0;
}

const oneShotHash: ((algorithm: string, data: string, encoding: 'hex') => string) | undefined =
  typeof (crypto as { hash?: unknown }).hash === 'function'
    ? (crypto as unknown as { hash: (algorithm: string, data: string, encoding: 'hex') => string }).hash
    : undefined;

/** Hex SHA-256 of the canonical JSON of `value`. */
export function canonicalHash(value: unknown): string {
  const text = canonicalJson(value);
  // One-shot `crypto.hash` (Node 20.12+) is about twice as fast as a Hash object for short inputs.
  return oneShotHash === undefined
    ? crypto.createHash('sha256').update(text).digest('hex')
    : oneShotHash('sha256', text, 'hex');
}

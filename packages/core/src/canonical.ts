/** Canonical JSON (RFC 8785 JCS): text, SHA-256 digest and equality of JSON values, the same in every process. */
import * as crypto from 'node:crypto';

/** A JSON value as it travels on the wire. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/**
 * Serializes a JSON value canonically (RFC 8785 JCS for the values JSON can
 * carry): object keys sorted by UTF-16 code units, no whitespace, numbers in
 * ECMAScript shortest form. Used to bind tokens to arguments, to compare
 * idempotent calls and to digest results. `undefined` members are dropped
 * as `JSON.stringify` does; non-finite numbers throw.
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

import { createHash } from 'node:crypto';

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
        if (Array.isArray(value)) {
          return `[${value.map((item: unknown) => (item === undefined ? 'null' : serialize(item, seen))).join(',')}]`;
        }
        const record = value as Record<string, unknown>;
        const keys = Object.keys(record)
          .filter((key) => record[key] !== undefined && typeof record[key] !== 'function')
          .sort();
        return `{${keys.map((key) => `${JSON.stringify(key)}:${serialize(record[key], seen)}`).join(',')}}`;
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

/** Hex SHA-256 of the canonical JSON of `value`. */
export function canonicalHash(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex');
}

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { canonicalHash, canonicalJson, jsonEqual } from './canonical.js';

describe('canonicalJson (RFC 8785)', () => {
  it('sorts keys and drops whitespace', () => {
    expect(canonicalJson({ b: 1, a: [true, null, 'x'], c: { z: 1, y: 2 } })).toBe(
      '{"a":[true,null,"x"],"b":1,"c":{"y":2,"z":1}}',
    );
    expect(canonicalJson(1e21)).toBe('1e+21');
  });

  it('refuses what JSON cannot carry', () => {
    expect(() => canonicalJson(Number.NaN)).toThrow(/non-finite/);
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(() => canonicalJson(cycle)).toThrow(/circular/);
  });

  it('is independent of key order and round-trips through JSON (property)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = canonicalJson(value);
        expect(canonicalJson(JSON.parse(text))).toBe(text);
        expect(canonicalHash(JSON.parse(JSON.stringify(value)))).toBe(canonicalHash(value));
      }),
    );
  });

  it('hashes the canonical text with SHA-256', () => {
    const value = { b: [1, 'two'], a: { c: null } };
    expect(canonicalHash(value)).toBe(createHash('sha256').update('{"a":{"c":null},"b":[1,"two"]}').digest('hex'));
  });
});

/** The same JSON with every object's members in reverse order. */
function reordered(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reordered);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .reverse()
      .map(([key, member]) => [key, reordered(member)]),
  );
}

describe('jsonEqual', () => {
  it('agrees with comparing canonical JSON (property)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.jsonValue(), (a, b) => {
        expect(jsonEqual(a, b)).toBe(canonicalJson(a) === canonicalJson(b));
        expect(jsonEqual(a, reordered(a))).toBe(true);
      }),
    );
  });

  it('tells apart values that differ in one place, however deep (property)', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), fc.jsonValue({ maxDepth: 2 }), (inner, other) => {
        fc.pre(canonicalJson(inner) !== canonicalJson(other));
        expect(jsonEqual({ x: [1, { y: inner }] }, { x: [1, { y: other }] })).toBe(false);
      }),
    );
  });

  it('treats undefined and function members as absent, as JSON does', () => {
    expect(jsonEqual({ a: 1, b: undefined }, { a: 1 })).toBe(true);
    expect(jsonEqual({ a: 1 }, { a: 1, f: () => 1 })).toBe(true);
    expect(jsonEqual([undefined], [null])).toBe(true);
    expect(jsonEqual({ a: 1 }, { a: 1, b: null })).toBe(false);
    expect(jsonEqual([1, 2], [2, 1])).toBe(false);
    expect(jsonEqual([], {})).toBe(false);
  });

  it('never throws: non-finite numbers and cycles compare as not equal', () => {
    expect(jsonEqual(Number.NaN, Number.NaN)).toBe(false);
    expect(jsonEqual(Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY)).toBe(false);
    const a: Record<string, unknown> = {};
    a.self = a;
    const b: Record<string, unknown> = {};
    b.self = b;
    expect(jsonEqual(a, b)).toBe(false);
  });
});

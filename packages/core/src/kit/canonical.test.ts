import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { CANONICAL_MAX_DEPTH, canonicalHash, canonicalJson, JSON_TOO_DEEP_CODE, jsonEqual } from './canonical.js';
import { ExtensionError } from '../contract/errors.js';

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

/** How many arrays and objects nest in `value` (a scalar is 0). */
function depthOf(value: unknown): number {
  if (typeof value !== 'object' || value === null) return 0;
  return 1 + Math.max(0, ...Object.values(value).map(depthOf));
}

/** `inner` wrapped in `levels` arrays or single-member objects, as `shapes` picks for each level. */
function nest(inner: unknown, levels: number, shapes: readonly boolean[]): unknown {
  let value = inner;
  for (let level = 0; level < levels; level++) value = shapes[level % shapes.length] ? [value] : { k: value };
  return value;
}

/** An independent canonical form (sorted keys, `JSON.stringify` for scalars), to check the serializer against. */
function referenceJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(referenceJson).join(',')}]`;
  if (typeof value !== 'object' || value === null) return JSON.stringify(value);
  const record = value as Record<string, unknown>;
  const members = Object.keys(record)
    .sort()
    .map((key) => `${JSON.stringify(key)}:${referenceJson(record[key])}`);
  return `{${members.join(',')}}`;
}

/** What `run` threw, or `undefined`. */
function thrown(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('the depth limit (CORE-48)', () => {
  const inner = fc.jsonValue({ maxDepth: 3 });
  const shapes = fc.array(fc.boolean(), { minLength: 1, maxLength: 8 });

  it('a value nested at most CANONICAL_MAX_DEPTH levels hashes as it always did (property)', () => {
    fc.assert(
      fc.property(inner, shapes, fc.nat(), (core, kinds, extra) => {
        const levels = extra % (CANONICAL_MAX_DEPTH - depthOf(core) + 1);
        const value = nest(core, levels, kinds);
        expect(depthOf(value)).toBeLessThanOrEqual(CANONICAL_MAX_DEPTH);
        expect(canonicalJson(value)).toBe(referenceJson(value));
        expect(canonicalHash(value)).toBe(createHash('sha256').update(referenceJson(value)).digest('hex'));
      }),
    );
  });

  it('a deeper value is refused with the structured invalid_input error, never a RangeError (property)', () => {
    fc.assert(
      fc.property(inner, shapes, fc.integer({ min: 1, max: 6000 }), (core, kinds, beyond) => {
        const value = nest(core, CANONICAL_MAX_DEPTH - depthOf(core) + beyond, kinds);
        for (const run of [() => canonicalJson(value), () => canonicalHash(value)]) {
          const error = thrown(run);
          expect(error).not.toBeInstanceOf(RangeError);
          expect(ExtensionError.isInstance(error)).toBe(true);
          expect((error as ExtensionError).toStructured()).toMatchObject({
            category: 'invalid_input',
            code: JSON_TOO_DEEP_CODE,
            details: { max_depth: CANONICAL_MAX_DEPTH },
          });
          expect((error as ExtensionError).message).toContain(String(CANONICAL_MAX_DEPTH));
        }
      }),
      { numRuns: 50 },
    );
  });

  it('counts arrays and objects alike, from 1 at the top', () => {
    expect(canonicalJson(nest(1, CANONICAL_MAX_DEPTH, [true]))).toBe(
      `${'['.repeat(CANONICAL_MAX_DEPTH)}1${']'.repeat(CANONICAL_MAX_DEPTH)}`,
    );
    expect(() => canonicalJson(nest(1, CANONICAL_MAX_DEPTH + 1, [false]))).toThrow(/deeper than 100 levels/);
    expect(() => canonicalJson(nest(1, 5000, [true, false]))).toThrow(/deeper than 100 levels/);
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

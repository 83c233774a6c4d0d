import fc from 'fast-check';
import { Type } from 'typebox';
import { describe, expect, it } from 'vitest';
import { ConfigurationError, ExtensionError } from '../contract/errors.js';
import {
  defineLocal,
  escapePointerSegment,
  firstViolation,
  invalidInputError,
  isRecord,
  jsonPointer,
  lazyValidator,
  metaPointer,
  nonNegativeIntegerOption,
  nonNegativeNumberOption,
  withResultMeta,
  pointerField,
  positiveIntegerOption,
  readMetaEntry,
  settingsReader,
} from './index.js';

describe('option validators', () => {
  it('return the value or the fallback, and name the factory and option when refusing', () => {
    expect(positiveIntegerOption('fooServer', 'maxItems', undefined, 7)).toBe(7);
    expect(positiveIntegerOption('fooServer', 'maxItems', 3, 7)).toBe(3);
    for (const bad of [0, -1, 1.5, Number.NaN, Number.MAX_SAFE_INTEGER + 1]) {
      expect(() => positiveIntegerOption('fooServer', 'maxItems', bad, 7)).toThrow(
        `fooServer: maxItems must be a positive integer, got ${String(bad)}`,
      );
    }
    const thrown = (() => {
      try {
        positiveIntegerOption('fooServer', 'maxItems', 0, 7);
      } catch (error) {
        return error;
      }
      return undefined;
    })();
    expect(ConfigurationError.isInstance(thrown) && thrown.code).toBe('INVALID_OPTION');
    expect(nonNegativeNumberOption('f', 'o', 0, 1)).toBe(0);
    expect(nonNegativeIntegerOption('f', 'o', 0, 1)).toBe(0);
    expect(nonNegativeIntegerOption('f', 'o', undefined, undefined)).toBeUndefined();
    expect(() => nonNegativeIntegerOption('f', 'o', 0.5, 1)).toThrow('f: o must be a non-negative integer, got 0.5');
    expect(() => nonNegativeNumberOption('f', 'o', Number.POSITIVE_INFINITY, 1)).toThrow('f: o must be');
  });
});

describe('JSON pointers', () => {
  it('escape and read back any segment (property)', () => {
    fc.assert(
      fc.property(fc.string(), (name) => {
        const pointer = jsonPointer('a', name);
        expect(pointer.split('/')).toHaveLength(3);
        expect(pointerField(pointer, 'x')).toBe(/^\d+$/.test(name) ? 'a' : name);
        expect(escapePointerSegment(name).includes('/')).toBe(false);
      }),
    );
  });

  it('point at an extension entry of params._meta', () => {
    expect(metaPointer('io.github.x/y')).toBe('/_meta/io.github.x~1y');
    expect(metaPointer('io.github.x/y', 'key')).toBe('/_meta/io.github.x~1y/key');
  });

  it('name a missing or unexpected property by its own pointer', () => {
    expect(
      firstViolation([{ instancePath: '/a', keyword: 'required', params: { requiredProperties: ['b/c'] } }]),
    ).toEqual({ pointer: '/a/b~1c', keyword: 'required', message: 'is required' });
    expect(
      firstViolation([{ instancePath: '', keyword: 'additionalProperties', params: { additionalProperties: ['z'] } }]),
    ).toEqual({ pointer: '/z', keyword: 'additionalProperties', message: 'is not accepted' });
    expect(firstViolation([])).toEqual({ pointer: '', keyword: '', message: 'is invalid' });
  });
});

describe('readMetaEntry', () => {
  const entry = lazyValidator(Type.Object({ key: Type.String({ minLength: 1 }) }, { additionalProperties: false }));
  const id = 'io.github.mcp-ext/example';

  it('gives undefined for no entry, the typed entry when it conforms', () => {
    expect(readMetaEntry({}, id, entry)).toEqual({ ok: true, value: undefined });
    expect(readMetaEntry({ _meta: 'nope' }, id, entry)).toEqual({ ok: true, value: undefined });
    expect(readMetaEntry({ _meta: { [id]: { key: 'k' } } }, id, entry)).toEqual({ ok: true, value: { key: 'k' } });
  });

  it('gives the fault with the pointer of the field otherwise', () => {
    const read = readMetaEntry({ _meta: { [id]: { key: 1 } } }, id, entry);
    expect(read).toMatchObject({ ok: false, pointer: '/_meta/io.github.mcp-ext~1example/key', field: 'key' });
    const missing = readMetaEntry({ _meta: { [id]: {} } }, id, entry);
    expect(missing).toMatchObject({ ok: false, field: 'key', message: `params._meta["${id}"] at /key is required` });
    if (missing.ok) throw new Error('unreachable');
    const error = invalidInputError(missing, 'Send a key.');
    expect(error).toBeInstanceOf(ExtensionError);
    expect(error.toStructured()).toMatchObject({
      category: 'invalid_input',
      code: 'INVALID_INPUT',
      details: { field: 'key', pointer: '/_meta/io.github.mcp-ext~1example/key' },
    });
  });
});

describe('withResultMeta', () => {
  const result = { content: [], _meta: { other: 1, 'com.example/x': { old: true } } };

  it('sets its entry and keeps every other one, never touching the result it was given', () => {
    expect(withResultMeta(result, 'com.example/x', { n: 2 })._meta).toEqual({ other: 1, 'com.example/x': { n: 2 } });
    expect(withResultMeta({ content: [] }, 'com.example/x', 0)._meta).toEqual({ 'com.example/x': 0 });
    expect(result._meta['com.example/x']).toEqual({ old: true });
  });

  it('takes its entry out with undefined, dropping an empty _meta, and returns the result itself when absent', () => {
    expect(withResultMeta(result, 'com.example/x', undefined)).toEqual({ content: [], _meta: { other: 1 } });
    expect(withResultMeta({ content: [], _meta: { 'com.example/x': 1 } }, 'com.example/x', undefined)).toEqual({
      content: [],
    });
    const without = { content: [], _meta: { other: 1 } };
    expect(withResultMeta(without, 'com.example/x', undefined)).toBe(without);
  });
});

describe('defineLocal', () => {
  it('keeps one typed value per call, shared by every copy through Symbol.for', () => {
    const slot = defineLocal<{ n: number }>('example/slot');
    const ctx = { locals: new Map<symbol, unknown>() };
    expect(slot.get(ctx)).toBeUndefined();
    slot.set(ctx, { n: 1 });
    expect(defineLocal<{ n: number }>('example/slot').get(ctx)).toEqual({ n: 1 });
    expect(ctx.locals.get(Symbol.for('io.github.mcp-ext/example/slot'))).toEqual({ n: 1 });
    slot.delete(ctx);
    expect(slot.get(ctx)).toBeUndefined();
  });
});

describe('settingsReader', () => {
  const read = settingsReader({
    id: 'io.github.mcp-ext/example',
    schema: Type.Object({ version: Type.String(), limit: Type.Optional(Type.Integer()) }),
    majors: [1],
  });

  it('reads valid settings at a known major, and nothing else', () => {
    expect(read({ 'io.github.mcp-ext/example': { version: '1.2', limit: 3 } })).toEqual({ version: '1.2', limit: 3 });
    expect(read({ 'io.github.mcp-ext/example': { version: '2.0' } })).toBeUndefined();
    expect(read({ 'io.github.mcp-ext/example': { version: '1.0', limit: 'x' } })).toBeUndefined();
    expect(read({})).toBeUndefined();
    expect(read(null)).toBeUndefined();
    expect(isRecord([])).toBe(false);
  });
});

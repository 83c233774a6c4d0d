import fc from 'fast-check';
import { Type } from 'typebox';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { ConfigurationError, ExtensionError } from '../contract/errors.js';
import {
  defineLocal,
  escapePointerSegment,
  firstViolation,
  invalidInputError,
  isRecord,
  jsonPointer,
  lazyValidator,
  metaFault,
  metaPointer,
  nonNegativeIntegerOption,
  notificationMethod,
  nonNegativeNumberOption,
  withResultMeta,
  pointerField,
  positiveIntegerOption,
  readMetaEntry,
  settingsReader,
} from './index.js';
import type { Parsed, Resolved } from './index.js';

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

  it('only check a value already given its default by destructuring', () => {
    const {
      maxItems = 7,
      delay = 0,
      ratio = 0.5,
    } = { maxItems: undefined, delay: 2 } as {
      maxItems?: number;
      delay?: number;
      ratio?: number;
    };
    expect(positiveIntegerOption('fooServer', 'maxItems', maxItems)).toBe(7);
    expect(nonNegativeIntegerOption('fooServer', 'delay', delay)).toBe(2);
    expect(nonNegativeNumberOption('fooServer', 'ratio', ratio)).toBe(0.5);
    expect(() => positiveIntegerOption('fooServer', 'maxItems', 0)).toThrow(
      'fooServer: maxItems must be a positive integer, got 0',
    );
    expect(() => nonNegativeIntegerOption('fooServer', 'delay', -1)).toThrow(
      'fooServer: delay must be a non-negative integer, got -1',
    );
    expect(() => nonNegativeNumberOption('fooServer', 'ratio', Number.NaN)).toThrow(
      'fooServer: ratio must be a finite number >= 0, got NaN',
    );
    // A JavaScript caller that passes nothing to check gets the error, not undefined.
    const untyped = positiveIntegerOption as (factory: string, option: string, value: unknown) => number;
    expect(() => untyped('fooServer', 'maxItems', undefined)).toThrow(
      'fooServer: maxItems must be a positive integer, got undefined',
    );
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

describe('Resolved', () => {
  interface ExampleOptions {
    /** Default 10. */
    readonly limit?: number | undefined;
    readonly mode?: 'fast' | 'safe' | undefined;
    /** No default. */
    readonly onDone?: (() => void) | undefined;
    readonly name: string;
  }
  type ExampleConfig = Resolved<ExampleOptions, 'onDone'>;

  function resolve(options: ExampleOptions): ExampleConfig {
    const { limit = 10, mode = 'safe', onDone, name } = options;
    return { limit, mode, onDone, name };
  }

  it('makes every key required and drops undefined, but for the keys left without a default', () => {
    expectTypeOf<ExampleConfig['limit']>().toEqualTypeOf<number>();
    expectTypeOf<ExampleConfig['mode']>().toEqualTypeOf<'fast' | 'safe'>();
    expectTypeOf<ExampleConfig['name']>().toEqualTypeOf<string>();
    expectTypeOf<ExampleConfig['onDone']>().toEqualTypeOf<(() => void) | undefined>();
    expectTypeOf<Resolved<{ readonly a?: number | undefined }>>().toEqualTypeOf<{ readonly a: number }>();
    // Every key must be said: a config without one is not a resolved config.
    expectTypeOf<Omit<ExampleConfig, 'limit'>>().not.toExtend<ExampleConfig>();
    expect(resolve({ name: 'x' })).toEqual({ limit: 10, mode: 'safe', onDone: undefined, name: 'x' });
    expect(resolve({ name: 'y', limit: 3, mode: 'fast' })).toEqual({
      limit: 3,
      mode: 'fast',
      onDone: undefined,
      name: 'y',
    });
  });
});

describe('metaFault', () => {
  const id = 'io.github.mcp-ext/example';

  it('points at the entry itself, named by its id, or at a field inside it, named by the field', () => {
    expect(metaFault(id, '', `params._meta["${id}"] must be an object`)).toEqual({
      ok: false,
      pointer: '/_meta/io.github.mcp-ext~1example',
      field: id,
      message: `params._meta["${id}"] must be an object`,
    });
    expect(metaFault(id, '/a~1b', 'is wrong')).toEqual({
      ok: false,
      pointer: '/_meta/io.github.mcp-ext~1example/a~1b',
      field: 'a/b',
      message: 'is wrong',
    });
    expect(metaFault(id, '/items/0', 'is wrong')).toMatchObject({ field: 'items' });
  });

  it('is a failed read that invalidInputError turns into the error naming the field', () => {
    // A reader returns the fault as its failed read.
    const readKey = (): Parsed<string> => metaFault(id, '/key', 'key must be a string');
    const read = readKey();
    if (read.ok) throw new Error('unreachable');
    expect(invalidInputError(read, 'Send a key.').toStructured()).toMatchObject({
      category: 'invalid_input',
      code: 'INVALID_INPUT',
      message: 'key must be a string',
      suggestion: 'Send a key.',
      details: { field: 'key', pointer: '/_meta/io.github.mcp-ext~1example/key' },
    });
  });

  it('gives the fault readMetaEntry gives for the same place', () => {
    const entry = lazyValidator(Type.Object({ key: Type.String() }));
    const read = readMetaEntry({ _meta: { [id]: { key: 1 } } }, id, entry, ({ pointer }) => `bad ${pointer}`);
    expect(read).toEqual(metaFault(id, '/key', 'bad /key'));
  });
});

describe('notificationMethod', () => {
  const table = { progress: 'progress', done: 'finished' } as const;

  it('names the method of a kind under the identifier given, alias or not', () => {
    expect(notificationMethod('io.github.mcp-ext/example', table, 'progress')).toBe(
      'notifications/io.github.mcp-ext/example/progress',
    );
    expect(notificationMethod('com.example/alias', table, 'done')).toBe('notifications/com.example/alias/finished');
    expectTypeOf(notificationMethod<typeof table>)
      .parameter(2)
      .toEqualTypeOf<'progress' | 'done'>();
  });
});

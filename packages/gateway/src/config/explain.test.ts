import Type from 'typebox';
import { describe, expect, it } from 'vitest';
import { fieldName, preview } from './errors.js';
import { describeSchema, explain } from './explain.js';

const Shape = Type.Union([
  Type.Literal('none'),
  Type.Object({ circle: Type.Number({ minimum: 0 }) }, { additionalProperties: false }),
  Type.Object(
    { width: Type.Integer({ minimum: 1 }), height: Type.Optional(Type.Integer()) },
    { additionalProperties: false },
  ),
]);

const Drawing = Type.Object(
  {
    title: Type.String({ minLength: 1, maxLength: 10 }),
    shapes: Type.Record(Type.String({ pattern: '^[a-z]+$' }), Shape, { additionalProperties: false }),
    tags: Type.Optional(Type.Array(Type.String({ pattern: '^#' }), { minItems: 1 })),
  },
  { additionalProperties: false },
);

describe('explain', () => {
  it('finds nothing in a value that conforms', () => {
    expect(explain(Drawing, { title: 't', shapes: { a: 'none', b: { circle: 1 }, c: { width: 2 } } })).toBeUndefined();
  });

  it.each([
    [{ title: '', shapes: {} }, ['title'], 'must be a string of 1 to 10 characters, got ""'],
    [{ shapes: {} }, ['title'], 'is required'],
    [{ title: 't', shapes: {}, extra: 1 }, ['extra'], 'is not a known field (known: title, shapes, tags)'],
    [
      { title: 't', shapes: { Bad: 'none' } },
      ['shapes', 'Bad'],
      'is not an accepted key: use a key matching /^[a-z]+$/',
    ],
    [
      { title: 't', shapes: { a: 'some' } },
      ['shapes', 'a'],
      'must be "none", an object with `circle` or an object with `width`, got "some"',
    ],
    [
      { title: 't', shapes: { a: { circle: -1 } } },
      ['shapes', 'a', 'circle'],
      'must be a number of at least 0, got -1',
    ],
    [{ title: 't', shapes: { a: { height: 2 } } }, ['shapes', 'a', 'width'], 'is required'],
    [
      { title: 't', shapes: { a: { radius: 2 } } },
      ['shapes', 'a', 'radius'],
      'is not a known field (known: circle, width, height)',
    ],
    [{ title: 't', shapes: { a: { circle: 1, width: 2 } } }, ['shapes', 'a'], 'not a mix of them'],
    [{ title: 't', shapes: {}, tags: [] }, ['tags'], 'must list at least 1 item'],
    [{ title: 't', shapes: {}, tags: ['#a', 'b'] }, ['tags', 1], 'must be a string matching /^#/, got "b"'],
    [[1], [], 'must be an object with `title`, `shapes`, got a list'],
  ])('%j: %j %s', (value, path, problem) => {
    const fault = explain(Drawing, value);
    expect(fault?.path).toEqual(path);
    expect(fault?.problem).toContain(problem);
  });
});

describe('describeSchema', () => {
  it.each([
    [Type.Integer({ minimum: 1, maximum: 5 }), 'an integer from 1 to 5'],
    [Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }), 'an integer of at least 1'],
    [Type.Number({ maximum: 2 }), 'a number of at most 2'],
    [Type.String({ minLength: 1 }), 'a non-empty string'],
    [Type.String({ maxLength: 3 }), 'a string of at most 3 characters'],
    [Type.Boolean(), 'a boolean'],
    [Type.Array(Type.String()), 'a list, each item a string'],
    [Type.Union([Type.Literal('a'), Type.Literal('b')]), '"a" or "b"'],
    [Type.Unknown(), 'any value'],
  ])('%j is %s', (schema, text) => {
    expect(describeSchema(schema)).toBe(text);
  });
});

describe('fieldName and preview', () => {
  it('writes paths as a person would', () => {
    expect(fieldName([])).toBe('');
    expect(fieldName(['upstreams', 'fs', 'command'])).toBe('upstreams.fs.command');
    expect(fieldName(['policy', 'write_*', 'cost', 'quota', 'limit'])).toBe('policy["write_*"].cost.quota.limit');
    expect(fieldName(['policy', 'x', 'intent', 0, 'pattern'])).toBe('policy.x.intent[0].pattern');
    expect(fieldName(['upstreams', 'my-server'])).toBe('upstreams["my-server"]');
    expect(fieldName(['$schema'])).toBe('$schema');
  });

  it('shows values in short', () => {
    expect(preview('x'.repeat(100))).toHaveLength(60);
    expect(preview(Number.NaN)).toBe('NaN');
    expect(preview(undefined)).toBe('nothing');
    expect(preview(10n)).toBe('bigint');
  });
});

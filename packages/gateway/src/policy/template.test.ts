import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  compensationArguments,
  evaluateExpression,
  firstBadExpression,
  isExpression,
  parseExpression,
  TemplateError,
  type PathStep,
} from './template.js';

const outcome = {
  args: {
    a: { b: 'deep' },
    path: '/data/x',
    items: [{ id: 'i1' }, { id: 'i2' }],
    entities: [{ name: 'n1' }, { name: 'n2' }],
  },
  result: {
    content: [{ type: 'text', text: 'created' }],
    structuredContent: { id: 'r1', 'odd key': 7, nested: [{ tags: ['x', 'y'] }, { tags: [] }] },
  },
};

function thrown(run: () => unknown): TemplateError {
  try {
    run();
  } catch (error) {
    if (TemplateError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a TemplateError');
}

describe('evaluateExpression', () => {
  it.each([
    ['$args.a.b', 'deep'],
    ['$args.items[0].id', 'i1'],
    ['$args.entities[*].name', ['n1', 'n2']],
    ['$result.structuredContent.id', 'r1'],
    ['$result.content[0].text', 'created'],
    ['$result.structuredContent["odd key"]', 7],
    ['$result.structuredContent.nested[*].tags[*]', [['x', 'y'], []]],
    ['$args.items', [{ id: 'i1' }, { id: 'i2' }]],
  ])('%s reads %j', (expression, expected) => {
    expect(evaluateExpression(expression, outcome)).toEqual(expected);
  });

  it('reads the whole arguments or result', () => {
    expect(evaluateExpression('$args', outcome)).toBe(outcome.args);
    expect(evaluateExpression('$result', outcome)).toBe(outcome.result);
  });

  it.each([
    ['$args.missing', 'has no "missing"'],
    ['$args.items[5].id', 'has no item 5'],
    ['$args.a[*]', 'is not an array'],
    ['$args.a.b.c', 'has no "c"'],
    ['$result.content[0].text.length', 'has no "length"'],
    ['$args.items[*].name', 'has no "name"'],
    ['$args.a.toString', 'has no "toString"'],
  ])('%s is missing: the error names the expression', (expression, reason) => {
    const error = thrown(() => evaluateExpression(expression, outcome));
    expect(error.expression).toBe(expression);
    expect(error.message).toContain(expression);
    expect(error.message).toContain(reason);
  });
});

describe('parseExpression', () => {
  it('parses each kind of step', () => {
    expect(parseExpression('$args.items[0]["a b"][*].id')).toEqual({
      root: 'args',
      steps: [
        { kind: 'key', key: 'items' },
        { kind: 'index', index: 0 },
        { kind: 'key', key: 'a b' },
        { kind: 'each' },
        { kind: 'key', key: 'id' },
      ],
    });
  });

  it.each([
    '$foo',
    '$argsx',
    '$args.',
    '$args..a',
    '$args[',
    '$args[-1]',
    '$args[01]',
    '$args.a b',
    '$result.1',
    '$args["a]',
    '$',
    'args.a',
  ])('%j does not parse', (text) => {
    expect(thrown(() => parseExpression(text)).expression).toBe(text);
  });

  const key = fc.oneof(fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_-]{0,6}$/), fc.string({ maxLength: 6 }));
  const step: fc.Arbitrary<PathStep> = fc.oneof(
    key.map((name) => ({ kind: 'key' as const, key: name })),
    fc.nat({ max: 99 }).map((index) => ({ kind: 'index' as const, index })),
    fc.constant({ kind: 'each' as const }),
  );

  function render(root: string, steps: readonly PathStep[]): string {
    return `$${root}${steps
      .map((item) => {
        if (item.kind === 'each') return '[*]';
        if (item.kind === 'index') return `[${item.index}]`;
        return /^[A-Za-z_][A-Za-z0-9_-]*$/.test(item.key) ? `.${item.key}` : `[${JSON.stringify(item.key)}]`;
      })
      .join('')}`;
  }

  it('reads back every expression it could print (property)', () => {
    fc.assert(
      fc.property(fc.constantFrom('args', 'result'), fc.array(step, { maxLength: 6 }), (root, steps) => {
        expect(parseExpression(render(root, steps))).toEqual({ root, steps });
      }),
      { numRuns: 500 },
    );
  });

  /** Every path that exists in `value`, as steps, with the value there. */
  function paths(value: unknown, prefix: PathStep[] = []): [PathStep[], unknown][] {
    const here: [PathStep[], unknown][] = [[prefix, value]];
    if (Array.isArray(value)) {
      return [...here, ...value.flatMap((item: unknown, index) => paths(item, [...prefix, { kind: 'index', index }]))];
    }
    if (typeof value === 'object' && value !== null) {
      return [
        ...here,
        ...Object.entries(value).flatMap(([name, item]) => paths(item, [...prefix, { kind: 'key', key: name }])),
      ];
    }
    return here;
  }

  it('an expression for a path that exists reads the value there (property)', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), fc.nat(), (args, pick) => {
        const all = paths(args);
        const [steps, expected] = all[pick % all.length] ?? [[], args];
        expect(evaluateExpression(render('args', steps), { args, result: undefined })).toEqual(expected);
      }),
      { numRuns: 500 },
    );
  });
});

describe('compensationArguments', () => {
  it('fills expressions and leaves everything else as it is, inside objects and arrays too', () => {
    const template = {
      path: '$args.path',
      ids: '$args.items[*].id',
      nested: { created: '$result.structuredContent.id', list: ['$result.content[0].text', 'literal', 3] },
      reason: 'undo',
      count: 2,
      force: true,
      none: null,
      price: '$$5',
    };
    expect(compensationArguments(template, outcome)).toEqual({
      path: '/data/x',
      ids: ['i1', 'i2'],
      nested: { created: 'r1', list: ['created', 'literal', 3] },
      reason: 'undo',
      count: 2,
      force: true,
      none: null,
      price: '$5',
    });
  });

  it('a missing path is an error naming the expression', () => {
    const error = thrown(() => compensationArguments({ deep: [{ id: '$result.structuredContent.gone' }] }, outcome));
    expect(error.expression).toBe('$result.structuredContent.gone');
  });

  it('a template without expressions comes back equal (property)', () => {
    const plain = fc
      .jsonValue({ maxDepth: 3 })
      .filter((value) => firstBadExpression(value) === undefined && !hasDollar(value));
    fc.assert(
      fc.property(fc.dictionary(fc.string(), plain, { maxKeys: 5 }), (template) => {
        expect(compensationArguments(template, outcome)).toEqual(template);
      }),
      { numRuns: 300 },
    );
  });

  function hasDollar(value: unknown): boolean {
    if (typeof value === 'string') return value.startsWith('$');
    if (Array.isArray(value)) return value.some(hasDollar);
    if (typeof value === 'object' && value !== null) return Object.values(value).some(hasDollar);
    return false;
  }
});

describe('firstBadExpression', () => {
  it('finds where an expression does not parse', () => {
    const found = firstBadExpression({ a: ['$args.ok', { b: '$args..bad' }] });
    expect(found?.path).toEqual(['a', 1, 'b']);
    expect(found?.error.expression).toBe('$args..bad');
    expect(firstBadExpression({ a: '$args.ok', b: 'plain', c: '$$literal' })).toBeUndefined();
  });

  it('tells expressions from literal strings', () => {
    expect(isExpression('$args.a')).toBe(true);
    expect(isExpression('$$args')).toBe(false);
    expect(isExpression('args')).toBe(false);
    expect(isExpression(3)).toBe(false);
  });
});

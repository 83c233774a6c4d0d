import { ConfigurationError } from '@ext/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  compileNumber,
  compilePredicate,
  ConditionError,
  ConditionEvaluationError,
  type ConditionInput,
  MAX_CONDITION_LENGTH,
} from './conditions.js';

const FIELD = 'policies.write_file.confirm.when';

function input(overrides: Partial<ConditionInput> = {}): ConditionInput {
  return {
    principal: 'alice',
    scopes: ['fs:read', 'fs:write'],
    roles: ['admin'],
    claims: { email: 'alice@example.com', groups: ['eng'], exp: 1_900_000_000 },
    tool: 'fs__write_file',
    args: { path: 'docs/readme.md', amount: 5 },
    ...overrides,
  };
}

function predicate(source: string, given: ConditionInput = input()): boolean {
  return compilePredicate(source, FIELD).evaluate(given);
}

function units(source: string, args: Record<string, unknown>): number {
  return compileNumber(source, 'policies.charge.cost.units').evaluate(input({ args }));
}

/** The error `run` throws; fails the test when it throws nothing. */
function thrown(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('expected an error');
}

function compileFailure(source: string, kind: 'predicate' | 'number' = 'predicate'): ConditionError {
  const error = thrown(() => (kind === 'predicate' ? compilePredicate(source, FIELD) : compileNumber(source, FIELD)));
  expect(ConditionError.isInstance(error)).toBe(true);
  return error as ConditionError;
}

function evaluationFailure(run: () => unknown): ConditionEvaluationError {
  const error = thrown(run);
  expect(ConditionEvaluationError.isInstance(error)).toBe(true);
  return error as ConditionEvaluationError;
}

describe('access rules (allow)', () => {
  it.each<[string, Partial<ConditionInput>, boolean]>([
    ['"admin" in roles', {}, true],
    ['"admin" in roles', { roles: ['viewer'] }, false],
    ['"admin" in roles', { roles: [] }, false],
    ['scopes.exists(s, s == "fs:write")', {}, true],
    ['scopes.exists(s, s == "fs:write")', { scopes: ['fs:read'] }, false],
    ['scopes.all(s, s.startsWith("fs:"))', {}, true],
    ['scopes.all(s, s.startsWith("fs:"))', { scopes: ['fs:read', 'web:fetch'] }, false],
    ['claims.email.endsWith("@example.com")', {}, true],
    ['claims.email.endsWith("@example.com")', { claims: { email: 'mallory@example.org' } }, false],
    ['has(claims.email) && claims.email.endsWith("@example.com")', { claims: {} }, false],
    ['"eng" in claims.groups', {}, true],
    ['claims.exp > 1700000000', {}, true],
    ['tool.startsWith("fs__")', {}, true],
    ['tool.startsWith("fs__")', { tool: 'web__fetch' }, false],
    ['principal == "alice" || "admin" in roles', { principal: 'bob', roles: [] }, false],
    ['principal == "alice" || "admin" in roles', { principal: 'alice', roles: [] }, true],
    ['size(scopes) > 1 && !("banned" in roles)', {}, true],
  ])('%s with %j is %s', (source, overrides, expected) => {
    expect(predicate(source, input(overrides))).toBe(expected);
  });

  it('keeps the source and the field it was compiled for', () => {
    const condition = compilePredicate('"admin" in roles', 'policies.write_file.allow');
    expect(condition.source).toBe('"admin" in roles');
    expect(condition.field).toBe('policies.write_file.allow');
  });
});

describe('conditions over arguments (when)', () => {
  it.each<[string, Record<string, unknown>, boolean]>([
    ['!args.path.startsWith("docs/")', { path: 'docs/a.md' }, false],
    ['!args.path.startsWith("docs/")', { path: 'src/a.ts' }, true],
    ['args.amount > 100', { amount: 150 }, true],
    ['args.amount > 100', { amount: 100 }, false],
    ['args.amount >= 99.5', { amount: 99.5 }, true],
    ['args.amount == 5', { amount: 5 }, true],
    ['has(args.force) && args.force', { path: 'x' }, false],
    ['has(args.force) && args.force', { force: true }, true],
    ['"force" in args', { force: false }, true],
    ['args.options.mode == "overwrite"', { options: { mode: 'overwrite' } }, true],
    ['args.paths.exists(p, p.contains(".."))', { paths: ['a', '../etc/passwd'] }, true],
    ['args.path.matches("^docs/[a-z]+\\\\.md$")', { path: 'docs/readme.md' }, true],
    ['args.path.matches("^docs/[a-z]+\\\\.md$")', { path: 'docs/readme.txt' }, false],
  ])('%s with %j is %s', (source, args, expected) => {
    expect(predicate(source, input({ args }))).toBe(expected);
  });
});

describe('units', () => {
  it.each<[string, Record<string, unknown>, number]>([
    ['args.amount', { amount: 5 }, 5],
    ['args.amount', { amount: 2.5 }, 2.5],
    ['args.amount', { amount: 0 }, 0],
    ['double(args.amount) * 2.0', { amount: 3 }, 6],
    ['args.amount * 2.0', { amount: 3 }, 6],
    ['int(args.amount)', { amount: 7.9 }, 7],
    ['uint(args.amount)', { amount: 7 }, 7],
    ['3', {}, 3],
    ['3u', {}, 3],
    ['1.5', {}, 1.5],
    ['size(args.items)', { items: ['a', 'b', 'c'] }, 3],
    ['args.items.size() > 2 ? 10 : 1', { items: ['a', 'b', 'c'] }, 10],
    ['-0.0', {}, 0],
    // The library does not range-check int(double) against int64 (the CEL spec does).
    ['int(args.amount)', { amount: 1e300 }, 1e300],
  ])('%s with %j is %s', (source, args, expected) => {
    expect(units(source, args)).toBe(expected);
  });

  it('a JSON number is a double: `* 2` fails at evaluation, `* 2.0` does not', () => {
    // CEL has no implicit int/double conversion; every JSON number is a double.
    const error = evaluationFailure(() => units('args.amount * 2', { amount: 3 }));
    expect(error.reason).toMatch(/no such overload: dyn<double> \* int/);
    expect(units('args.amount * 2.0', { amount: 3 })).toBe(6);
  });

  it.each<[string, Record<string, unknown>, RegExp]>([
    ['args.amount', { amount: -1 }, /evaluated to -1, a negative number of units/],
    ['args.amount', { amount: 'ten' }, /evaluated to a string, not a number/],
    ['args.amount', { amount: [1] }, /evaluated to a list, not a number/],
    ['args.amount', {}, /No such key: amount \(column 6\)/],
    ['1.0 / 0.0', {}, /evaluated to Infinity, not a finite number/],
    ['1 / int(args.amount)', { amount: 0 }, /division by zero/],
    ['uint(args.amount)', { amount: -1 }, /uint\(\) type error: unsigned integer overflow/],
    ['int(args.amount) + 1', { amount: 9.3e18 }, /integer overflow/],
  ])('%s with %j fails: %s', (source, args, reason) => {
    const error = evaluationFailure(() => units(source, args));
    expect(error.field).toBe('policies.charge.cost.units');
    expect(error.reason).toMatch(reason);
    expect(error.message).toBe(`policies.charge.cost.units: ${error.reason}`);
  });
});

describe('compile errors name the field and the position', () => {
  it.each<[string, 'predicate' | 'number', number, RegExp]>([
    ['args.path.startsWith(', 'predicate', 22, /Unexpected token: EOF/],
    ['args.path ==== "x"', 'predicate', 13, /Unexpected token/],
    ['"unterminated', 'predicate', 1, /Unterminated string/],
    ['user.name == "x"', 'predicate', 1, /Unknown variable: user/],
    ['  lookup(args.path)', 'predicate', 3, /no matching overload for 'lookup\(dyn\)'/],
    ['1 + 2', 'predicate', 1, /must evaluate to a bool, not int/],
    ['args.path + "x"', 'predicate', 1, /must evaluate to a bool, not string/],
    ['scopes', 'predicate', 1, /must evaluate to a bool, not list<string>/],
    ['"abc"', 'number', 1, /must evaluate to a number \(int, uint or double\), not string/],
    ['args.amount > 1', 'number', 1, /not bool/],
    ['tool.size() + "x"', 'predicate', 1, /no such overload|not defined/i],
    ['1 ? true : false', 'predicate', 1, /Ternary condition must be bool/],
    [
      'args.items.exists(i, i.tags.exists(t, t == "x"))',
      'predicate',
      22,
      /exists\(\) inside the body of another macro/,
    ],
    ['args.path.matches(args.pattern)', 'predicate', 19, /matches\(\) takes a string literal/],
    ['args.path.matches("(")', 'predicate', 19, /not a valid regular expression/],
    ['args.path.matches("^(a+)+$")', 'predicate', 19, /can backtrack exponentially/],
    ['args.path.matches("^(a|aa)*$")', 'predicate', 19, /can backtrack exponentially/],
    ['args.path.matches("(a)\\\\1")', 'predicate', 19, /can backtrack exponentially/],
    [`${'('.repeat(40)}true${')'.repeat(40)}`, 'predicate', 33, /Exceeded maxDepth/],
    ['', 'predicate', 1, /Unexpected token: EOF/],
  ])('%s (%s) at column %s: %s', (source, kind, column, reason) => {
    const error = compileFailure(source, kind);
    expect(ConfigurationError.isInstance(error)).toBe(true);
    expect(error.code).toBe('INVALID_CONDITION');
    expect(error.field).toBe(FIELD);
    expect(error.expression).toBe(source);
    expect(error.line).toBe(1);
    expect(error.column).toBe(column);
    expect(error.reason).toMatch(reason);
    expect(error.message).toBe(`${FIELD}: column ${column}: ${error.reason}`);
  });

  it('gives the line too when the expression spans lines', () => {
    const error = compileFailure('"admin" in roles &&\n  user.verified');
    expect([error.line, error.column]).toEqual([2, 3]);
    expect(error.message).toBe(`${FIELD}: line 2, column 3: Unknown variable: user`);
  });

  it('counts the column in characters, not UTF-16 units', () => {
    expect(compileFailure('"😀" == user').column).toBe(8);
  });

  it('refuses an expression longer than the cap before parsing it', () => {
    const source = `true${' || true'.repeat(MAX_CONDITION_LENGTH)}`;
    const error = compileFailure(source);
    expect(error.reason).toBe(`is longer than ${MAX_CONDITION_LENGTH} characters`);
  });

  it('refuses an expression within the cap but past the node limit', () => {
    expect(compileFailure(`${'!'.repeat(2000)}true`).reason).toMatch(/Exceeded maxAstNodes/);
  });

  it('accepts a macro after another (chained) and macros over literals at top level', () => {
    expect(
      predicate(
        'args.paths.filter(p, p.startsWith("docs/")).all(p, p.endsWith(".md"))',
        input({ args: { paths: ['docs/a.md'] } }),
      ),
    ).toBe(true);
  });
});

describe('evaluation errors', () => {
  it('a missing key names the field, the key and the column', () => {
    const error = evaluationFailure(() => predicate('!args.path.startsWith("docs/")', input({ args: {} })));
    expect(error.field).toBe(FIELD);
    expect(error.code).toBe('CONDITION_EVALUATION_FAILED');
    expect(error.reason).toBe('No such key: path (column 7)');
    expect(error.message).toBe(`${FIELD}: No such key: path (column 7)`);
  });

  it.each<[string, ConditionInput, RegExp]>([
    [
      'args.path.startsWith("docs/")',
      input({ args: { path: 42 } }),
      /no matching overload for 'double.startsWith\(string\)'/,
    ],
    ['args.path.startsWith("docs/")', input({ args: { path: null } }), /no matching overload/],
    ['args.options.mode == "x"', input({ args: { options: 'flat' } }), /No such key: mode/],
    ['args.paths[3] == "x"', input({ args: { paths: ['a'] } }), /index out of bounds/],
    ['args.force', input({ args: { force: 'yes' } }), /evaluated to a string, not a bool/],
    ['args.force', input({ args: { force: null } }), /evaluated to null, not a bool/],
    ['claims.email.endsWith("@example.com")', input({ claims: {} }), /No such key: email/],
    ['args.amount > "5"', input(), /no such overload: dyn<double> > string/],
  ])('%s fails', (source, given, reason) => {
    const error = evaluationFailure(() => predicate(source, given));
    expect(error.field).toBe(FIELD);
    expect(error.reason).toMatch(reason);
  });
});

describe('hostile arguments', () => {
  it('keys such as __proto__ and constructor are plain data', () => {
    const args = JSON.parse('{"__proto__": {"admin": true}, "constructor": "x", "path": "docs/a"}') as Record<
      string,
      unknown
    >;
    expect(predicate('args.path.startsWith("docs/")', input({ args }))).toBe(true);
    expect(predicate('args["__proto__"].admin', input({ args }))).toBe(true);
    expect(predicate('args.constructor == "x"', input({ args }))).toBe(true);
    expect(predicate('has(args.toString) || has(args.hasOwnProperty)', input({ args }))).toBe(false);
    expect(predicate('args.exists(k, k == "__proto__")', input({ args }))).toBe(true);
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
  });

  it('a 1 MB string is read without trouble', () => {
    const content = 'a'.repeat(1024 * 1024);
    const given = input({ args: { content } });
    expect(predicate('args.content.size() > 1000000', given)).toBe(true);
    expect(predicate('args.content.contains("needle")', given)).toBe(false);
    expect(predicate('args.content.matches("^a+$")', given)).toBe(true);
    expect(predicate('(args.content + args.content).endsWith("a")', given)).toBe(true);
  });

  it('arguments nested past the depth cap fail the condition, not the process', () => {
    let deep: unknown = 'bottom';
    for (let level = 0; level < 10_000; level += 1) deep = { next: deep };
    const given = input({ args: { deep } });
    const error = evaluationFailure(() => predicate('has(args.deep)', given));
    expect(error.reason).toBe('args nests deeper than 64 levels');
    // A condition that does not read the arguments does not pay for them.
    expect(predicate('"admin" in roles', given)).toBe(true);
  });

  it('arguments past the size cap fail the condition', () => {
    const given = input({ args: { items: Array.from({ length: 200_000 }, (_, index) => index) } });
    expect(evaluationFailure(() => predicate('size(args.items) > 0', given)).reason).toBe(
      'args holds more than 100000 values',
    );
  });

  it('values JSON cannot carry fail the condition', () => {
    const given = input({ args: { callback: () => 1 } });
    expect(evaluationFailure(() => predicate('has(args.callback)', given)).reason).toBe(
      'args holds a function, which is not JSON',
    );
    const dated = input({ args: { when: new Date(0) } });
    expect(evaluationFailure(() => predicate('has(args.when)', dated)).reason).toBe(
      'args holds an object that is not plain JSON',
    );
  });

  it('a key holding undefined is absent, an empty array slot is null', () => {
    const given = input({ args: { gone: undefined, list: [undefined, 'x'] } });
    expect(predicate('!has(args.gone) && args.list[0] == null && args.list[1] == "x"', given)).toBe(true);
  });

  it('a getter that throws fails the condition', () => {
    const args = Object.defineProperty({}, 'path', {
      enumerable: true,
      get() {
        throw new Error('boom');
      },
    }) as Record<string, unknown>;
    expect(evaluationFailure(() => predicate('has(args.path)', input({ args }))).reason).toBe('boom');
  });

  it('evaluating never changes the input', () => {
    const args = { path: 'docs/a', items: [{ tags: ['x'] }, { tags: [] }], meta: { level: 'high' } };
    const given = deepFreeze(input({ args }));
    const before = structuredClone(given);
    for (const source of [
      'args.items.map(i, i.tags).size() == 2',
      'args.items.filter(i, size(i.tags) > 0).size() == 1',
      'args.meta == {"level": "high"}',
      'args.path + "x" == "docs/ax"',
      '(args.items + args.items).size() == 4',
    ]) {
      expect(predicate(source, given)).toBe(true);
    }
    expect(given).toEqual(before);
  });
});

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const item of Object.values(value)) deepFreeze(item);
    Object.freeze(value);
  }
  return value;
}

describe('agrees with the same rule written in TypeScript (property)', () => {
  interface Args {
    path: string;
    amount: number;
    tags: string[];
    meta?: { level?: string; nested?: { depth: number } };
  }

  const argsArbitrary: fc.Arbitrary<Args> = fc.record(
    {
      path: fc.oneof(
        fc.string({ maxLength: 12 }),
        fc.constantFrom('docs/', 'docs/a.md', 'src/x.ts', '../etc', 'docs', 'DOCS/a'),
      ),
      amount: fc.oneof(
        fc.integer({ min: -1000, max: 1000 }),
        fc.double({ min: -1e6, max: 1e6, noNaN: true }),
        fc.constantFrom(100, 99.999, 100.0001, 0, -0),
      ),
      tags: fc.array(fc.constantFrom('secret', 'public', 'draft', ''), { maxLength: 4 }),
      meta: fc.record(
        {
          level: fc.constantFrom('high', 'low', ''),
          nested: fc.record({ depth: fc.integer({ min: 0, max: 5 }) }),
        },
        { requiredKeys: [] },
      ),
    },
    { requiredKeys: ['path', 'amount', 'tags'] },
  );
  const rolesArbitrary = fc.subarray(['admin', 'writer', 'reader']);

  const templates: [string, (args: Args, roles: readonly string[]) => boolean][] = [
    ['args.path.startsWith("docs/")', (a) => a.path.startsWith('docs/')],
    ['args.amount > 100', (a) => a.amount > 100],
    ['args.amount <= 99.999', (a) => a.amount <= 99.999],
    ['"admin" in roles', (_, roles) => roles.includes('admin')],
    [
      '(args.amount >= 10 && !args.path.startsWith("docs/")) || "admin" in roles',
      (a, roles) => (a.amount >= 10 && !a.path.startsWith('docs/')) || roles.includes('admin'),
    ],
    [
      '!("writer" in roles) && (args.path.contains("..") || args.path.size() == 0)',
      (a, roles) => !roles.includes('writer') && (a.path.includes('..') || a.path.length === 0),
    ],
    ['has(args.meta) && has(args.meta.level) && args.meta.level == "high"', (a) => a.meta?.level === 'high'],
    ['has(args.meta) && has(args.meta.nested) && args.meta.nested.depth > 2', (a) => (a.meta?.nested?.depth ?? 0) > 2],
    ['args.tags.exists(t, t == "secret")', (a) => a.tags.includes('secret')],
    ['args.tags.all(t, t != "") || args.amount < 0', (a) => a.tags.every((t) => t !== '') || a.amount < 0],
  ];

  it.each(templates)('%s', (source, reference) => {
    const condition = compilePredicate(source, FIELD);
    fc.assert(
      fc.property(argsArbitrary, rolesArbitrary, (args, roles) => {
        const given = input({ args: args as unknown as Record<string, unknown>, roles });
        expect(condition.evaluate(given)).toBe(reference(args, roles));
      }),
      { numRuns: 1000 },
    );
  });

  it('units: the amount times 2.5, or an error when negative', () => {
    const condition = compileNumber('args.amount * 2.5', 'policies.charge.cost.units');
    fc.assert(
      fc.property(argsArbitrary, (args) => {
        const given = input({ args: args as unknown as Record<string, unknown> });
        const expected = args.amount * 2.5;
        if (expected < 0) {
          expect(evaluationFailure(() => condition.evaluate(given)).reason).toMatch(/negative/);
        } else {
          expect(condition.evaluate(given)).toBe(expected + 0);
        }
      }),
      { numRuns: 1000 },
    );
  });
});

describe('fuzz: compiling never throws anything but INVALID_CONDITION', () => {
  const field = 'policies.fuzz.allow';

  /** Compiles `source` both ways; evaluates what compiles; fails on any error of another kind. */
  function survives(source: string): void {
    for (const compile of [compilePredicate, compileNumber]) {
      let condition: { evaluate(input: ConditionInput): unknown } | undefined;
      try {
        condition = compile(source, field);
      } catch (error) {
        expect(ConfigurationError.isInstance(error)).toBe(true);
        expect((error as ConfigurationError).code).toBe('INVALID_CONDITION');
        const { column, field: named } = error as ConditionError;
        expect(named).toBe(field);
        expect(column).toBeGreaterThanOrEqual(1);
        expect(column).toBeLessThanOrEqual(Array.from(source).length + 1);
      }
      if (condition === undefined) continue;
      try {
        const value = condition.evaluate(input({ args: { path: 'docs/a', amount: 3, items: ['x'] } }));
        expect(['boolean', 'number']).toContain(typeof value);
      } catch (error) {
        expect(ConditionEvaluationError.isInstance(error)).toBe(true);
      }
    }
  }

  it('on random strings', () => {
    fc.assert(fc.property(fc.string({ maxLength: 60 }), survives), { numRuns: 3000 });
  });

  it('on random strings of full Unicode', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 40 }), survives), { numRuns: 1000 });
  });

  const token = fc.oneof(
    fc.constantFrom('args', 'roles', 'scopes', 'claims', 'tool', 'principal', 'user', 'path', 'amount', 'x'),
    fc.constantFrom('startsWith', 'exists', 'all', 'map', 'filter', 'has', 'size', 'matches', 'int', 'double', 'uint'),
    fc.constantFrom('&&', '||', '!', '==', '!=', '<', '<=', '>', '>=', '+', '-', '*', '/', '%', 'in', '?', ':'),
    fc.constantFrom('(', ')', '[', ']', '{', '}', '.', ',', '"', "'", '"docs/"', '"(a+)+"', '\\'),
    fc.constantFrom('0', '1', '2.5', '3u', '-1', '1e9', 'true', 'false', 'null', '__proto__', 'b"x"', 'r"x"'),
  );

  it('on random token sequences', () => {
    fc.assert(
      fc.property(fc.array(token, { maxLength: 24 }), fc.constantFrom(' ', '', '\n'), (tokens, gap) => {
        survives(tokens.join(gap));
      }),
      { numRuns: 3000 },
    );
  });
});

describe('errors are branded', () => {
  it('isInstance recognizes its own and nothing else', () => {
    const compileError = new ConditionError('f', 'x', 0, 'bad');
    const evaluationError = new ConditionEvaluationError('f', 'bad');
    expect(ConditionError.isInstance(compileError)).toBe(true);
    expect(ConfigurationError.isInstance(compileError)).toBe(true);
    expect(ConditionEvaluationError.isInstance(evaluationError)).toBe(true);
    expect(ConditionError.isInstance(evaluationError)).toBe(false);
    expect(ConditionEvaluationError.isInstance(new Error('plain'))).toBe(false);
    expect(ConditionError.isInstance(new ConfigurationError('INVALID_CONDITION', 'plain'))).toBe(false);
  });
});

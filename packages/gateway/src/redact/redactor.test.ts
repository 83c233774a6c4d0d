import { ConfigurationError } from '@ext/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { redactionMarker } from './pattern-detector.js';
import {
  CIRCULAR_MARKER,
  DEPTH_MARKER,
  MAX_DEPTH,
  createRedactor,
  redactToolResult,
  type RedactionPattern,
} from './redactor.js';

// Fake secrets, assembled at run time so that no secret scanner sees a whole key in this file.
const AWS_KEY_ID = 'AKIA' + 'EXAMPLE'.padEnd(16, 'X');
const GITHUB_TOKEN = 'ghp_' + 'FAKE'.padEnd(36, 'aB3');
const M = redactionMarker;

const redactor = createRedactor();

function thrown(action: () => unknown): unknown {
  try {
    action();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

function configurationError(patterns: readonly RedactionPattern[], builtins?: boolean): ConfigurationError {
  const error = thrown(() => createRedactor({ patterns, builtins }));
  expect(ConfigurationError.isInstance(error)).toBe(true);
  const checked = error as ConfigurationError;
  expect(checked.code).toBe('INVALID_OPTION');
  return checked;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const item of Object.values(value)) deepFreeze(item);
  }
  return value;
}

describe('createRedactor options', () => {
  it('applies an operator pattern under its own id', () => {
    const custom = createRedactor({ patterns: [{ id: 'acme-token', pattern: String.raw`\bacme_[a-z0-9]{8}\b` }] });
    const result = custom.text('key acme_' + 'fake1234 and ' + AWS_KEY_ID);
    expect(result.value).toBe(`key ${M('acme-token')} and ${M('aws-access-key-id')}`);
    expect(result.count).toBe(2);
    expect(result.detectors).toEqual(['acme-token', 'aws-access-key-id']);
  });

  it('compiles operator patterns with the u flag', () => {
    const custom = createRedactor({
      builtins: false,
      patterns: [{ id: 'ticket', pattern: String.raw`\p{Lu}{3}-\d{4}` }],
    });
    expect(custom.text('see ÉTÉ-1234').value).toBe(`see ${M('ticket')}`);
  });

  it('without built-ins applies only the operator patterns, and leaves secret-named keys alone', () => {
    const custom = createRedactor({ builtins: false, patterns: [{ id: 'jwt', pattern: 'never-[0-9]+' }] });
    expect(custom.text(`${AWS_KEY_ID} never-42`).value).toBe(`${AWS_KEY_ID} ${M('jwt')}`);
    expect(custom.value({ password: 'Hunter2' })).toEqual({ value: { password: 'Hunter2' }, count: 0, detectors: [] });
  });

  it('with neither built-ins nor patterns changes nothing', () => {
    expect(createRedactor({ builtins: false }).text(AWS_KEY_ID).count).toBe(0);
  });

  it('skips an empty match the construction-time probes could not foresee', () => {
    const custom = createRedactor({ builtins: false, patterns: [{ id: 'before-q', pattern: '(?=q)' }] });
    expect(custom.text('aqq')).toEqual({ value: 'aqq', count: 0, detectors: [] });
  });

  it('refuses a pattern that is not a regular expression, naming its index, id and field', () => {
    const error = configurationError([
      { id: 'fine', pattern: 'x+' },
      { id: 'broken', pattern: '(unclosed' },
    ]);
    expect(error.message).toContain('patterns[1].pattern');
    expect(error.message).toContain('"broken"');
  });

  it.each(['', 'Upper', '-leading', 'with space', 'under_score', 'x'.repeat(65), 'é'])('refuses the id %j', (id) => {
    const error = configurationError([{ id, pattern: 'x+' }]);
    expect(error.message).toContain('patterns[0].id');
    expect(error.message).toContain(JSON.stringify(id));
  });

  it.each(['a', '0', 'acme-token', 'x'.repeat(64)])('accepts the id %j', (id) => {
    expect(() => createRedactor({ patterns: [{ id, pattern: 'x+' }] })).not.toThrow();
  });

  it.each(['', 'a*', 'x?', '(?:)', String.raw`\b`, '$', '^', 'foo|', '(?=x)'])(
    'refuses %j, which matches the empty string',
    (pattern) => {
      const error = configurationError([{ id: 'empty', pattern }]);
      expect(error.message).toContain('patterns[0].pattern');
      expect(error.message).toContain('"empty"');
      expect(error.message).toContain('empty string');
    },
  );

  it('refuses an id used twice, built-ins included', () => {
    const twice = configurationError([
      { id: 'acme', pattern: 'a+' },
      { id: 'acme', pattern: 'b+' },
    ]);
    expect(twice.message).toContain('"acme"');
    expect(configurationError([{ id: 'jwt', pattern: 'a+' }]).message).toContain('"jwt"');
    expect(() => createRedactor({ builtins: false, patterns: [{ id: 'jwt', pattern: 'a+' }] })).not.toThrow();
  });
});

describe('value()', () => {
  it('redacts every string of a deep copy and the string value of secret-named keys', () => {
    const input = {
      user: 'ann',
      password: 'Hunter2',
      nested: { list: [`id ${AWS_KEY_ID}`, 3, { clientSecret: 'FakeSecret', next_page_token: 'cursor-1' }] },
      env: `GITHUB_TOKEN=${GITHUB_TOKEN}`,
    };
    const result = redactor.value(input);
    expect(result.value).toEqual({
      user: 'ann',
      password: M('password-field'),
      nested: {
        list: [`id ${M('aws-access-key-id')}`, 3, { clientSecret: M('password-field'), next_page_token: 'cursor-1' }],
      },
      env: `GITHUB_TOKEN=${M('github-token')}`,
    });
    expect(result.count).toBe(4);
    expect(result.detectors).toEqual(['aws-access-key-id', 'github-token', 'password-field']);
  });

  it('keeps non-string values under secret-named keys, descending into containers', () => {
    const input = { token: 12, password: null, secret: true, apiKey: { value: 'plain' }, pwd: '' };
    expect(redactor.value(input)).toEqual({ value: input, count: 0, detectors: [] });
  });

  it('does not count a value that is already a marker, so redacting twice changes nothing', () => {
    const once = redactor.value({ password: 'Hunter2', note: `key ${AWS_KEY_ID}` });
    expect(redactor.value(once.value)).toEqual({ value: once.value, count: 0, detectors: [] });
  });

  it('never mutates its input', () => {
    const input = deepFreeze({ password: 'Hunter2', list: [`id ${AWS_KEY_ID}`] });
    const before = structuredClone(input);
    redactor.value(input);
    expect(input).toEqual(before);
  });

  it('preserves non-string leaves, dates and binary data', () => {
    const date = new Date(0);
    const bytes = new Uint8Array([1, 2, 3]);
    const input = { n: 1.5, b: false, z: null, u: undefined, big: 10n, date, bytes, list: [0, true, null] };
    const copy = redactor.value(input).value;
    expect(copy).toEqual(input);
    expect(copy).not.toBe(input);
    expect(copy.date).toBe(date);
    expect(copy.bytes).toBe(bytes);
    expect(copy.list).not.toBe(input.list);
    expect(redactor.value(42).value).toBe(42);
    expect(redactor.value(`x ${AWS_KEY_ID}`).value).toBe(`x ${M('aws-access-key-id')}`);
  });

  it('copies an object that is not plain as its own enumerable properties', () => {
    class Credentials {
      constructor(
        readonly user: string,
        readonly password: string,
      ) {}
    }
    expect(redactor.value(new Credentials('ann', 'Hunter2')).value).toEqual({
      user: 'ann',
      password: M('password-field'),
    });
  });

  it('leaves out accessors instead of running them', () => {
    const input = { user: 'ann' };
    Object.defineProperty(input, 'boom', {
      enumerable: true,
      get() {
        throw new Error('getter ran');
      },
    });
    expect(redactor.value(input).value).toEqual({ user: 'ann' });
  });

  it('keeps a `__proto__` key a key', () => {
    const input: unknown = JSON.parse(`{"__proto__": {"polluted": "id ${AWS_KEY_ID}"}}`);
    const copy = redactor.value(input).value as Record<string, unknown>;
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(copy, '__proto__')?.value).toEqual({
      polluted: `id ${M('aws-access-key-id')}`,
    });
  });

  it('replaces a cycle with a marker, and copies a shared (acyclic) reference twice', () => {
    const shared = { secret: 'FakeSecret' };
    const input: Record<string, unknown> = { a: shared, b: shared, list: [] as unknown[] };
    input.self = input;
    (input.list as unknown[]).push(input.list, shared);
    const copy = redactor.value(input);
    expect(copy.value).toEqual({
      a: { secret: M('password-field') },
      b: { secret: M('password-field') },
      list: [CIRCULAR_MARKER, { secret: M('password-field') }],
      self: CIRCULAR_MARKER,
    });
    expect(copy.count).toBe(3);
  });

  it(`stops descending below ${MAX_DEPTH} levels without throwing`, () => {
    type Nested = { password: string; child?: Nested | unknown[] };
    const root: Nested = { password: 'Fake0' };
    let node = root;
    for (let level = 1; level < 200; level += 1) {
      const child: Nested = { password: `Fake${level}` };
      node.child = level % 2 === 0 ? child : [child];
      node = child;
    }
    const copy = redactor.value(root);
    let levels = 0;
    let cursor: unknown = copy.value;
    while (typeof cursor === 'object' && cursor !== null) {
      levels += 1;
      cursor = Array.isArray(cursor) ? cursor[0] : (cursor as Nested).child;
    }
    expect(levels).toBe(MAX_DEPTH);
    expect(cursor).toBe(DEPTH_MARKER);
    expect(JSON.stringify(copy.value)).not.toContain('Fake');
  });
});

/** A JSON-like tree whose strings and keys are often secret-shaped. */
const secretish = fc.constantFrom(
  `id ${AWS_KEY_ID}`,
  GITHUB_TOKEN,
  'password=Hunter2',
  'Authorization: Bearer Opaque-Fake',
  M('jwt'),
);
const keys = fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom('password', 'token', 'apiKey', 'next_page_token'));
const { tree } = fc.letrec((tie) => ({
  tree: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.oneof(fc.string(), secretish, fc.integer(), fc.double(), fc.boolean(), fc.constant(null)),
    fc.array(tie('tree'), { maxLength: 5 }),
    fc.dictionary(keys, tie('tree'), { maxKeys: 5 }),
  ),
}));

/** Whether `copy` has the shape of `original`: same containers, same keys, same non-string leaves. */
function expectSameShape(original: unknown, copy: unknown): void {
  if (typeof original === 'string') {
    expect(typeof copy).toBe('string');
  } else if (Array.isArray(original)) {
    expect(Array.isArray(copy)).toBe(true);
    const items = copy as unknown[];
    expect(items).toHaveLength(original.length);
    original.forEach((item: unknown, index) => {
      expectSameShape(item, items[index]);
    });
  } else if (typeof original === 'object' && original !== null) {
    const record = copy as Record<string, unknown>;
    expect(Object.keys(record)).toEqual(Object.keys(original));
    for (const [key, item] of Object.entries(original)) expectSameShape(item, record[key]);
  } else {
    expect(copy).toBe(original);
  }
}

describe('value() properties', () => {
  it('never mutates its input and returns a structure of the same shape (property)', () => {
    fc.assert(
      fc.property(tree, (input) => {
        const before = structuredClone(input);
        const result = redactor.value(input);
        expect(input).toEqual(before);
        expectSameShape(input, result.value);
      }),
      { numRuns: 1000 },
    );
  });

  it('is idempotent (property)', () => {
    fc.assert(
      fc.property(tree, (input) => {
        const once = redactor.value(input);
        expect(redactor.value(once.value)).toEqual({ value: once.value, count: 0, detectors: [] });
      }),
      { numRuns: 1000 },
    );
  });
});

describe('redactToolResult', () => {
  const image = { type: 'image', mimeType: 'image/png', data: `${AWS_KEY_ID}==` };
  const audio = { type: 'audio', mimeType: 'audio/wav', data: GITHUB_TOKEN };
  const result = deepFreeze({
    content: [
      { type: 'text', text: `token ${GITHUB_TOKEN}`, annotations: { audience: ['user'] } },
      image,
      audio,
      { type: 'resource', resource: { uri: 'file:///env', mimeType: 'text/plain', text: 'password=Hunter2' } },
      { type: 'resource', resource: { uri: 'file:///blob', blob: AWS_KEY_ID } },
      { type: 'resource_link', uri: 'postgres://app:FakePw@db/app', name: 'db' },
    ],
    structuredContent: { rows: [{ user: 'ann', api_key: 'FakeKey' }] },
    isError: false,
    _meta: { note: `kept ${AWS_KEY_ID}` },
  });

  it('redacts text, resource text, other items and structuredContent, but not base64 data or _meta', () => {
    const redacted = redactToolResult(redactor, result);
    expect(redacted.value).toEqual({
      content: [
        { type: 'text', text: `token ${M('github-token')}`, annotations: { audience: ['user'] } },
        image,
        audio,
        {
          type: 'resource',
          resource: { uri: 'file:///env', mimeType: 'text/plain', text: `password=${M('password-field')}` },
        },
        { type: 'resource', resource: { uri: 'file:///blob', blob: AWS_KEY_ID } },
        { type: 'resource_link', uri: `postgres://app:${M('url-credentials')}@db/app`, name: 'db' },
      ],
      structuredContent: { rows: [{ user: 'ann', api_key: M('password-field') }] },
      isError: false,
      _meta: { note: `kept ${AWS_KEY_ID}` },
    });
    expect(redacted.count).toBe(4);
    expect(redacted.detectors).toEqual(['github-token', 'password-field', 'url-credentials']);
    expect(result.content[0]).toMatchObject({ text: `token ${GITHUB_TOKEN}` });
  });

  it('adds no fields a result did not have', () => {
    expect(redactToolResult(redactor, { isError: true })).toEqual({
      value: { isError: true },
      count: 0,
      detectors: [],
    });
  });

  it('redacts content that is not an array as a value', () => {
    expect(redactToolResult(redactor, { content: { password: 'Hunter2' } }).value).toEqual({
      content: { password: M('password-field') },
    });
  });
});

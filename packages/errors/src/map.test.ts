import { brandError } from '@ext/core/kit';
import { ExtensionError, StoreUnavailableError, WireError } from '@ext/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { PermanentError, RateLimitedError, toolError } from './classes.js';
import { seedValidators } from '@ext/core/testing';
import { GENERIC_MESSAGES, mapError } from './map.js';
import { isStructuredError } from './schema.js';

const seed = seedValidators().check('error');

function expectValid(value: unknown): void {
  const check = seed(value);
  expect(check.errors).toBe('');
  expect(isStructuredError(value)).toBe(true);
}

describe('mapError: the package’s own errors', () => {
  it('an ExtensionError becomes its own structured object', () => {
    const error = toolError.rateLimited({ message: 'Slow down.', retryAfterSeconds: 42, suggestion: 'Wait a minute.' });
    expect(mapError(error)).toEqual({
      code: 'RATE_LIMIT_EXCEEDED',
      message: 'Slow down.',
      category: 'rate_limited',
      retry_after_seconds: 42,
      suggestion: 'Wait a minute.',
    });
  });

  it('a core ExtensionError from another extension maps the same way', () => {
    const error = new ExtensionError('invalid_input', 'IDEMPOTENCY_CONFLICT', 'Key reused with other arguments.');
    expect(mapError(error)).toEqual({
      code: 'IDEMPOTENCY_CONFLICT',
      message: 'Key reused with other arguments.',
      category: 'invalid_input',
    });
  });

  it('sanitizes what an author put in by mistake (ERR-6, ERR-7)', () => {
    const error = new PermanentError('EXPORT_FAILED', 'Export failed writing /var/exports/x.csv', {
      details: { path: '/var/exports/x.csv', rows: 12, callback: () => 1 },
      documentationUrl: 'http://insecure.example.com/doc',
      retryAfterSeconds: Number.NaN,
    });
    const out = mapError(error);
    expectValid(out);
    expect(JSON.stringify(out)).not.toContain('/var/exports');
    expect(out.details).toEqual({ rows: 12 });
    expect(out.documentation_url).toBeUndefined();
    expect(out.retry_after_seconds).toBeUndefined();
  });

  it('adds documentation_url from documentationBaseUrl when the error has none', () => {
    const out = mapError(toolError.invalidInput({ message: 'bad' }), {
      documentationBaseUrl: 'https://docs.example.com/errors#',
    });
    expect(out.documentation_url).toBe('https://docs.example.com/errors#INVALID_INPUT');
  });

  it('a branded object from a duplicate copy without toStructured is read field by field', () => {
    const copy = { code: 'QUOTA', message: 'Quota used.', category: 'rate_limited', retryAfterSeconds: 5 };
    brandError(copy as unknown as Error, ExtensionError.brand);
    expect(mapError(copy)).toEqual({
      code: 'QUOTA',
      message: 'Quota used.',
      category: 'rate_limited',
      retry_after_seconds: 5,
    });
  });
});

describe('mapError: foreign errors (ERR-10, ERR-11)', () => {
  it('a plain Error becomes permanent INTERNAL_ERROR with a generic message', () => {
    const error = new Error('relation "users" does not exist');
    const out = mapError(error);
    expect(out).toEqual({ code: 'INTERNAL_ERROR', message: GENERIC_MESSAGES.permanent, category: 'permanent' });
  });

  it('exposeMessages puts the redacted message on the wire', () => {
    const error = new Error('Upstream refused the order: open /srv/orders/queue failed');
    const out = mapError(error, { exposeMessages: true });
    expect(out.category).toBe('permanent');
    expect(out.message).toContain('Upstream refused the order');
    expect(out.message).not.toContain('/srv/orders');
  });

  it('thrown strings and other values are internal errors too', () => {
    for (const value of ['boom', 42, undefined, null, { weird: true }, Symbol('s'), () => 1]) {
      const out = mapError(value);
      expect(out.code).toBe('INTERNAL_ERROR');
      expect(out.message).toBe(GENERIC_MESSAGES.permanent);
    }
    expect(mapError('visible', { exposeMessages: true }).message).toBe('visible');
  });

  it('a ZodError becomes invalid_input naming the first field', () => {
    const schema = z.object({ range: z.object({ days: z.number().max(90) }), name: z.string() });
    const parsed = schema.safeParse({ range: { days: 365 }, name: 5 });
    expect(parsed.success).toBe(false);
    const out = mapError(parsed.error);
    expectValid(out);
    expect(out.category).toBe('invalid_input');
    expect(out.code).toBe('INVALID_INPUT');
    expect(out.details).toMatchObject({ field: 'range.days', pointer: '/range/days', constraint: 'too_big' });
    expect(out.message).toContain('range.days');
    expect(out.suggestion).toContain('range.days');
  });

  it('a duck-typed zod error (another zod copy or version) maps the same way', () => {
    const out = mapError({
      name: 'ZodError',
      issues: [{ path: ['items', 0, 'sku'], message: 'Required', code: 'invalid_type' }],
    });
    expect(out.details).toEqual({ field: 'items.0.sku', pointer: '/items/0/sku', constraint: 'invalid_type' });
  });

  it('JSON-RPC -32602 becomes invalid_input; -32001 becomes a transient timeout', () => {
    expect(mapError(new WireError(-32602, 'Invalid params: /etc/x'))).toMatchObject({
      category: 'invalid_input',
      code: 'INVALID_INPUT',
    });
    expect(mapError({ name: 'McpError', code: -32602, message: 'MCP error -32602: bad' })).toMatchObject({
      category: 'invalid_input',
    });
    expect(mapError({ name: 'McpError', code: -32001, message: 'Request timed out' })).toMatchObject({
      category: 'transient',
      code: 'OPERATION_TIMEOUT',
    });
  });

  it('a JSON-RPC error carrying a structured error in data keeps it', () => {
    const data = { code: 'SCOPE_INSUFFICIENT', message: 'Needs write.', category: 'auth_required' };
    expect(mapError(new WireError(-31000, 'x', data))).toEqual(data);
  });

  it('aborts and timeouts become transient OPERATION_TIMEOUT', () => {
    const abort = new AbortController();
    abort.abort();
    const timeout = AbortSignal.timeout(0);
    const samples: unknown[] = [
      abort.signal.reason,
      new DOMException('x', 'TimeoutError'),
      Object.assign(new Error('read ETIMEDOUT'), { code: 'ETIMEDOUT' }),
      Object.assign(new Error('The operation was aborted'), { name: 'AbortError' }),
    ];
    for (const value of samples) {
      expect(mapError(value)).toMatchObject({ category: 'transient', code: 'OPERATION_TIMEOUT' });
    }
    expect(timeout).toBeInstanceOf(AbortSignal);
  });

  it('network failures of a dependency become transient SERVER_UNAVAILABLE without the address', () => {
    const error = Object.assign(new Error('connect ECONNREFUSED 10.1.2.3:5432'), { code: 'ECONNREFUSED' });
    const out = mapError(error, { exposeMessages: true });
    expect(out).toMatchObject({ category: 'transient', code: 'SERVER_UNAVAILABLE' });
    expect(JSON.stringify(out)).not.toContain('10.1.2.3');
  });

  it('ERR-28: a store outage (core StoreUnavailableError) becomes transient SERVICE_UNAVAILABLE with a wait, never permanent', () => {
    const error = new StoreUnavailableError({
      reason: 'timeout',
      retryAfterSeconds: 2,
      cause: new Error('redis 10.0.0.7:6379 stalled'),
    });
    const out = mapError(error, { exposeMessages: true });
    expectValid(out);
    expect(out).toEqual({
      code: 'SERVICE_UNAVAILABLE',
      category: 'transient',
      message: 'The server cannot use its data store right now.',
      retry_after_seconds: 2,
      user_actionable: false,
      suggestion: 'Try again shortly.',
      details: { reason: 'timeout' },
    });
    // An extension that wraps what its store threw does not turn the outage into an internal error.
    const wrapped = new Error('saving the grant failed', { cause: new Error('store call failed', { cause: error }) });
    expect(mapError(wrapped)).toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
      category: 'transient',
      retry_after_seconds: 2,
    });
  });

  it('ERR-28: node-redis connection and timeout errors that leak map to SERVICE_UNAVAILABLE too', () => {
    // Look-alikes of node-redis's classes: their `name` stays `Error`, only the class name says what happened.
    class ClientOfflineError extends Error {}
    class SocketClosedUnexpectedlyError extends Error {}
    class TimeoutError extends Error {}
    const samples: [Error, string][] = [
      [new ClientOfflineError('The client is offline'), 'unreachable'],
      [new SocketClosedUnexpectedlyError('Socket closed unexpectedly'), 'unreachable'],
      [new TimeoutError(), 'timeout'],
      [new Error('write failed', { cause: new ClientOfflineError('The client is offline') }), 'unreachable'],
    ];
    for (const [error, reason] of samples) {
      const out = mapError(error);
      expectValid(out);
      expect(out).toMatchObject({
        code: 'SERVICE_UNAVAILABLE',
        category: 'transient',
        retry_after_seconds: 1,
        details: { reason },
      });
    }
    // A timeout that names itself (DOMException, AbortSignal.timeout) stays a generic OPERATION_TIMEOUT.
    expect(mapError(new DOMException('x', 'TimeoutError')).code).toBe('OPERATION_TIMEOUT');
  });

  it('ERR-28: SQLite errors that say the database cannot take writes map to SERVICE_UNAVAILABLE', () => {
    const sqlite = (code: string) =>
      Object.assign(new Error(`${code}: /srv/data/app.db`), { name: 'SqliteError', code });
    const samples: [string, string][] = [
      ['SQLITE_BUSY', 'busy'],
      ['SQLITE_FULL', 'full'],
      ['SQLITE_READONLY', 'read_only'],
      ['SQLITE_READONLY_DBMOVED', 'read_only'],
      ['SQLITE_IOERR_WRITE', 'io_error'],
    ];
    for (const [code, reason] of samples) {
      const out = mapError(sqlite(code), { exposeMessages: true });
      expect(out).toMatchObject({ code: 'SERVICE_UNAVAILABLE', category: 'transient', details: { reason } });
      expect(JSON.stringify(out)).not.toContain('/srv/data');
    }
    // A constraint violation is a bug, not an outage.
    expect(mapError(sqlite('SQLITE_CONSTRAINT_UNIQUE'))).toMatchObject({
      code: 'INTERNAL_ERROR',
      category: 'permanent',
    });
  });

  it('never leaks the stack, even with exposeMessages', () => {
    const error = new Error('boom');
    const out = mapError(error, { exposeMessages: true });
    expect(error.stack).toContain(' at ');
    expect(JSON.stringify(out)).not.toContain(' at ');
    expect(JSON.stringify(out)).not.toMatch(/\.[jt]s:\d+/);
  });
});

// Values thrown in the wild, and hostile ones.
const hostileProxy = new Proxy(
  {},
  {
    get() {
      throw new Error('get trap');
    },
    getPrototypeOf() {
      throw new Error('proto trap');
    },
    ownKeys() {
      throw new Error('keys trap');
    },
    has() {
      throw new Error('has trap');
    },
  },
);

const categoryish = fc.oneof(
  fc.constantFrom('transient', 'permanent', 'auth_required', 'invalid_input', 'rate_limited'),
  fc.anything(),
);

const branded = fc
  .record(
    {
      code: fc.oneof(fc.string(), fc.anything()),
      message: fc.oneof(fc.string(), fc.anything()),
      category: categoryish,
      retryAfterSeconds: fc.oneof(fc.double(), fc.integer(), fc.anything()),
      userActionable: fc.anything(),
      suggestion: fc.oneof(fc.string(), fc.anything()),
      details: fc.anything({ withBigInt: true, withDate: true, withMap: true }),
      documentationUrl: fc.oneof(fc.webUrl(), fc.string(), fc.anything()),
    },
    { requiredKeys: [] },
  )
  .map((fields) => {
    const value: Record<string, unknown> = { ...fields };
    brandError(value as unknown as Error, ExtensionError.brand);
    return value;
  });

const realExtensionError = fc
  .record({
    category: fc.constantFrom('transient', 'permanent', 'auth_required', 'invalid_input', 'rate_limited' as const),
    code: fc.string(),
    message: fc.string(),
    retryAfterSeconds: fc.option(fc.double(), { nil: undefined }),
    suggestion: fc.option(fc.string(), { nil: undefined }),
    details: fc.option(fc.dictionary(fc.string(), fc.jsonValue()), { nil: undefined }),
    documentationUrl: fc.option(fc.oneof(fc.webUrl({ withFragments: true, withQueryParameters: true }), fc.string()), {
      nil: undefined,
    }),
  })
  .map(({ category, code, message, ...rest }) => new ExtensionError(category, code, message, rest));

const errorWithMessage = fc
  .tuple(fc.string(), fc.anything())
  .map(([message, extra]) => Object.assign(new Error(message), { extra }));

const zodLike = fc.record({
  issues: fc.array(
    fc.record({
      path: fc.array(fc.oneof(fc.string(), fc.integer(), fc.anything())),
      message: fc.anything(),
      code: fc.anything(),
    }),
    {
      maxLength: 3,
    },
  ),
});

const rpcLike = fc.record({
  code: fc.oneof(fc.integer({ min: -32768, max: -31000 }), fc.constant(-32602)),
  message: fc.anything(),
  data: fc.anything(),
});

const thrown = fc.oneof(
  fc.anything({ withBigInt: true, withDate: true, withMap: true, withSet: true, withNullPrototype: true }),
  branded,
  realExtensionError,
  errorWithMessage,
  zodLike,
  rpcLike,
);

describe('mapError: properties (ERR-22)', () => {
  it('survives a proxy that throws on every trap', () => {
    expectValid(mapError(hostileProxy));
    expectValid(mapError(hostileProxy, { exposeMessages: true }));
    expectValid(mapError({ issues: hostileProxy, code: hostileProxy }));
  });

  it('never throws and always yields a payload valid against the seed schema', () => {
    fc.assert(
      fc.property(thrown, fc.boolean(), (value, exposeMessages) => {
        const out = mapError(value, { exposeMessages, documentationBaseUrl: 'https://docs.example.com/e/' });
        expectValid(out);
        expect(JSON.parse(JSON.stringify(out))).toEqual(out);
      }),
      { numRuns: 500 },
    );
  });

  it('never lets an injected path, stack, SQL or secret through, even with exposeMessages', () => {
    const word = fc.stringMatching(/^[a-z]{3,10}$/);
    const leak = fc.oneof(
      fc.tuple(word, word).map(([a, b]) => ({ text: `/srv/${a}/${b}.db`, fragment: `/srv/${a}/${b}` })),
      word.map((a) => ({ text: `\n    at ${a} (/app/${a}.js:1:2)`, fragment: `/app/${a}` })),
      word.map((t) => ({ text: `SELECT id, secret FROM ${t}_tbl WHERE id = 1`, fragment: `${t}_tbl` })),
      fc.stringMatching(/^[A-Za-z0-9]{20,30}$/).map((k) => ({ text: `sk-${k}`, fragment: k })),
      fc.tuple(word, word).map(([user, pw]) => ({ text: `redis://${user}:${pw}Z9@cache:6379`, fragment: `${pw}Z9` })),
    );
    fc.assert(
      fc.property(
        fc.string({ maxLength: 40 }),
        leak,
        fc.string({ maxLength: 40 }),
        (before, { text, fragment }, after) => {
          const message = `${before} ${text} ${after}`;
          const outputs = [
            mapError(new Error(message), { exposeMessages: true }),
            mapError(new PermanentError('X', message, { suggestion: message, details: { note: message } }), {
              exposeMessages: true,
            }),
            mapError(new RateLimitedError('X', 'ok', { details: { nested: [{ note: message }] } })),
          ];
          for (const out of outputs) expect(JSON.stringify(out)).not.toContain(fragment);
        },
      ),
      { numRuns: 300 },
    );
  });
});

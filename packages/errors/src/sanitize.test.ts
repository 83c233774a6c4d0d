import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  httpsUrl,
  isSecretKey,
  looksSensitive,
  MAX_DETAILS_DEPTH,
  normalizeCode,
  redactText,
  sanitizeDetails,
} from './sanitize.js';

const LEAKS: readonly [string, string, string][] = [
  // [label, text, fragment that must disappear]
  ['stack trace', 'Boom\n    at query (/srv/app/db.js:12:7)\n    at run (node:internal/x:1:1)', 'db.js'],
  ['inline stack frame', 'failed at handler (/opt/app/dist/tool.js:3:9)', '/opt/app'],
  ['posix path', "ENOENT: no such file or directory, open '/etc/app/secrets.json'", '/etc/app'],
  ['home path', 'cannot read ~/projects/x/config', '~/projects'],
  ['relative path', 'missing ./config/local.yaml', './config'],
  ['windows path', 'cannot open C:\\Users\\admin\\key.pem', 'C:\\Users'],
  ['file url', 'load failed for file:///srv/app/x.mjs', 'file:///srv'],
  ['node_modules', 'thrown in node_modules/pg/lib/client.js', 'node_modules'],
  ['source line', 'TypeError in handler.ts:42:13', 'handler.ts:42'],
  ['sql select', 'Failed query: select "id", "email" from "users" where "id" = $1', 'from "users"'],
  ['sql upper', 'error in SELECT * FROM accounts WHERE owner = 7', 'accounts'],
  ['sql insert', 'duplicate: INSERT INTO payments (id) VALUES (1)', 'payments'],
  ['sql update', 'deadlock on UPDATE orders SET status = 1', 'orders'],
  ['sql delete', 'DELETE FROM sessions was refused', 'sessions'],
  ['sql ddl', 'DROP TABLE customers', 'customers'],
  ['bearer token', 'upstream said 401 for Bearer abcdefghijklmnop.qrstu', 'abcdefghijklmnop'],
  ['password pair', 'login failed password=hunter2!', 'hunter2'],
  ['api key pair', 'bad api_key: 12345-abcde', '12345-abcde'],
  ['url credentials', 'connect postgres://admin:s3cret@db.internal:5432/app', 's3cret'],
  ['aws key', 'using AKIAIOSFODNN7EXAMPLE', 'AKIAIOSFODNN7EXAMPLE'],
  ['openai-like key', 'key sk-abcdefghijklmnop1234 rejected', 'sk-abcdefghijklmnop1234'],
  ['github token', 'ghp_abcdefghijklmnopqrstuvwx1234 expired', 'ghp_abcdefghijklmnopqrstuvwx1234'],
  ['jwt', 'token eyJhbGciOiJI.eyJzdWIiOiIx.SflKxwRJSMeKKF2QT4 bad', 'eyJzdWIiOiIx'],
  ['private key', 'key: -----BEGIN RSA PRIVATE KEY-----\nMIIEow...', 'MIIEow'],
  [
    'hex secret',
    'hmac 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08 mismatch',
    '9f86d081884c7d659a2f',
  ],
  ['base64 blob', 'sig Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MEFCQ0RFRkdISUpLTE1OT1A= rejected', 'Zm9vYmFyYmF6cXV4MTIz'],
  ['ipv4', 'connect ECONNREFUSED 10.0.0.5:5432', '10.0.0.5'],
  ['localhost', 'fetch failed for localhost:6379', 'localhost:6379'],
  ['ipv6', 'connect to fe80::1 refused', 'fe80::1'],
];

describe('redactText (ERR-6)', () => {
  it.each(LEAKS)('removes %s', (_label, text, fragment) => {
    expect(looksSensitive(text)).toBe(true);
    const out = redactText(text, 2000) ?? '';
    expect(out).not.toContain(fragment);
  });

  it.each([
    'Select a date range from the calendar and try again.',
    'The project was moved; use ID PROJ-456 instead.',
    'See https://docs.example.com/errors/rate-limits for details.',
    'Retry at 12:30:45 or later.',
    'Read and/or write access is missing.',
    'Update the title and set a due date.',
    'Version 2.4 is required.',
    'API rate limit reached. Retry available in 42 seconds.',
  ])('keeps ordinary text: %s', (text) => {
    expect(looksSensitive(text)).toBe(false);
    expect(redactText(text, 2000)).toBe(text);
  });

  it('returns undefined when nothing readable is left', () => {
    expect(redactText('/etc/passwd', 100)).toBeUndefined();
    expect(redactText('   ', 100)).toBeUndefined();
  });

  it('flattens control characters and cuts long text', () => {
    expect(redactText('a\u0000b\tc', 100)).toBe('a b c');
    const out = redactText('x'.repeat(50), 10) ?? '';
    expect(out).toHaveLength(10);
    expect(out.endsWith('\u2026')).toBe(true);
  });

  it('never throws and never exceeds the limit, whatever the text', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 3000 }), fc.integer({ min: 1, max: 500 }), (text, max) => {
        const out = redactText(text, max);
        expect(out === undefined || out.length <= max).toBe(true);
      }),
    );
  });
});

describe('sanitizeDetails (ERR-6)', () => {
  it('keeps plain JSON', () => {
    const details = {
      field: 'date_range',
      constraint: 'max 90 days',
      provided: 365,
      ok: false,
      none: null,
      list: [1, 'a', { b: true }],
    };
    expect(sanitizeDetails(details)).toEqual(details);
  });

  it('drops non-JSON values', () => {
    const details = {
      fn: () => 1,
      sym: Symbol('s'),
      big: 10n,
      nan: Number.NaN,
      negativeZero: -0,
      inf: Number.POSITIVE_INFINITY,
      undef: undefined,
      date: new Date(0),
      map: new Map([[1, 2]]),
      error: new Error('x'),
      kept: 'yes',
    };
    expect(sanitizeDetails(details)).toEqual({ negativeZero: 0, kept: 'yes' });
    expect(Object.is(sanitizeDetails(details)?.negativeZero, 0)).toBe(true);
  });

  it('drops strings that look like paths, stack traces, SQL or secrets, and keys that name secrets', () => {
    const details = {
      file: '/var/lib/app/data.db',
      trace: 'Error: x\n    at f (/a/b.js:1:1)',
      query: 'SELECT * FROM users',
      password: 'plain words',
      apiKey: 'plain words',
      access_token: 'plain words',
      stack: 'plain words',
      nested: { 'Set-Cookie': 'a', keep: 'fine' },
      field: 'email',
    };
    expect(sanitizeDetails(details)).toEqual({ nested: { keep: 'fine' }, field: 'email' });
  });

  it('keeps a JSON pointer under a field-naming key, nowhere else', () => {
    expect(sanitizeDetails({ field: '/range/days', pointer: '/items/0/sku', note: '/range/days' })).toEqual({
      field: '/range/days',
      pointer: '/items/0/sku',
    });
    expect(sanitizeDetails({ pointer: '/etc/app.conf' })).toBeUndefined();
  });

  it('survives cycles, accessors and deep nesting', () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    expect(sanitizeDetails(cyclic)).toEqual({ a: 1 });
    const withGetter = Object.defineProperty({ b: 2 }, 'boom', {
      get() {
        throw new Error('getter');
      },
      enumerable: true,
    });
    expect(sanitizeDetails(withGetter)).toEqual({ b: 2 });
    let deep: Record<string, unknown> = { leaf: 1 };
    for (let i = 0; i < MAX_DETAILS_DEPTH + 3; i += 1) deep = { deeper: deep };
    const out = JSON.stringify(sanitizeDetails(deep));
    expect(out).not.toContain('leaf');
  });

  it('returns undefined for non-objects and empty results', () => {
    for (const value of [undefined, null, 'x', 1, [], [1], new Date(0), { fn: () => 1 }]) {
      expect(sanitizeDetails(value)).toBeUndefined();
    }
  });

  it('always yields a JSON round-trippable object, whatever it is given', () => {
    fc.assert(
      fc.property(
        fc.anything({
          withBigInt: true,
          withDate: true,
          withMap: true,
          withSet: true,
          withTypedArray: true,
          withNullPrototype: true,
          withSparseArray: true,
        }),
        (value) => {
          const out = sanitizeDetails(value);
          if (out !== undefined) expect(JSON.parse(JSON.stringify(out))).toEqual(out);
        },
      ),
    );
  });
});

describe('isSecretKey', () => {
  it.each([
    'password',
    'dbPassword',
    'client_secret',
    'Authorization',
    'set-cookie',
    'apiKey',
    'refresh_token',
    'stack',
    'sql',
  ])('flags %s', (key) => {
    expect(isSecretKey(key)).toBe(true);
  });
  it.each(['field', 'tokens_used', 'max_tokens', 'idempotency_key', 'query', 'retry_after', 'required_scope'])(
    'keeps %s',
    (key) => {
      expect(isSecretKey(key)).toBe(false);
    },
  );
});

describe('httpsUrl (ERR-7)', () => {
  it('accepts https only, without credentials', () => {
    expect(httpsUrl('https://docs.example.com/errors#X')).toBe('https://docs.example.com/errors#X');
    expect(httpsUrl('http://docs.example.com/')).toBeUndefined();
    expect(httpsUrl('javascript:alert(1)')).toBeUndefined();
    expect(httpsUrl('https://user:pw@docs.example.com/')).toBeUndefined();
    expect(httpsUrl('/relative')).toBeUndefined();
    expect(httpsUrl(42)).toBeUndefined();
  });
});

describe('normalizeCode (ERR-5)', () => {
  it('keeps UPPER_SNAKE_CASE and normalizes the rest', () => {
    expect(normalizeCode('RATE_LIMIT_EXCEEDED')).toBe('RATE_LIMIT_EXCEEDED');
    expect(normalizeCode('rateLimited')).toBe('RATE_LIMITED');
    expect(normalizeCode('not-found')).toBe('NOT_FOUND');
    expect(normalizeCode('42')).toBeUndefined();
    expect(normalizeCode('')).toBeUndefined();
    expect(normalizeCode(7)).toBeUndefined();
  });

  it('always yields UPPER_SNAKE_CASE or nothing', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (text) => {
        const code = normalizeCode(text);
        if (code !== undefined) expect(code).toMatch(/^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*$/);
      }),
    );
  });
});

describe('field pointers in details', () => {
  it('keeps a JSON Pointer naming a request field, escaped segments and dots included', () => {
    const pointer = '/_meta/io.github.mcp-ext~1idempotency/idempotency_key';
    expect(sanitizeDetails({ field: pointer, pointer })).toEqual({ field: pointer, pointer });
  });

  it('still drops a file path under any other key', () => {
    expect(sanitizeDetails({ location: '/srv/app/server.js' })).toBeUndefined();
  });
});

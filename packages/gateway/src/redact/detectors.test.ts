import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BUILTIN_DETECTORS, isSecretKey } from './detectors.js';
import { redactionMarker } from './pattern-detector.js';
import { createRedactor } from './redactor.js';

// Every secret below is fake and assembled from pieces at run time, so that no secret scanner
// (ours or the repository's) sees a whole key in this file.
const upper = (seed: string, length: number): string => seed.padEnd(length, 'X');
const mixed = (seed: string, length: number): string => seed.padEnd(length, 'aB3');
const base64 = (seed: string, length: number): string => seed.padEnd(length, 'k9/Q+');
const b64url = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');

const pem = (label: string, body: string): string =>
  ['-----BEGIN ' + label + '-----', body, '-----END ' + label + '-----'].join('\n');
const PEM_BODY = ['MIIE' + mixed('FAKE', 60), mixed('fake', 64), 'AbC=='].join('\n');

const AWS_KEY_ID = 'AKIA' + upper('EXAMPLE', 16);
const AWS_SECRET = base64('FAKEsecret', 40);
const JWT = [b64url({ alg: 'HS256', typ: 'JWT' }), b64url({ sub: 'fake' }), mixed('FAKEsig', 43)].join('.');
const GIT_SHA = 'da39a3ee5e6b4b0d3255bfef95601890afd80709';
const UUID = '123e4567-e89b-12d3-a456-426614174000';

interface Positive {
  readonly input: string;
  readonly expected: string;
  /** The secret itself: it must not survive. */
  readonly secret: string;
  /** Redacted to the end of the text (a truncated block), so no text can follow it. */
  readonly toEnd?: boolean;
}

const positive = (input: string, secret: string, expected: string, toEnd = false): Positive => ({
  input,
  secret,
  expected,
  toEnd,
});
const M = redactionMarker;

/** One (or more) case per built-in detector that it must redact, with the exact result. */
const POSITIVES: Record<string, readonly Positive[]> = {
  'private-key': [
    positive(`key:\n${pem('RSA PRIVATE KEY', PEM_BODY)}\nend`, PEM_BODY, `key:\n${M('private-key')}\nend`),
    positive(pem('PRIVATE KEY', PEM_BODY), PEM_BODY, M('private-key')),
    positive(pem('EC PRIVATE KEY', PEM_BODY), PEM_BODY, M('private-key')),
    positive(pem('OPENSSH PRIVATE KEY', PEM_BODY), PEM_BODY, M('private-key')),
    positive(pem('ENCRYPTED PRIVATE KEY', PEM_BODY), PEM_BODY, M('private-key')),
    positive(pem('PGP PRIVATE KEY BLOCK', 'Version: Fake 1.0\n\n' + PEM_BODY), PEM_BODY, M('private-key')),
    // Cut off before its END line (a truncated tool output): the rest is still the key.
    positive('-----BEGIN RSA PRIVATE KEY-----\n' + PEM_BODY, PEM_BODY, M('private-key'), true),
    // Inside a JSON string, newlines escaped.
    positive(
      JSON.stringify({ key: pem('RSA PRIVATE KEY', PEM_BODY) }),
      'MIIE' + mixed('FAKE', 60),
      `{"key":"${M('private-key')}"}`,
    ),
  ],
  'aws-access-key-id': [
    positive(`id=${AWS_KEY_ID} next`, AWS_KEY_ID, `id=${M('aws-access-key-id')} next`),
    positive('ASIA' + upper('TEMP', 16), 'ASIA' + upper('TEMP', 16), M('aws-access-key-id')),
  ],
  'aws-secret-access-key': [
    positive(
      `aws_secret_access_key = ${AWS_SECRET}`,
      AWS_SECRET,
      `aws_secret_access_key = ${M('aws-secret-access-key')}`,
    ),
    positive(`"SecretAccessKey": "${AWS_SECRET}"`, AWS_SECRET, `"SecretAccessKey": "${M('aws-secret-access-key')}"`),
    positive(
      `export AWS_SECRET_ACCESS_KEY=${AWS_SECRET}`,
      AWS_SECRET,
      `export AWS_SECRET_ACCESS_KEY=${M('aws-secret-access-key')}`,
    ),
  ],
  'gcp-api-key': [
    positive(`key=AIza${mixed('FAKE', 35)}&q=1`, 'AIza' + mixed('FAKE', 35), `key=${M('gcp-api-key')}&q=1`),
  ],
  'azure-storage-key': [
    positive(
      `DefaultEndpointsProtocol=https;AccountName=demo;AccountKey=${base64('FAKE', 86)}==;EndpointSuffix=core.windows.net`,
      base64('FAKE', 86),
      `DefaultEndpointsProtocol=https;AccountName=demo;AccountKey=${M('azure-storage-key')};EndpointSuffix=core.windows.net`,
    ),
  ],
  'github-token': [
    positive(`token ghp_${mixed('FAKE', 36)}`, 'ghp_' + mixed('FAKE', 36), `token ${M('github-token')}`),
    positive('gho_' + mixed('FAKE', 36), 'gho_' + mixed('FAKE', 36), M('github-token')),
    positive('ghs_' + mixed('FAKE', 40), 'ghs_' + mixed('FAKE', 40), M('github-token')),
    positive('github_pat_' + mixed('FAKE', 22) + '_' + mixed('fake', 59), mixed('fake', 59), M('github-token')),
  ],
  'gitlab-token': [
    positive(`GL glpat-${mixed('FAKE', 20)}.`, 'glpat-' + mixed('FAKE', 20), `GL ${M('gitlab-token')}.`),
  ],
  'slack-token': [
    positive('xoxb-' + '1234567890-' + '0987654321-' + mixed('FAKE', 24), mixed('FAKE', 24), M('slack-token')),
    positive('xoxp-' + '11-22-33-' + mixed('fake', 32), mixed('fake', 32), M('slack-token')),
  ],
  'slack-webhook': [
    positive(
      `post to https://hooks.slack.com/services/T0FAKE00/B0FAKE00/${mixed('FAKE', 24)} now`,
      mixed('FAKE', 24),
      `post to ${M('slack-webhook')} now`,
    ),
  ],
  'stripe-key': [
    positive('sk_' + 'live_' + mixed('FAKE', 24), 'live_' + mixed('FAKE', 24), M('stripe-key')),
    positive('rk_' + 'live_' + mixed('FAKE', 24), 'live_' + mixed('FAKE', 24), M('stripe-key')),
  ],
  'npm-token': [
    positive(
      `//registry/:_authToken npm_${mixed('FAKE', 36)}`,
      mixed('FAKE', 36),
      `//registry/:_authToken ${M('npm-token')}`,
    ),
  ],
  jwt: [
    positive(`jwt: ${JWT}`, JWT, `jwt: ${M('jwt')}`),
    positive(`Authorization: Bearer ${JWT}`, JWT, `Authorization: Bearer ${M('jwt')}`),
  ],
  'url-credentials': [
    positive(
      'DATABASE_URL=postgres://app:' + 'S3cret-Pw' + '@db.internal:5432/app',
      'S3cret-Pw',
      `DATABASE_URL=postgres://app:${M('url-credentials')}@db.internal:5432/app`,
    ),
    positive('redis://:' + 'Sup3rSecret' + '@cache:6379', 'Sup3rSecret', `redis://:${M('url-credentials')}@cache:6379`),
  ],
  'basic-auth': [
    positive(
      'Authorization: Basic ' + Buffer.from('admin:Fake-Pw').toString('base64'),
      Buffer.from('admin:Fake-Pw').toString('base64'),
      `Authorization: Basic ${M('basic-auth')}`,
    ),
  ],
  bearer: [
    positive('Authorization: Bearer ' + 'Opaque-Fake', 'Opaque-Fake', `Authorization: Bearer ${M('bearer')}`),
    positive(
      `curl -H "authorization: bearer ${mixed('FAKE', 20)}" https://api`,
      mixed('FAKE', 20),
      `curl -H "authorization: bearer ${M('bearer')}" https://api`,
    ),
    positive(`Bearer ${mixed('FAKE', 24)}`, mixed('FAKE', 24), `Bearer ${M('bearer')}`),
  ],
  'password-field': [
    positive('password=' + 'Hunter2!', 'Hunter2!', `password=${M('password-field')}`),
    positive('DB_PASSWORD: ' + 'Fake-Pw9 x', 'Fake-Pw9', `DB_PASSWORD: ${M('password-field')} x`),
    positive(
      '{"user": "ann", "password": "' + 'Correct Horse' + '"}',
      'Correct Horse',
      `{"user": "ann", "password": "${M('password-field')}"}`,
    ),
    positive("client_secret='" + 'FakeSecret' + "'", 'FakeSecret', `client_secret='${M('password-field')}'`),
    positive(
      'https://x/?api_key=' + 'FakeKey1' + '&page=2',
      'FakeKey1',
      `https://x/?api_key=${M('password-field')}&page=2`,
    ),
    positive('{\\"token\\": \\"' + 'FakeTok' + '\\"}', 'FakeTok', `{\\"token\\": \\"${M('password-field')}\\"}`),
    positive('pwd := ' + 'Fake9', 'Fake9', `pwd := ${M('password-field')}`),
    positive("'apiKey' => '" + 'FakeKey' + "'", 'FakeKey', `'apiKey' => '${M('password-field')}'`),
    positive(
      'Server=db;User Id=app;Password=' + 'FakePw' + ';',
      'FakePw',
      `Server=db;User Id=app;Password=${M('password-field')};`,
    ),
    positive('const token = "' + 'FakeTok9' + '";', 'FakeTok9', `const token = "${M('password-field')}";`),
  ],
};

/** Near misses per built-in detector: no detector may change them. */
const NEGATIVES: Record<string, readonly string[]> = {
  'private-key': [
    pem('PUBLIC KEY', PEM_BODY),
    pem('RSA PUBLIC KEY', PEM_BODY),
    pem('CERTIFICATE', PEM_BODY),
    'Paste the -----BEGIN PRIVATE KEY line here',
  ],
  'aws-access-key-id': [
    'AKIA' + upper('EXAMPLE', 15),
    'AKIA' + upper('EXAMPLE', 17),
    'AKIB' + upper('EXAMPLE', 16),
    'xAKIA' + upper('EXAMPLE', 16),
    'akia' + upper('example', 16).toLowerCase(),
  ],
  'aws-secret-access-key': [
    `commit ${GIT_SHA}`,
    `checksum: ${AWS_SECRET}`,
    `aws_secret_access_key_hint: see vault`,
    `aws_secret_access_key_id = ${AWS_SECRET}`,
  ],
  'gcp-api-key': ['AIza' + mixed('FAKE', 34), 'AIzb' + mixed('FAKE', 35), 'xAIza' + mixed('FAKE', 35)],
  'azure-storage-key': ['AccountKey=short', 'AccountName=devstoreaccount1;EndpointSuffix=core.windows.net'],
  'github-token': ['ghp_' + mixed('FAKE', 35), 'ghx_' + mixed('FAKE', 36), 'github_pat_short', 'see ghp_ tokens'],
  'gitlab-token': ['glpat-' + mixed('FAKE', 19), 'glpa-' + mixed('FAKE', 20)],
  'slack-token': ['xoxb-your-token-here', 'xoxz-' + '123456-' + mixed('FAKE', 12), 'xoxb-123-short'],
  'slack-webhook': ['https://hooks.slack.com/services/', 'https://api.slack.com/services/T0FAKE00/B0FAKE00/abc'],
  'stripe-key': ['sk_' + 'test_' + mixed('FAKE', 24), 'sk_' + 'live_short', 'mask_' + 'live_' + mixed('FAKE', 24)],
  'npm-token': ['npm_' + mixed('FAKE', 35), 'npm_config_cache=/tmp/npm'],
  jwt: [`${b64url({ alg: 'none' })}.e30`, 'eyJ', 'eyJhbGciOi.short.x', UUID],
  'url-credentials': [
    'https://example.com:8443/path',
    'https://user@example.com/',
    'mailto:someone@example.com',
    'http://[::1]:8080/',
  ],
  'basic-auth': ['Basic usage: run the tool', 'Authorization: Basic', 'WWW-Authenticate: Basic realm="x"'],
  bearer: [
    'Use a Bearer token in the Authorization header',
    'the bearer of this letter',
    'Authorization: Bearer <token>',
    'Bearer $TOKEN',
  ],
  'password-field': [
    'the password is required',
    'password:',
    'password: \nnext line',
    'Enter a password.',
    '{"password": null, "token": 12}',
    '{"password": ""}',
    'next_page_token=abc123',
    'OLDPWD=/home/user',
    'max_tokens: 100',
    'secret_name: db-credentials',
    '<input type="password" name="password">',
    'monkey=banana',
    'const password = getPassword();',
    'password: string;',
    'token = process.env.API_TOKEN',
    'PASSWORD=$DB_PASSWORD',
    'api_key: ${{ secrets.API_KEY }}',
    'password = os.environ["PASSWORD"]',
    'token = None',
    'setUp({ token: bearer, secret: SECRET })',
    'connect(password=pw, user=u)',
    'sign(private_key: KeyLike | string): Buffer;',
    'interface Auth { token: Token; }',
    'const token = await held(client);',
    'const token = this.#ctx.progressToken;',
    'const token = held?.confirmation_token;',
    'export type SessionToken = Static<typeof Schema>;',
    'permissions:\n  id-token: write',
  ],
};

/** No detector may touch these anywhere. */
const GENERAL_NEGATIVES = [
  GIT_SHA,
  `commit ${GIT_SHA} (HEAD -> main)`,
  UUID,
  `request-id: ${UUID}`,
  'sha256:' + 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
  'The quick brown fox jumps over the lazy dog.',
  'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'https://example.com/path?page=2&sort=asc',
];

const redactor = createRedactor();

describe('built-in detectors', () => {
  it('every built-in detector has positive and negative fixtures', () => {
    for (const { id } of BUILTIN_DETECTORS) {
      expect(POSITIVES[id]?.length ?? 0, `positive fixtures for ${id}`).toBeGreaterThan(0);
      expect(NEGATIVES[id]?.length ?? 0, `negative fixtures for ${id}`).toBeGreaterThan(0);
    }
    const ids = BUILTIN_DETECTORS.map(({ id }) => id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(Object.keys(POSITIVES).sort()).toEqual([...ids].sort());
    expect(Object.keys(NEGATIVES).sort()).toEqual([...ids].sort());
  });

  const positives = Object.entries(POSITIVES).flatMap(([id, cases]) =>
    cases.map((fixture, index) => ({ name: `${id} #${index}`, id, ...fixture })),
  );
  it.each(positives)('$name is redacted', ({ id, input, expected, secret }) => {
    const result = redactor.text(input);
    expect(result.value).toBe(expected);
    expect(result.value).not.toContain(secret);
    expect(result.count).toBe(1);
    expect(result.detectors).toEqual([id]);
  });

  it.each(positives)('$name is found by its own detector alone', ({ id, input }) => {
    const detector = BUILTIN_DETECTORS.find((candidate) => candidate.id === id)!;
    const result = detector.redact(input);
    expect(result.count).toBe(1);
    expect(result.text).toContain(redactionMarker(id));
  });

  const negatives = Object.entries(NEGATIVES).flatMap(([id, cases]) =>
    cases.map((input, index) => ({ name: `${id} near miss #${index}`, input })),
  );
  it.each([...negatives, ...GENERAL_NEGATIVES.map((input) => ({ name: input.slice(0, 40), input }))])(
    '$name is left alone',
    ({ input }) => {
      expect(redactor.text(input)).toEqual({ value: input, count: 0, detectors: [] });
      for (const detector of BUILTIN_DETECTORS) expect(detector.redact(input).count, detector.id).toBe(0);
    },
  );

  it('counts every secret and names each detector once, sorted', () => {
    const text = `a=${AWS_KEY_ID} b=${AWS_KEY_ID} password=Fake1 jwt ${JWT}`;
    const result = redactor.text(text);
    expect(result.count).toBe(4);
    expect(result.detectors).toEqual(['aws-access-key-id', 'jwt', 'password-field']);
  });

  it('names a token by its kind even under a secret key', () => {
    const token = 'ghp_' + mixed('FAKE', 36);
    expect(redactor.text(`GITHUB_TOKEN=${token}`).value).toBe(`GITHUB_TOKEN=${M('github-token')}`);
  });
});

describe('isSecretKey', () => {
  it.each([
    'password',
    'PASSWORD',
    'db_password',
    'newPassword',
    'passwd',
    'passphrase',
    'pwd',
    'secret',
    'client_secret',
    'clientSecret',
    'api_key',
    'apikey',
    'x-api-key',
    'API-KEY',
    'token',
    'access_token',
    'refreshToken',
    'GITHUB_TOKEN',
    'private_key',
    'secret_key',
    'aws_secret_access_key',
    'spring.datasource.password',
  ])('%s names a secret', (key) => {
    expect(isSecretKey(key)).toBe(true);
  });

  it.each([
    'user',
    'name',
    'oldpwd',
    'cwd',
    'next_page_token',
    'nextPageToken',
    'NextToken',
    'continuation_token',
    'progressToken',
    'max_tokens',
    'tokens',
    'token_type',
    'secret_name',
    'key',
    'monkey',
    'access_key_id',
    'password_hint',
  ])('%s does not', (key) => {
    expect(isSecretKey(key)).toBe(false);
  });
});

// Lower-case letters, digits, spaces, newlines and plain punctuation cannot form any built-in's
// prefix or separator (no upper case, `_`, `-`, `:`, `=`, `/`).
const safeText = fc.string({
  unit: fc.constantFrom(...Array.from('abcdefghijklmnopqrstuvwxyz0123456789 .,\n')),
  maxLength: 60,
});

const allPositives = Object.values(POSITIVES).flat();

/** Text mixing secrets, near misses, separators and arbitrary characters: the places redaction can go wrong. */
const messyText = fc
  .array(
    fc.oneof(
      fc.constantFrom(...allPositives.map(({ input }) => input)),
      fc.constantFrom(...Object.values(NEGATIVES).flat()),
      fc.constantFrom(
        'password=',
        '"token": "',
        'Bearer ',
        'Authorization: ',
        '-----BEGIN RSA PRIVATE KEY-----',
        '-----',
        '-',
        '[REDACTED:',
        ']',
        '=',
        ':',
        '"',
        ' ',
        '\n',
      ),
      fc.string({ maxLength: 12 }),
    ),
    { maxLength: 8 },
  )
  .map((parts) => parts.join(''));

describe('redaction properties', () => {
  it('is idempotent: redacting the result again changes nothing (property)', () => {
    fc.assert(
      fc.property(messyText, (text) => {
        const once = redactor.text(text);
        const twice = redactor.text(once.value);
        expect(twice.value).toBe(once.value);
        expect(twice.count).toBe(0);
      }),
      { numRuns: 2000 },
    );
  });

  it('leaves text without secret-like characters unchanged (property)', () => {
    fc.assert(
      fc.property(safeText, (text) => {
        expect(redactor.text(text)).toEqual({ value: text, count: 0, detectors: [] });
      }),
      { numRuns: 1000 },
    );
  });

  it('removes a secret placed anywhere in safe text and keeps the text around it (property)', () => {
    fc.assert(
      fc.property(
        safeText,
        fc.constantFrom(...allPositives.filter(({ toEnd }) => !toEnd)),
        safeText,
        (before, fixture, after) => {
          // A separator on each side: detectors need a boundary, as a secret in real text has.
          const result = redactor.text(`${before} ${fixture.input} ${after}`);
          expect(result.value).not.toContain(fixture.secret);
          expect(result.value).toBe(`${before} ${fixture.expected} ${after}`);
          expect(result.count).toBe(1);
        },
      ),
      { numRuns: 2000 },
    );
  });
});

describe('hostile input', () => {
  const MEGABYTE = 1 << 20;
  const fill = (unit: string): string => unit.repeat(Math.ceil(MEGABYTE / unit.length));

  it.each([
    'AKIA',
    'AKIA0',
    'eyJ',
    'eyJaaaaaaaaaaa.',
    'eyJaaaaaaaaaaa.aa.',
    '-----BEGIN ',
    '-----BEGIN RSA PRIVATE KEY-----',
    '-----BEGIN RSA PRIVATE KEY-----a-',
    '-----BEGIN RSA PRIVATE KEY-----\npassword=a-----END CERTIFICATE-----',
    'ghp_',
    'ghp_a',
    'glpat-',
    'xoxb-1-',
    'AIza',
    'password="',
    "pwd='",
    'password=',
    'a_password:',
    '\\"token\\": \\"',
    'Authorization: Bearer ',
    'Bearer a',
    'Authorization: Basic ',
    'AccountKey=',
    'postgres://u:',
    'a://b:c',
    'hooks.slack.com/services/aaaaaa/',
    'aws_secret_access_key=',
    '[REDACTED:',
    'a'.repeat(63) + ' ',
  ])('a megabyte of %j terminates, and redacting the result again changes nothing', (unit) => {
    const result = redactor.text(fill(unit));
    expect(redactor.text(result.value).count).toBe(0);
  });

  it('a megabyte of one long word terminates', () => {
    expect(redactor.text('ghp_' + 'a'.repeat(MEGABYTE) + '_').count).toBe(1);
    expect(typeof redactor.text('-----BEGIN PRIVATE KEY-----' + 'A'.repeat(MEGABYTE)).value).toBe('string');
  });
});

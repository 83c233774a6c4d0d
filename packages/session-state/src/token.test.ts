import { canonicalJson } from '@ext/core/kit';
import { ConfigurationError } from '@ext/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeState, encodeState } from './logic.js';
import {
  createKeyRing,
  inspectToken,
  openToken,
  sealedLength,
  sealToken,
  TOKEN_FORMAT_VERSION,
  type KeyRing,
  type TokenBinding,
} from './token.js';

const SECRET_A = 'a-secret-of-at-least-thirty-two-bytes-A';
const SECRET_B = 'a-secret-of-at-least-thirty-two-bytes-B';
const ring = createKeyRing([{ id: 'k1', secret: SECRET_A }]);
const binding: TokenBinding = { serverName: 'files', subject: 'alice' };
const NOW = 1_700_000_000_000;
const LATER = NOW + 3_600_000;
const open = (token: unknown, options: { ring?: KeyRing; binding?: TokenBinding; now?: number; max?: number } = {}) =>
  openToken(options.ring ?? ring, token, options.binding ?? binding, {
    now: options.now ?? NOW,
    maxTokenBytes: options.max ?? 65_536,
  });

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** A token sealed the way the server does it. */
function seal(state: unknown, options: { ring?: KeyRing; expiresAt?: number; binding?: TokenBinding } = {}): string {
  return sealToken(options.ring ?? ring, encodeState(state), options.expiresAt ?? LATER, options.binding ?? binding);
}

type Mutation =
  | { kind: 'replace'; index: number; char: string }
  | { kind: 'delete'; index: number }
  | { kind: 'insert'; index: number; char: string }
  | { kind: 'truncate'; length: number }
  | { kind: 'append'; text: string };

const alphabetChar = fc.constantFrom(...ALPHABET.split(''));
const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant('replace' as const), index: fc.nat(), char: alphabetChar }),
  fc.record({ kind: fc.constant('delete' as const), index: fc.nat() }),
  fc.record({ kind: fc.constant('insert' as const), index: fc.nat(), char: alphabetChar }),
  fc.record({ kind: fc.constant('truncate' as const), length: fc.nat() }),
  fc.record({
    kind: fc.constant('append' as const),
    text: fc.string({ unit: alphabetChar, minLength: 1, maxLength: 8 }),
  }),
);

function apply(token: string, change: Mutation): string {
  switch (change.kind) {
    case 'replace': {
      const index = change.index % token.length;
      return token.slice(0, index) + change.char + token.slice(index + 1);
    }
    case 'delete': {
      const index = change.index % token.length;
      return token.slice(0, index) + token.slice(index + 1);
    }
    case 'insert': {
      const index = change.index % (token.length + 1);
      return token.slice(0, index) + change.char + token.slice(index);
    }
    case 'truncate':
      return token.slice(0, change.length % token.length);
    case 'append':
      return token + change.text;
  }
}

/** Re-encodes a token after changing its raw bytes (a forger who knows the layout). */
function rewrite(token: string, edit: (bytes: Buffer) => void): string {
  const bytes = Buffer.from(token, 'base64url');
  edit(bytes);
  return bytes.toString('base64url');
}

describe('sealing and opening (SS-6)', () => {
  it('SS-6: round-trips arbitrary JSON state, and only the sealed JSON comes back', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (state) => {
        const opened = open(seal(state));
        expect(opened.ok).toBe(true);
        if (!opened.ok) return;
        const decoded = decodeState(opened.plaintext);
        expect(decoded).toBeDefined();
        expect(canonicalJson(decoded?.value)).toBe(canonicalJson(state));
        expect(opened.keyId).toBe('k1');
        expect(opened.expiresAt).toBe(LATER);
      }),
      { numRuns: 300 },
    );
  });

  it('SS-6: predicts the sealed length exactly, so set() can refuse before sealing', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.stringMatching(/^[A-Za-z0-9._-]{1,64}$/), (state, id) => {
        const keys = createKeyRing([{ id, secret: SECRET_A }]);
        const plaintext = encodeState(state);
        const token = sealToken(keys, plaintext, LATER, binding);
        expect(token.length).toBe(sealedLength(id, Buffer.byteLength(plaintext, 'utf8')));
      }),
      { numRuns: 200 },
    );
  });

  it('SS-6: is canonical unpadded base64url, opaque, and different on every seal', () => {
    const first = seal({ secret_plan: 'world domination' });
    const second = seal({ secret_plan: 'world domination' });
    expect(first).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(first).not.toBe(second);
    expect(Buffer.from(first, 'base64url').toString('latin1')).not.toContain('world domination');
    expect(inspectToken(first)).toEqual({ version: TOKEN_FORMAT_VERSION, keyId: 'k1', expiresAt: LATER });
  });

  it('SS-8: any mutation of a valid token is refused', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 2 }), mutation, (state, change) => {
        const token = seal(state);
        const mutated = apply(token, change);
        fc.pre(mutated !== token);
        const opened = open(mutated);
        expect(opened.ok).toBe(false);
      }),
      { numRuns: 1000 },
    );
  });

  it('SS-8: any single flipped bit of the raw token is refused, header and tag included', () => {
    const token = seal({ cursor: 42 });
    const length = Buffer.from(token, 'base64url').length;
    fc.assert(
      fc.property(fc.integer({ min: 0, max: length * 8 - 1 }), (bit) => {
        const forged = rewrite(token, (bytes) => {
          bytes[bit >> 3]! ^= 1 << (bit & 7);
        });
        expect(open(forged).ok).toBe(false);
      }),
      { numRuns: 500 },
    );
  });

  it('SS-8: never throws and never opens on arbitrary input', () => {
    fc.assert(
      fc.property(fc.anything(), (input) => {
        expect(open(input).ok).toBe(false);
        expect(() => inspectToken(input)).not.toThrow();
      }),
      { numRuns: 500 },
    );
    fc.assert(
      fc.property(fc.string({ unit: alphabetChar, maxLength: 300 }), (input) => {
        expect(open(input).ok).toBe(false);
      }),
      { numRuns: 500 },
    );
  });

  it('SS-8: names the reason of each refusal', () => {
    const token = seal({ n: 1 });
    expect(open('')).toEqual({ ok: false, reason: 'malformed' });
    expect(open('not a token!')).toEqual({ ok: false, reason: 'malformed' });
    expect(open(token.slice(0, 20))).toEqual({ ok: false, reason: 'malformed' });
    expect(open(`${token}=`)).toEqual({ ok: false, reason: 'malformed' });
    expect(open(token, { max: token.length - 1 })).toEqual({ ok: false, reason: 'too_large' });
    expect(open(rewrite(token, (bytes) => bytes.writeUInt8(2, 0)))).toEqual({
      ok: false,
      reason: 'unsupported_version',
    });
    expect(open(rewrite(token, (bytes) => bytes.write('k9', 2, 'ascii')))).toEqual({
      ok: false,
      reason: 'unknown_key',
    });
    expect(open(rewrite(token, (bytes) => bytes.writeBigUInt64BE(BigInt(LATER + 1), 4)))).toEqual({
      ok: false,
      reason: 'not_authentic',
    });
    expect(open(token, { now: LATER })).toEqual({ ok: false, reason: 'expired' });
    expect(open(token, { now: LATER - 1 }).ok).toBe(true);
  });
});

describe('binding (SS-7)', () => {
  it('SS-7: a token opens only for the subject and server name it was sealed for', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), fc.string(), fc.string(), (serverA, subjectA, serverB, subjectB) => {
        fc.pre(serverA !== serverB || subjectA !== subjectB);
        const token = seal('state', { binding: { serverName: serverA, subject: subjectA } });
        expect(open(token, { binding: { serverName: serverA, subject: subjectA } }).ok).toBe(true);
        expect(open(token, { binding: { serverName: serverB, subject: subjectB } })).toEqual({
          ok: false,
          reason: 'not_authentic',
        });
      }),
      { numRuns: 200 },
    );
  });

  it('SS-7: fields cannot be shifted from one into the other', () => {
    const token = seal(1, { binding: { serverName: 'a', subject: 'b' } });
    expect(open(token, { binding: { serverName: 'a"', subject: 'b' } }).ok).toBe(false);
    expect(open(token, { binding: { serverName: '', subject: 'ab' } }).ok).toBe(false);
  });
});

describe('keys and rotation (SS-10)', () => {
  it('SS-10: the first key seals, every key opens', () => {
    const old = seal({ v: 1 });
    const rotated = createKeyRing([
      { id: 'k2', secret: SECRET_B },
      { id: 'k1', secret: SECRET_A },
    ]);
    expect(open(old, { ring: rotated }).ok).toBe(true);
    const fresh = seal({ v: 2 }, { ring: rotated });
    expect(inspectToken(fresh)?.keyId).toBe('k2');
    expect(open(fresh, { ring: rotated }).ok).toBe(true);
    expect(open(fresh)).toEqual({ ok: false, reason: 'unknown_key' });
    const retired = createKeyRing([{ id: 'k2', secret: SECRET_B }]);
    expect(open(old, { ring: retired })).toEqual({ ok: false, reason: 'unknown_key' });
  });

  it('SS-10: the same key id with another secret does not open', () => {
    const foreign = createKeyRing([{ id: 'k1', secret: SECRET_B }]);
    expect(open(seal('x'), { ring: foreign })).toEqual({ ok: false, reason: 'not_authentic' });
  });

  it('accepts secrets as bytes and derives the same key as from the same bytes in a string', () => {
    const bytes = createKeyRing([{ id: 'k1', secret: new TextEncoder().encode(SECRET_A) }]);
    expect(open(seal('x'), { ring: bytes }).ok).toBe(true);
  });

  it('refuses bad key configuration with a message naming the option', () => {
    const cases: [unknown, RegExp][] = [
      [undefined, /keys must be a non-empty array/],
      [[], /keys must be a non-empty array/],
      [[null], /keys\[0\] must be an object/],
      [[{ id: 'has space', secret: SECRET_A }], /keys\[0\]\.id must be 1 to 64 characters/],
      [[{ id: 'x'.repeat(65), secret: SECRET_A }], /keys\[0\]\.id/],
      [[{ id: 'k', secret: 'short' }], /keys\[0\]\.secret must hold at least 32 bytes, got 5/],
      [[{ id: 'k', secret: 42 }], /keys\[0\]\.secret must be a string or a Uint8Array/],
      [
        [
          { id: 'k', secret: SECRET_A },
          { id: 'k', secret: SECRET_B },
        ],
        /keys\[1\]\.id "k" is listed twice/,
      ],
    ];
    for (const [keys, message] of cases) {
      let thrown: unknown;
      try {
        createKeyRing(keys);
      } catch (error) {
        thrown = error;
      }
      expect(ConfigurationError.isInstance(thrown)).toBe(true);
      expect((thrown as Error).message).toMatch(message);
    }
  });
});

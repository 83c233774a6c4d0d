/**
 * Decision link tokens, pure and through the links handler: a token this
 * key signed is read back; any change to its bytes is refused, and a
 * mutated link decides nothing.
 */
import { MemoryStore } from '@ext/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { approvalDesk } from '../desk.js';
import { approvalWebhooks } from './index.js';
import { newLinkNonce, signLinkToken, verifyLinkToken, type LinkClaims } from './link-token.js';
import { newWebhookSecret } from './http-test-fixtures.js';

const KEY = Buffer.from('link-secret-0123456789abcdef-0123456789');
const NOW = 1_900_000_000;

const claimsArbitrary: fc.Arbitrary<LinkClaims> = fc.record({
  id: fc.string({ minLength: 1, maxLength: 60, unit: 'grapheme' }),
  decision: fc.constantFrom('approve' as const, 'deny' as const),
  exp: fc.integer({ min: NOW + 1, max: NOW + 100_000 }),
  nonce: fc.uint8Array({ minLength: 16, maxLength: 16 }).map((bytes) => Buffer.from(bytes).toString('base64url')),
});

/** One change to a byte string: a byte replaced by another, one inserted, one removed, or the end cut. */
type Mutation =
  | { readonly kind: 'replace'; readonly at: number; readonly xor: number }
  | { readonly kind: 'insert'; readonly at: number; readonly byte: number }
  | { readonly kind: 'delete'; readonly at: number }
  | { readonly kind: 'truncate'; readonly at: number };

const mutationArbitrary: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant('replace' as const), at: fc.nat(), xor: fc.integer({ min: 1, max: 255 }) }),
  fc.record({ kind: fc.constant('insert' as const), at: fc.nat(), byte: fc.integer({ min: 0, max: 255 }) }),
  fc.record({ kind: fc.constant('delete' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }),
);

function mutate(bytes: Buffer, mutation: Mutation): Buffer {
  const at = mutation.at % (bytes.length + (mutation.kind === 'insert' ? 1 : 0));
  switch (mutation.kind) {
    case 'replace': {
      const out = Buffer.from(bytes);
      out[at] = (out[at] ?? 0) ^ mutation.xor;
      return out;
    }
    case 'insert':
      return Buffer.concat([bytes.subarray(0, at), Buffer.from([mutation.byte]), bytes.subarray(at)]);
    case 'delete':
      return Buffer.concat([bytes.subarray(0, at), bytes.subarray(at + 1)]);
    case 'truncate':
      return bytes.subarray(0, at);
  }
}

describe('decision link tokens', () => {
  it('read back what was signed, until they expire', () => {
    fc.assert(
      fc.property(claimsArbitrary, (claims) => {
        const token = signLinkToken(claims, KEY);
        expect(token).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
        expect(verifyLinkToken(token, KEY, NOW)).toEqual({ ok: true, claims });
        expect(verifyLinkToken(token, KEY, claims.exp)).toEqual({ ok: false, refusal: 'expired' });
        expect(verifyLinkToken(token, Buffer.from(`${KEY.toString()}!`), NOW)).toEqual({
          ok: false,
          refusal: 'invalid',
        });
      }),
    );
  });

  it('refuse any mutation of a token’s bytes', () => {
    fc.assert(
      fc.property(claimsArbitrary, mutationArbitrary, (claims, mutation) => {
        const bytes = Buffer.from(signLinkToken(claims, KEY), 'latin1');
        const mutated = mutate(bytes, mutation);
        fc.pre(!mutated.equals(bytes));
        expect(verifyLinkToken(mutated.toString('latin1'), KEY, NOW)).toEqual({ ok: false, refusal: 'invalid' });
      }),
      { numRuns: 2000 },
    );
  });

  it('refuse a token with the right signature characters but spare bits changed', () => {
    const token = signLinkToken({ id: 'a', decision: 'approve', exp: NOW + 60, nonce: newLinkNonce() }, KEY);
    // The last of 43 base64url characters carries 4 bits and 2 spare ones: flip a spare bit, same bytes.
    const last = token.at(-1) ?? 'A';
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const twin = alphabet[alphabet.indexOf(last) ^ 1] ?? 'A';
    const altered = `${token.slice(0, -1)}${twin}`;
    expect(Buffer.from(altered.split('.')[1] ?? '', 'base64url')).toEqual(
      Buffer.from(token.split('.')[1] ?? '', 'base64url'),
    );
    expect(verifyLinkToken(altered, KEY, NOW)).toEqual({ ok: false, refusal: 'invalid' });
  });

  it('decide nothing when a link is mutated, through the handler', async () => {
    const store = new MemoryStore();
    const webhooks = approvalWebhooks({
      endpoints: [{ url: 'http://127.0.0.1:9/unused', secret: newWebhookSecret() }],
      linkBaseUrl: 'https://gw.example/approvals/links',
      linkSecret: KEY.toString(),
      store,
      desk: () => desk,
      fetch: () => Promise.resolve(new Response(null, { status: 204 })),
    });
    const desk = approvalDesk({ store, backends: [webhooks.backend] });
    const { record } = await desk.open({
      principal: 'agent-1',
      tool: 'delete_file',
      argsDigest: 'd',
      toolDigest: 't',
      riskLevel: 'destructive',
      message: 'Delete a.txt',
      arguments: { path: 'a.txt' },
    });
    const exp = Math.floor(Date.now() / 1000) + 600;
    const token = signLinkToken({ id: record.id, decision: 'approve', exp, nonce: newLinkNonce() }, KEY);
    // Characters a URL path carries as they are, so the handler sees the mutated token itself.
    const urlSafe = fc.constantFrom(
      ...Array.from("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.~!$&'()*+,;=:@"),
    );
    await fc.assert(
      fc.asyncProperty(fc.nat(), urlSafe, fc.constantFrom('replace', 'insert', 'delete'), async (at, char, kind) => {
        const i = at % token.length;
        const mutated =
          kind === 'replace'
            ? `${token.slice(0, i)}${char}${token.slice(i + 1)}`
            : kind === 'insert'
              ? `${token.slice(0, i)}${char}${token.slice(i)}`
              : `${token.slice(0, i)}${token.slice(i + 1)}`;
        fc.pre(mutated !== token);
        const response = await webhooks.links.fetch(
          new Request(`https://gw.example/approvals/links/${mutated}`, { method: 'POST' }),
        );
        expect(response?.status).toBe(403);
      }),
      { numRuns: 300 },
    );
    expect((await desk.get(record.id))?.state).toBe('pending');
    const real = await webhooks.links.fetch(
      new Request(`https://gw.example/approvals/links/${token}`, { method: 'POST' }),
    );
    expect(real?.status).toBe(200);
  });
});

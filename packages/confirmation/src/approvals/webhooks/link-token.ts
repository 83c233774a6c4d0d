/**
 * Signed decision links: the token at the end of a link says which request
 * it decides, which way, until when, and carries a random nonce that makes
 * it single use. Pure: minting takes the nonce, checking takes the clock;
 * what was used is the store's (`link-uses.ts`).
 *
 * A token is `<payload>.<signature>`: the payload is the claims as JSON in
 * base64url, the signature HMAC-SHA256 of the payload's characters in
 * base64url. Nothing is decoded before the signature over the exact
 * characters received matched, so a changed byte anywhere is refused.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { isRecord } from '@ext/core/kit';

/** Which way a link decides its request. */
export type LinkDecision = 'approve' | 'deny';

/** What a decision link's token says. */
export interface LinkClaims {
  /** The approval request's id. */
  readonly id: string;
  readonly decision: LinkDecision;
  /** Expiry, epoch seconds: the link is refused from this second on. */
  readonly exp: number;
  /** 128 random bits, base64url: what makes the link single use. */
  readonly nonce: string;
}

/** A token checked against the key and the clock. */
export type LinkTokenCheck =
  { readonly ok: true; readonly claims: LinkClaims } | { readonly ok: false; readonly refusal: 'invalid' | 'expired' };

/** Longest token read; a longer one is refused unread. */
const MAX_TOKEN_LENGTH = 2048;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

function signature(payload: string, key: Uint8Array): string {
  return createHmac('sha256', key).update(payload).digest('base64url');
}

/** A fresh nonce: 128 random bits, base64url. */
export function newLinkNonce(): string {
  return randomBytes(16).toString('base64url');
}

/** The token for `claims`, signed with `key`. */
export function signLinkToken(claims: LinkClaims, key: Uint8Array): string {
  const { id, decision, exp, nonce } = claims;
  const payload = Buffer.from(JSON.stringify({ id, decision, exp, nonce })).toString('base64url');
  return `${payload}.${signature(payload, key)}`;
}

function parseClaims(payload: string): LinkClaims | undefined {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    return undefined; // signed by us, so unreachable unless the key leaked; refused all the same
  }
  if (!isRecord(value)) return undefined;
  const { id, decision, exp, nonce } = value;
  const ok =
    typeof id === 'string' &&
    id !== '' &&
    (decision === 'approve' || decision === 'deny') &&
    typeof exp === 'number' &&
    Number.isSafeInteger(exp) &&
    typeof nonce === 'string' &&
    nonce !== '';
  return ok ? { id, decision, exp, nonce } : undefined;
}

/**
 * Checks a token: `invalid` when it is not one this key signed (malformed,
 * tampered, or signed with another key), `expired` from its `exp` second on.
 * `nowSeconds` is the clock in epoch seconds.
 */
export function verifyLinkToken(token: string, key: Uint8Array, nowSeconds: number): LinkTokenCheck {
  const invalid = { ok: false, refusal: 'invalid' } as const;
  if (token.length > MAX_TOKEN_LENGTH) return invalid;
  const parts = token.split('.');
  if (parts.length !== 2) return invalid;
  const [payload = '', given = ''] = parts;
  if (!BASE64URL.test(payload) || !BASE64URL.test(given)) return invalid;
  // Compared as text, not decoded bytes: base64url decoding ignores the spare bits of the last character.
  const expected = Buffer.from(signature(payload, key));
  const received = Buffer.from(given);
  if (expected.length !== received.length || !timingSafeEqual(expected, received)) return invalid;
  const claims = parseClaims(payload);
  if (claims === undefined) return invalid;
  if (nowSeconds >= claims.exp) return { ok: false, refusal: 'expired' };
  return { ok: true, claims };
}

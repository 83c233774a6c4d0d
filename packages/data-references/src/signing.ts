/** Signed URLs, pure: the HMAC that makes a URL its own credential, its check, and the secrets that key it. */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { ConfigurationError } from '@ext/core';

/** What a signed URL lets its holder do; part of the signed text, so one can never stand for the other. */
export type SigningPurpose = 'download' | 'upload';

const SIGNATURE_BYTES = 32;

/** HMAC-SHA256 over purpose, id and expiry, base64url. */
export function sign(key: Uint8Array, purpose: SigningPurpose, id: string, expiresSeconds: number): string {
  return createHmac('sha256', key)
    .update(`io.github.mcp-ext/data-references\n${purpose}\n${id}\n${String(expiresSeconds)}`)
    .digest('base64url');
}

export type SignedRequestCheck =
  | { readonly ok: true; readonly expiresSeconds: number }
  | { readonly ok: false; readonly reason: 'signature' | 'expired' };

const EXPIRES = /^\d{1,12}$/;
const SIGNATURE = /^[A-Za-z0-9_-]{43}$/;

/**
 * Checks the `expires` and `sig` query parameters of a request for `id`:
 * the signature first (constant-time, against every key, so a rotated-out
 * key still verifies), then the expiry. Never throws.
 */
export function checkSignedRequest(
  keys: readonly Uint8Array[],
  purpose: SigningPurpose,
  id: string,
  query: URLSearchParams,
  nowMs: number,
): SignedRequestCheck {
  const expires = query.get('expires') ?? '';
  const candidate = query.get('sig') ?? '';
  if (!EXPIRES.test(expires) || !SIGNATURE.test(candidate)) return { ok: false, reason: 'signature' };
  const given = Buffer.from(candidate, 'base64url');
  // The last of 43 characters carries two spare bits, so four spellings decode to the same
  // bytes; only the canonical one is accepted, so a changed URL is always a refused URL.
  if (given.length !== SIGNATURE_BYTES || given.toString('base64url') !== candidate)
    return { ok: false, reason: 'signature' };
  const expiresSeconds = Number(expires);
  let valid = false;
  for (const key of keys) {
    // Every key is tried, whatever matched, so the time taken says nothing about which one did.
    const expected = Buffer.from(sign(key, purpose, id, expiresSeconds), 'base64url');
    if (timingSafeEqual(expected, given)) valid = true;
  }
  if (!valid) return { ok: false, reason: 'signature' };
  if (expiresSeconds * 1000 <= nowMs) return { ok: false, reason: 'expired' };
  return { ok: true, expiresSeconds };
}

/** `base` (no trailing slash) + `/segments...` + `?expires=...&sig=...`. */
export function signedUrl(
  base: string,
  segments: readonly string[],
  key: Uint8Array,
  purpose: SigningPurpose,
  id: string,
  expiresSeconds: number,
): string {
  const path = segments.map((segment) => encodeURIComponent(segment)).join('/');
  return `${base.replace(/\/+$/, '')}/${path}?expires=${String(expiresSeconds)}&sig=${sign(key, purpose, id, expiresSeconds)}`;
}

/** Reads a signing secret given as text or bytes; throws a `ConfigurationError` naming the option when it is too short. */
export function secretBytes(value: unknown, option: string): Uint8Array {
  let bytes: Uint8Array;
  if (typeof value === 'string') bytes = Buffer.from(value, 'utf8');
  else if (value instanceof Uint8Array) bytes = Uint8Array.from(value);
  else
    throw new ConfigurationError('INVALID_OPTION', `${option} must be a string or a Uint8Array of at least 32 bytes`);
  if (bytes.length < 32) {
    throw new ConfigurationError(
      'INVALID_OPTION',
      `${option} must be at least 32 bytes long (got ${String(bytes.length)}); use 32 random bytes`,
    );
  }
  return bytes;
}

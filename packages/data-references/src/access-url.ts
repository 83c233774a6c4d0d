/** Checking a URL as this origin's access URL, pure: whether it is under the base URL, then its signature and expiry (DREF-6). */
import { isRefId } from './logic.js';
import { checkSignedRequest } from './signing.js';

/** What a URL is to an origin. */
export type AccessUrlCheck =
  /** Not under the origin's base URL (or not a URL): another resource, none of this origin's business. */
  | { readonly kind: 'foreign' }
  /** Under the base URL but refused: a wrong or changed signature, an expired one, or a path that names no reference. */
  | { readonly kind: 'denied'; readonly reason: 'signature' | 'expired' | 'not_a_reference' }
  /** A validly signed, unexpired access URL of the reference `refId` (which may still be unknown or revoked). */
  | { readonly kind: 'valid'; readonly refId: string; readonly expiresSeconds: number };

/**
 * Checks `value` against the base URL `base` (no trailing slash; `undefined`
 * while the origin's public URL is unknown, when no URL is the origin's) and
 * the verifying `keys`. Never throws.
 */
export function checkAccessUrl(
  keys: readonly Uint8Array[],
  base: string | undefined,
  value: string,
  nowMs: number,
): AccessUrlCheck {
  if (base === undefined) return { kind: 'foreign' };
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return { kind: 'foreign' };
  }
  const location = `${url.origin}${url.pathname}`;
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || !location.startsWith(`${base}/`))
    return { kind: 'foreign' };
  const refId = location.slice(base.length + 1);
  if (!isRefId(refId)) return { kind: 'denied', reason: 'not_a_reference' };
  const check = checkSignedRequest(keys, 'download', refId, url.searchParams, nowMs);
  return check.ok
    ? { kind: 'valid', refId, expiresSeconds: check.expiresSeconds }
    : { kind: 'denied', reason: check.reason };
}

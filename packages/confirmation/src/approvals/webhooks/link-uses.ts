/**
 * Which decision links were used, in the store, so a link works once on
 * whichever instance it reaches: one key per link (a digest of its nonce)
 * and one per request, shared by its approve and deny links, so using one
 * spends both. Keys hold digests only: a copy of the store opens nothing.
 */
import type { Store } from '@ext/core';
import { secretDigest } from '../../records.js';
import type { LinkClaims } from './link-token.js';

/** Why a link cannot be used: this one was, or another link of its request was. */
export type LinkUseRefusal = 'link_used' | 'request_used';

/** The store keys a link is remembered under. */
export function linkUseKeys(
  keyPrefix: string,
  claims: LinkClaims,
): { readonly link: string; readonly request: string } {
  return {
    link: `${keyPrefix}:approval-link:${secretDigest(claims.nonce)}`,
    request: `${keyPrefix}:approval-link-request:${secretDigest(claims.id)}`,
  };
}

/** Milliseconds from `nowMs` until the link expires (at least 1, so the marker outlives the check). */
function ttlUntil(claims: LinkClaims, nowMs: number): number {
  return Math.max(1, claims.exp * 1000 - nowMs);
}

/** Why the link can no longer be used, or `undefined` when it can (nothing is written). */
export async function linkUseRefusal(
  store: Store,
  keyPrefix: string,
  claims: LinkClaims,
): Promise<LinkUseRefusal | undefined> {
  const keys = linkUseKeys(keyPrefix, claims);
  if ((await store.get(keys.link)) !== undefined) return 'link_used';
  if ((await store.get(keys.request)) !== undefined) return 'request_used';
  return undefined;
}

/**
 * Spends the link (and, with it, every other link of its request) until it
 * expires; `undefined` when it was this call that spent it. Each step is
 * one `setIfAbsent`, so of two instances using links of one request at
 * once, exactly one goes on.
 */
export async function consumeLink(
  store: Store,
  keyPrefix: string,
  claims: LinkClaims,
  nowMs: number,
): Promise<LinkUseRefusal | undefined> {
  const keys = linkUseKeys(keyPrefix, claims);
  const options = { ttlMs: ttlUntil(claims, nowMs) };
  if (!(await store.setIfAbsent(keys.link, claims.decision, options))) return 'link_used';
  if (!(await store.setIfAbsent(keys.request, claims.decision, options))) return 'request_used';
  return undefined;
}

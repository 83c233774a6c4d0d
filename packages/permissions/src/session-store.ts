/** Negotiated sessions in the store: loading one (and counting the use), and opening a new one. */
import { randomBytes } from 'node:crypto';
import type { RequestContext } from '@ext/core';
import { parseSession, sessionActive, sessionKey, sessionToJson, touchSession, type SessionRecord } from './logic.js';
import type { ResolvedOptions } from './options.js';

/** Loads a session; `touch` records the use (refreshing the inactivity timer) and drops an expired one. */
export async function loadSession(
  ctx: RequestContext,
  config: ResolvedOptions,
  token: string,
  touch: boolean,
): Promise<SessionRecord | undefined> {
  const key = sessionKey(config.keyPrefix, ctx.principal, token);
  const record = parseSession(await ctx.store.get(key));
  if (record === undefined) return undefined;
  const at = config.now();
  if (!sessionActive(record, at)) {
    if (touch) await ctx.store.delete(key);
    return undefined;
  }
  if (touch) {
    const touched = touchSession(record, at);
    await ctx.store.set(key, sessionToJson(touched.record), { ttlMs: touched.ttlMs });
  }
  return record;
}

/** Stores `record` under a new bearer token for the caller, kept while it may be used; returns the token. */
export async function openSession(
  ctx: RequestContext,
  config: ResolvedOptions,
  record: SessionRecord,
  lifetimeSeconds: number,
): Promise<string> {
  const token = randomBytes(32).toString('base64url');
  await ctx.store.set(sessionKey(config.keyPrefix, ctx.principal, token), sessionToJson(record), {
    ttlMs: Math.min(config.sessionTtlSeconds, lifetimeSeconds) * 1000,
  });
  return token;
}

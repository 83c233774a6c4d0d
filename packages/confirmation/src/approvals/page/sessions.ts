/**
 * Browser sign-ins, kept in the desk's store: the key holds a digest of the
 * session id (the cookie), the record holds who signed in, their scopes
 * and the session's CSRF token; never the key or token that was pasted.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { isRecord, type JsonValue } from '@ext/core/kit';
import { type Store } from '@ext/core';
import { secretDigest } from '../../records.js';
import type { PageCaller } from './options.js';

/** One signed-in browser. Times in epoch milliseconds. */
export interface PageSession {
  readonly v: 1;
  readonly principal: string;
  readonly scopes: readonly string[];
  /** Sent back by the page with every change it asks for (`X-CSRF-Token`, or the sign-out form's `csrf`). */
  readonly csrf: string;
  readonly created_at: number;
  readonly expires_at: number;
}

/** A session and the id its cookie carries. */
export interface OpenSession {
  readonly id: string;
  readonly session: PageSession;
}

export interface SessionStore {
  /** Signs `caller` in: a new session with its own id and CSRF token. */
  open(caller: PageCaller): Promise<OpenSession>;
  /** The live session the cookie value names, or `undefined`. */
  find(id: string | undefined): Promise<OpenSession | undefined>;
  /** Signs out. */
  close(id: string): Promise<void>;
}

/** What a session id (and a CSRF token) looks like: 32 random bytes, base64url. */
const SECRET = /^[A-Za-z0-9_-]{43}$/;

function secret(): string {
  return randomBytes(32).toString('base64url');
}

function parseSession(value: JsonValue | undefined): PageSession | undefined {
  if (!isRecord(value) || value.v !== 1) return undefined;
  const ok =
    typeof value.principal === 'string' &&
    Array.isArray(value.scopes) &&
    value.scopes.every((scope) => typeof scope === 'string') &&
    typeof value.csrf === 'string' &&
    typeof value.created_at === 'number' &&
    typeof value.expires_at === 'number';
  return ok ? (value as unknown as PageSession) : undefined;
}

/** Whether `given` is the session's CSRF token (compared in constant time). */
export function csrfMatches(session: PageSession, given: string | null | undefined): boolean {
  if (typeof given !== 'string' || !SECRET.test(given)) return false;
  return timingSafeEqual(Buffer.from(session.csrf), Buffer.from(given));
}

/** The sessions of one page, in `store` under `<keyPrefix>:approval-session:<digest of the id>`. */
export function sessionStore(
  store: Store,
  keyPrefix: string,
  lifetimeSeconds: number,
  now: () => number,
): SessionStore {
  const key = (id: string) => `${keyPrefix}:approval-session:${secretDigest(id)}`;
  return {
    async open(caller) {
      const id = secret();
      const at = now();
      const session: PageSession = {
        v: 1,
        principal: caller.principal,
        scopes: [...caller.scopes],
        csrf: secret(),
        created_at: at,
        expires_at: at + lifetimeSeconds * 1000,
      };
      await store.set(key(id), session as unknown as JsonValue, { ttlMs: lifetimeSeconds * 1000 });
      return { id, session };
    },
    async find(id) {
      if (id === undefined || !SECRET.test(id)) return undefined;
      const session = parseSession(await store.get(key(id)));
      return session === undefined || session.expires_at <= now() ? undefined : { id, session };
    },
    async close(id) {
      if (SECRET.test(id)) await store.delete(key(id));
    },
  };
}

/**
 * Opaque access tokens, asked about at the issuer (RFC 7662, AUTH-6): an
 * active answer is kept for at most `cacheSeconds` and never past the
 * token's `exp`, keyed by a hash of the token (the token itself is never
 * kept); an inactive one is never kept, so a revoked token fails at once
 * once its cached answer ends.
 */
import { createHash } from 'node:crypto';
import { IssuerUnavailable } from './discovery.js';
import type { OAuthSettings } from './options.js';

/** Bound on cached answers: a flood of distinct tokens cannot grow memory without end. */
const MAX_CACHED = 10_000;

/** What the issuer said about a token: its claims when active, else why it is refused. */
export type Introspected = { readonly claims: Record<string, unknown> } | { readonly refused: string };

function audiences(value: unknown): readonly unknown[] {
  return Array.isArray(value) ? value : [value];
}

/** Whether an active answer is for this resource, from this issuer, and unexpired; the reason when not. */
export function judgeIntrospection(
  answer: Record<string, unknown>,
  settings: OAuthSettings,
  nowSeconds: number,
): Introspected {
  if (answer.active !== true) return { refused: 'token is not active' };
  if (answer.iss !== undefined && answer.iss !== settings.issuer) return { refused: 'token is from another issuer' };
  if (!audiences(answer.aud).includes(settings.audience)) return { refused: 'token is for another resource' };
  const skew = settings.clockToleranceSeconds;
  if (typeof answer.exp === 'number' && answer.exp + skew <= nowSeconds) return { refused: 'token expired' };
  if (typeof answer.nbf === 'number' && answer.nbf - skew > nowSeconds) return { refused: 'token not yet valid' };
  return { claims: answer };
}

export class Introspector {
  readonly #settings: OAuthSettings;
  readonly #cache = new Map<string, { readonly claims: Record<string, unknown>; readonly until: number }>();

  constructor(settings: OAuthSettings) {
    this.#settings = settings;
  }

  /** The issuer's judgement of `token`; throws {@link IssuerUnavailable} when it cannot be asked. */
  async introspect(token: string, endpoint: URL): Promise<Introspected> {
    const key = createHash('sha256').update(token).digest('base64url');
    const cached = this.#cache.get(key);
    if (cached !== undefined && cached.until > Date.now()) return { claims: cached.claims };
    this.#cache.delete(key);
    const judged = judgeIntrospection(await this.#ask(token, endpoint), this.#settings, Date.now() / 1000);
    if ('claims' in judged) this.#remember(key, judged.claims);
    return judged;
  }

  #remember(key: string, claims: Record<string, unknown>): void {
    const seconds = this.#settings.introspection?.cacheSeconds ?? 0;
    const until = Math.min(Date.now() + seconds * 1000, typeof claims.exp === 'number' ? claims.exp * 1000 : Infinity);
    if (until <= Date.now()) return;
    if (this.#cache.size >= MAX_CACHED) this.#cache.delete(this.#cache.keys().next().value ?? '');
    this.#cache.set(key, { claims, until });
  }

  async #ask(token: string, endpoint: URL): Promise<Record<string, unknown>> {
    const client = this.#settings.introspection;
    if (client === undefined) throw new IssuerUnavailable('no introspection client is configured');
    const basic = Buffer.from(
      `${encodeURIComponent(client.clientId)}:${encodeURIComponent(client.clientSecret)}`,
    ).toString('base64');
    const response = await fetch(endpoint, {
      method: 'POST',
      headers: {
        authorization: `Basic ${basic}`,
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'application/json',
      },
      body: new URLSearchParams({ token, token_type_hint: 'access_token' }),
      signal: AbortSignal.timeout(this.#settings.timeoutMs),
    });
    if (!response.ok) {
      await response.body?.cancel();
      throw new IssuerUnavailable(`introspection at ${endpoint.href} answered ${String(response.status)}`);
    }
    const answer: unknown = await response.json();
    if (typeof answer !== 'object' || answer === null)
      throw new IssuerUnavailable('introspection answered no JSON object');
    return answer as Record<string, unknown>;
  }
}

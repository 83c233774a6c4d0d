/**
 * Who is calling: the principal every per-caller record is keyed by,
 * resolved the same way on both SDK lines and both protocol eras. Pure: the
 * adapters and HTTP handlers hand in what the transport knows.
 */
import { ConfigurationError } from './errors.js';
import type { AuthInfo, CallerIdentity } from './types.js';

/**
 * What a server author's `identify` hook returns for a request: the
 * caller's name (an API key's owner, a proxy's identity header, an mTLS
 * subject), optionally with the scopes it holds, or `undefined` when the
 * request carries nothing the hook recognises.
 */
export type IdentifyResult =
  string | { readonly principal: string; readonly scopes?: readonly string[] | undefined } | undefined;

/** The principal of every caller on stdio and other in-process links: the one client that started the process. */
export const LOCAL_PRINCIPAL = 'local';
/** The principal shared by every caller of an HTTP server that chose `anonymous: 'shared'`. */
export const ANONYMOUS_PRINCIPAL = 'anonymous';

/** The longest principal name accepted from a hook or a token. */
export const MAX_PRINCIPAL_LENGTH = 512;

// A symbol, not a key of `extra`: a token verifier that copies a JWT's claims
// into `extra` must not let a token holder choose their own principal.
const STAMP = Symbol.for('io.github.mcp-ext/caller-identity');

type Stamped = { [STAMP]?: CallerIdentity };

// eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

/** A usable principal name: a non-empty string, at most {@link MAX_PRINCIPAL_LENGTH} characters, no control characters. */
export function isPrincipalName(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0 && value.length <= MAX_PRINCIPAL_LENGTH && !CONTROL.test(value);
}

/**
 * Checks what an `identify` hook returned. A malformed answer is the server
 * author's bug, never a reason to let the request through under some
 * other name: it throws a `ConfigurationError` naming the hook.
 */
export function readIdentifyResult(
  result: unknown,
  where: string,
): { principal: string; scopes: readonly string[] } | undefined {
  if (result === undefined) return undefined;
  const name = typeof result === 'object' && result !== null ? (result as { principal?: unknown }).principal : result;
  if (!isPrincipalName(name)) {
    throw new ConfigurationError(
      'INVALID_PRINCIPAL',
      `${where}: identify must return undefined, a principal name (1 to ${String(MAX_PRINCIPAL_LENGTH)} characters, no control characters) or { principal, scopes }; got ${describe(result)}`,
    );
  }
  const scopes = typeof result === 'object' && result !== null ? (result as { scopes?: unknown }).scopes : undefined;
  if (scopes !== undefined && !(Array.isArray(scopes) && scopes.every((scope) => typeof scope === 'string'))) {
    throw new ConfigurationError(
      'INVALID_PRINCIPAL',
      `${where}: identify returned scopes that are not an array of strings`,
    );
  }
  return { principal: `id:${name}`, scopes: scopes ?? [] };
}

function describe(value: unknown): string {
  if (typeof value === 'string') return `a string of ${String(value.length)} characters`;
  return value === null ? 'null' : typeof value;
}

/** Attaches a resolved identity to an auth-info object the SDK will carry to the handlers. */
export function stampIdentity<T extends object>(authInfo: T, identity: CallerIdentity): T {
  Object.defineProperty(authInfo, STAMP, { value: identity, enumerable: true });
  return authInfo;
}

/** The identity an HTTP handler of this package attached, if any. */
export function stampedIdentity(authInfo: unknown): CallerIdentity | undefined {
  if (typeof authInfo !== 'object' || authInfo === null) return undefined;
  return (authInfo as Stamped)[STAMP];
}

function text(record: Readonly<Record<string, unknown>> | undefined, key: string): string | undefined {
  const value = record?.[key];
  return isPrincipalName(value) ? value : undefined;
}

/**
 * The principal an OAuth access token names: the issuer and subject (the
 * `iss` and `sub` claims a verifier copies into `extra`), else the subject
 * alone, else the OAuth client id. `undefined` when it names none of them.
 * Each form has its own prefix (`oauth:`, `sub:`, `client:`; an `identify`
 * hook's names get `id:`), so no two forms can name the same principal.
 */
export function principalFromAuthInfo(authInfo: AuthInfo): string | undefined {
  const subject = text(authInfo.extra, 'sub');
  const issuer = text(authInfo.extra, 'iss');
  // An issuer identifier has no fragment (RFC 8414), so `#` separates the two unambiguously.
  if (subject !== undefined && issuer !== undefined) return `oauth:${issuer.replaceAll('#', '%23')}#${subject}`;
  if (subject !== undefined) return `sub:${subject}`;
  const client = authInfo.clientId;
  return isPrincipalName(client) ? `client:${client}` : undefined;
}

/**
 * The auth info a request's handlers see: what its transport carried, else
 * off HTTP the scopes the server grants its local caller (IDENT-2), as a
 * token's would be.
 */
export function withLocalScopes(
  authInfo: AuthInfo | undefined,
  overHttp: boolean,
  localScopes: readonly string[] | undefined,
): AuthInfo | undefined {
  if (authInfo !== undefined || overHttp || localScopes === undefined || localScopes.length === 0) return authInfo;
  return { scopes: [...localScopes] };
}

/** What the transport knows about a request's caller. */
export interface CallerFacts {
  /** The SDK's auth info object, as the transport attached it (may carry a stamped identity). */
  readonly rawAuthInfo: unknown;
  /** The same, read into the core's shape. */
  readonly authInfo: AuthInfo | undefined;
  /** The request arrived over HTTP (not stdio or an in-process link). */
  readonly overHttp: boolean;
}

/**
 * Resolves the caller (core SPEC, IDENT-1 to IDENT-4): an identity stamped
 * by this package's HTTP handler, else the OAuth token's, else `local` off
 * HTTP. `undefined` for an HTTP request nothing identifies.
 */
export function resolveCaller(facts: CallerFacts): CallerIdentity | undefined {
  const stamped = stampedIdentity(facts.rawAuthInfo);
  if (stamped !== undefined) return stamped;
  if (facts.authInfo !== undefined) {
    const principal = principalFromAuthInfo(facts.authInfo);
    if (principal !== undefined) return { principal, source: 'oauth' };
  }
  return facts.overHttp ? undefined : { principal: LOCAL_PRINCIPAL, source: 'local' };
}

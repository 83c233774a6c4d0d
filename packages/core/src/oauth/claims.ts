/**
 * A verified token's claims as the auth info both SDK lines carry (AUTH-4):
 * the caller is the issuer and the configured subject claim, the scopes come
 * from `scope` / `scp` (or the configured claim), the roles from a dotted
 * path. Pure.
 */
import type { SdkAuthInfo } from '../http/http-identity.js';
import { DEFAULT_PRINCIPAL_CLAIM, type OAuthSettings } from './options.js';

/** What a verified token says, whichever way it was verified (JWT or introspection). */
export interface VerifiedToken {
  readonly token: string;
  readonly claims: Readonly<Record<string, unknown>>;
}

/** The value at a dotted path (`realm_access.roles`) of the claims, or `undefined`. */
export function claimAt(claims: Readonly<Record<string, unknown>>, path: string): unknown {
  let node: unknown = claims;
  for (const step of path.split('.')) {
    if (typeof node !== 'object' || node === null || Array.isArray(node) || !Object.hasOwn(node, step))
      return undefined;
    node = (node as Record<string, unknown>)[step];
  }
  return node;
}

/** A space-separated string or an array of strings, as a list; anything else is none. */
export function stringList(value: unknown): string[] {
  if (typeof value === 'string') return value.split(' ').filter((item) => item !== '');
  if (Array.isArray(value)) return value.filter((item): item is string => typeof item === 'string' && item !== '');
  return [];
}

function scopesOf(claims: Readonly<Record<string, unknown>>, claim: string | undefined): string[] {
  if (claim !== undefined) return stringList(claimAt(claims, claim));
  return stringList(claims.scope ?? claims.scp);
}

/**
 * The caller within the issuer: the principal claim; for the default `sub`,
 * a token without one (introspection of a client-credentials token, where
 * no user is involved) names its client (RFC 9068 §2.2 makes them equal).
 */
function subjectOf(
  claims: Readonly<Record<string, unknown>>,
  claim: string | undefined,
  clientId: string,
): string | undefined {
  const named = claimAt(claims, claim ?? DEFAULT_PRINCIPAL_CLAIM);
  if (typeof named === 'string' && named !== '') return named;
  return claim === undefined && clientId !== '' ? clientId : undefined;
}

/**
 * The auth info for a verified token, or `undefined` when it names no caller
 * (no string in the principal claim). `extra` carries `iss` and `sub` (the
 * principal is `oauth:<iss>#<sub>`), the roles and the claims themselves.
 */
export function authInfoFromClaims(verified: VerifiedToken, settings: OAuthSettings): SdkAuthInfo | undefined {
  const { claims } = verified;
  const clientId =
    typeof claims.client_id === 'string' ? claims.client_id : typeof claims.azp === 'string' ? claims.azp : '';
  const subject = subjectOf(claims, settings.claims.principal, clientId);
  if (subject === undefined) return undefined;
  const roles = settings.claims.roles === undefined ? [] : stringList(claimAt(claims, settings.claims.roles));
  return {
    token: verified.token,
    clientId,
    scopes: scopesOf(claims, settings.claims.scopes),
    ...(typeof claims.exp === 'number' ? { expiresAt: claims.exp } : {}),
    extra: { iss: settings.issuer, sub: subject, roles, claims },
  };
}

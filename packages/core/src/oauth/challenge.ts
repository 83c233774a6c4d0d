/**
 * What a resource server tells a client that has no usable token (AUTH-2,
 * AUTH-3): the RFC 9728 protected-resource metadata and where it lives, and
 * the `401` and `403` answers with their RFC 6750 `WWW-Authenticate`
 * challenges, and the `503` when the issuer cannot be asked. Pure.
 */
import type { OAuthSettings } from './options.js';

const WELL_KNOWN = '/.well-known/oauth-protected-resource';

/** Where the metadata is served: the path-suffixed form for the resource's path (RFC 9728 §3.1), and the bare one. */
export function metadataPaths(audience: string): readonly string[] {
  const path = new URL(audience).pathname.replace(/\/$/, '');
  return path === '' ? [WELL_KNOWN] : [`${WELL_KNOWN}${path}`, WELL_KNOWN];
}

/** The metadata's URL on the resource's own origin, as clients are told it. */
export function metadataUrl(audience: string): string {
  const resource = new URL(audience);
  return new URL(metadataPaths(audience)[0] ?? WELL_KNOWN, resource.origin).href;
}

/** The protected-resource metadata document (RFC 9728 §2). */
export function metadataDocument(settings: OAuthSettings): Record<string, unknown> {
  return {
    resource: settings.audience,
    authorization_servers: [settings.issuer],
    bearer_methods_supported: ['header'],
    ...(settings.scopesSupported.length > 0 ? { scopes_supported: settings.scopesSupported } : {}),
    ...(settings.resourceName === undefined ? {} : { resource_name: settings.resourceName }),
  };
}

/** A quoted-string parameter value: RFC 6750 allows no `"` or `\` inside, and no control characters. */
function quoted(value: string): string {
  return `"${value.replace(/[\\"\p{Cc}]/gu, ' ')}"`;
}

function challenge(params: Readonly<Record<string, string | undefined>>): string {
  const parts = Object.entries(params)
    .filter((entry): entry is [string, string] => entry[1] !== undefined)
    .map(([name, value]) => `${name}=${quoted(value)}`);
  return `Bearer ${parts.join(', ')}`;
}

function refusal(status: number, message: string, wwwAuthenticate: string): Response {
  const body = { jsonrpc: '2.0', error: { code: -32000, message }, id: null };
  return Response.json(body, { status, headers: { 'www-authenticate': wwwAuthenticate } });
}

/** `401`: no token (no error code, RFC 6750 §3.1) or an invalid one, pointing at the metadata. */
export function unauthorized(settings: OAuthSettings, reason: string | undefined): Response {
  const resourceMetadata = metadataUrl(settings.audience);
  const header =
    reason === undefined
      ? challenge({ resource_metadata: resourceMetadata })
      : challenge({ error: 'invalid_token', error_description: reason, resource_metadata: resourceMetadata });
  return refusal(401, `Unauthorized: ${reason ?? 'this server needs an OAuth access token'}`, header);
}

/** `403 insufficient_scope`, naming every scope the request needs. */
export function insufficientScope(settings: OAuthSettings, needed: readonly string[]): Response {
  const header = challenge({
    error: 'insufficient_scope',
    scope: needed.join(' '),
    resource_metadata: metadataUrl(settings.audience),
  });
  return refusal(403, `Forbidden: the token lacks scope ${needed.join(' ')}`, header);
}

/** `503`: the issuer could not be asked; a fault of a dependency, not of the caller's token. */
export function issuerUnavailable(retryAfterSeconds: number): Response {
  const body = {
    jsonrpc: '2.0',
    error: { code: -32000, message: 'Service unavailable: the authorization server did not answer; retry' },
    id: null,
  };
  return Response.json(body, { status: 503, headers: { 'retry-after': String(retryAfterSeconds) } });
}

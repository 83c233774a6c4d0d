/**
 * What an OAuth 2.1 resource server is told (core SPEC, AUTH-1): whose
 * tokens it accepts, for which resource, and where the caller's name, scopes
 * and roles are read from. Checked once, naming the option at fault.
 */
import { ConfigurationError } from '../contract/errors.js';

/** RFC 7662 introspection, for access tokens that are not JWTs. */
export interface IntrospectionOptions {
  /** Default: the `introspection_endpoint` of the issuer's metadata. */
  readonly endpoint?: string | undefined;
  /** The resource server's own client credentials at the issuer (HTTP Basic). */
  readonly clientId: string;
  readonly clientSecret: string;
  /** Longest time an active answer is reused, in seconds; never past the token's `exp`. Default 30; 0 asks every time. */
  readonly cacheSeconds?: number | undefined;
}

/** Where the caller's name, scopes and roles are read from in the token's claims. */
export interface ClaimOptions {
  /** The claim naming the caller within the issuer. Default `sub`, else (no `sub`) the client id. */
  readonly principal?: string | undefined;
  /** The claim holding scopes (space-separated string or array). Default: `scope`, else `scp`. */
  readonly scopes?: string | undefined;
  /** A dotted path to the roles or groups (`realm_access.roles`, `groups`). Default: none. */
  readonly roles?: string | undefined;
}

export interface OAuthResourceOptions {
  /** The authorization server's issuer identifier (`https://idp.example.com`); tokens must carry it as `iss`. */
  readonly issuer: string;
  /** This server's resource URL (RFC 8707), e.g. `https://mcp.example.com/mcp`; tokens must name it in `aud`. */
  readonly audience: string;
  /** Default: the `jwks_uri` of the issuer's metadata (OpenID or RFC 8414 discovery). */
  readonly jwksUri?: string | undefined;
  /** Signature algorithms accepted. Default RS256, PS256, ES256, EdDSA; `none` and the HMAC ones are refused. */
  readonly algorithms?: readonly string[] | undefined;
  /**
   * A token signed by a key the cached key set lacks refetches the keys, at
   * most once in this many seconds (a rotation is taken up; a flood of forged
   * `kid`s is not a flood of fetches). Default 30.
   */
  readonly keyRefreshCooldownSeconds?: number | undefined;
  /** Clock skew tolerated on `exp` and `nbf`, in seconds. Default 30, at most 300. */
  readonly clockToleranceSeconds?: number | undefined;
  /** Scopes every request needs (`403 insufficient_scope` otherwise). Default: none. */
  readonly requiredScopes?: readonly string[] | undefined;
  /** Scopes listed in the protected-resource metadata. Default: `requiredScopes`. */
  readonly scopesSupported?: readonly string[] | undefined;
  readonly introspection?: IntrospectionOptions | undefined;
  readonly claims?: ClaimOptions | undefined;
  /** A human-readable name for the metadata (`resource_name`). */
  readonly resourceName?: string | undefined;
  /** How long a request waits on the issuer (metadata, keys, introspection), in ms. Default 5000. */
  readonly timeoutMs?: number | undefined;
}

export const DEFAULT_PRINCIPAL_CLAIM = 'sub';
export const DEFAULT_ALGORITHMS = ['RS256', 'PS256', 'ES256', 'EdDSA'] as const;
/** Asymmetric algorithms only: a shared-secret algorithm would let anyone holding the public key sign. */
const ASYMMETRIC = /^(?:RS|PS|ES)(?:256|384|512)$|^ES256K$|^EdDSA$|^Ed25519$/;
const MAX_CLOCK_TOLERANCE_SECONDS = 300;

/** The options with their defaults, checked. */
export interface OAuthSettings {
  readonly issuer: string;
  readonly audience: string;
  readonly jwksUri: URL | undefined;
  readonly algorithms: readonly string[];
  readonly clockToleranceSeconds: number;
  readonly keyRefreshCooldownSeconds: number;
  readonly requiredScopes: readonly string[];
  readonly scopesSupported: readonly string[];
  readonly introspection: (IntrospectionOptions & { readonly cacheSeconds: number }) | undefined;
  /** `principal` is `undefined` when not configured: `sub`, else the client id. */
  readonly claims: {
    readonly principal: string | undefined;
    readonly scopes: string | undefined;
    readonly roles: string | undefined;
  };
  readonly resourceName: string | undefined;
  readonly timeoutMs: number;
}

function invalid(option: string, rule: string, value: unknown): ConfigurationError {
  return new ConfigurationError(
    'INVALID_OPTION',
    `oauthResource: ${option} must be ${rule}, got ${(JSON.stringify(value) as string | undefined) ?? String(value)}`,
  );
}

function url(option: string, value: unknown, https: boolean): URL {
  const parsed = typeof value === 'string' && URL.canParse(value) ? new URL(value) : undefined;
  const local = parsed !== undefined && ['localhost', '127.0.0.1', '[::1]'].includes(parsed.hostname);
  if (parsed === undefined || !(parsed.protocol === 'https:' || (parsed.protocol === 'http:' && (local || !https))))
    throw invalid(option, https ? 'an https URL (http only on loopback)' : 'an http(s) URL', value);
  if (parsed.hash !== '') throw invalid(option, 'a URL without a fragment', value);
  return parsed;
}

function strings(option: string, value: unknown, fallback: readonly string[]): readonly string[] {
  if (value === undefined) return fallback;
  if (
    !Array.isArray(value) ||
    !value.every((item) => typeof item === 'string' && /^[\x21\x23-\x5b\x5d-\x7e]+$/.test(item))
  )
    throw invalid(option, 'an array of scope-like strings', value);
  return value as string[];
}

function seconds(option: string, value: unknown, fallback: number, max: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > max)
    throw invalid(option, `an integer from 0 to ${String(max)}`, value);
  return value;
}

function claimName(option: string, value: unknown, fallback: string | undefined): string | undefined {
  if (value === undefined) return fallback;
  if (typeof value !== 'string' || !/^[^.\s]+(?:\.[^.\s]+)*$/.test(value))
    throw invalid(option, 'a claim name or dotted path', value);
  return value;
}

function algorithmsOf(value: unknown): readonly string[] {
  const algorithms = value ?? DEFAULT_ALGORITHMS;
  if (
    !Array.isArray(algorithms) ||
    algorithms.length === 0 ||
    !algorithms.every((alg) => typeof alg === 'string' && ASYMMETRIC.test(alg))
  )
    throw invalid(
      'algorithms',
      'a non-empty array of asymmetric JWS algorithms (RS*, PS*, ES*, EdDSA; never none or HS*)',
      value,
    );
  return algorithms as string[];
}

function introspectionOf(value: IntrospectionOptions | undefined): OAuthSettings['introspection'] {
  if (value === undefined) return undefined;
  if (typeof value.clientId !== 'string' || value.clientId === '')
    throw invalid('introspection.clientId', 'a non-empty string', value.clientId);
  if (typeof value.clientSecret !== 'string' || value.clientSecret === '')
    throw invalid('introspection.clientSecret', 'a non-empty string', '(hidden)');
  if (value.endpoint !== undefined) url('introspection.endpoint', value.endpoint, true);
  return { ...value, cacheSeconds: seconds('introspection.cacheSeconds', value.cacheSeconds, 30, 3600) };
}

/** Checks `options` once, when the resource server is made (AUTH-1). */
export function resolveOAuthOptions(options: OAuthResourceOptions): OAuthSettings {
  // Both are compared with the token's claims exactly as given, so they are kept as given.
  url('issuer', options.issuer, true);
  url('audience', options.audience, false);
  const requiredScopes = strings('requiredScopes', options.requiredScopes, []);
  const timeoutMs = seconds('timeoutMs', options.timeoutMs, 5000, 60_000);
  if (timeoutMs === 0) throw invalid('timeoutMs', 'at least 1', 0);
  return {
    issuer: options.issuer,
    audience: options.audience,
    jwksUri: options.jwksUri === undefined ? undefined : url('jwksUri', options.jwksUri, true),
    algorithms: algorithmsOf(options.algorithms),
    clockToleranceSeconds: seconds(
      'clockToleranceSeconds',
      options.clockToleranceSeconds,
      30,
      MAX_CLOCK_TOLERANCE_SECONDS,
    ),
    keyRefreshCooldownSeconds: seconds('keyRefreshCooldownSeconds', options.keyRefreshCooldownSeconds, 30, 3600),
    requiredScopes,
    scopesSupported: strings('scopesSupported', options.scopesSupported, requiredScopes),
    introspection: introspectionOf(options.introspection),
    claims: {
      principal: claimName('claims.principal', options.claims?.principal, undefined),
      scopes: claimName('claims.scopes', options.claims?.scopes, undefined),
      roles: claimName('claims.roles', options.claims?.roles, undefined),
    },
    resourceName: options.resourceName,
    timeoutMs,
  };
}

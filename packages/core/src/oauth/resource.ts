/**
 * `oauthResource(options)`: an OAuth 2.1 resource server for an MCP HTTP
 * endpoint (core SPEC, AUTH-1 to AUTH-8). JWT access tokens are verified
 * with `jose` against the issuer's keys; opaque ones are introspected; the
 * caller, scopes and roles are read from the claims. Give `authenticate`
 * and `wellKnown` to `createHttpHandler` of either SDK line.
 */
import { createRemoteJWKSet, errors, jwtVerify, type JWTPayload } from 'jose';
import type { SdkAuthInfo } from '../http/http-identity.js';
import { consoleLogger, type Logger } from '../telemetry/logger.js';
import {
  insufficientScope,
  issuerUnavailable,
  metadataDocument,
  metadataPaths,
  metadataUrl,
  unauthorized,
} from './challenge.js';
import { authInfoFromClaims } from './claims.js';
import { discoverIssuer, IssuerUnavailable, type IssuerMetadata } from './discovery.js';
import { Introspector } from './introspection.js';
import { resolveOAuthOptions, type OAuthResourceOptions, type OAuthSettings } from './options.js';

/** How long a failed discovery is remembered before the issuer is asked again; also the `Retry-After` told. */
const RETRY_SECONDS = 5;
const JWKS_MAX_AGE_MS = 10 * 60_000;
const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*$/;

export interface OAuthResource {
  /** For `createHttpHandler({ authenticate })`: the verified caller, or the `401` / `403` / `503` refusing the request. */
  readonly authenticate: (request: Request) => Promise<SdkAuthInfo | Response>;
  /** For `createHttpHandler({ wellKnown })`: the protected-resource metadata at its well-known paths, else `undefined`. */
  readonly wellKnown: (request: Request) => Response | undefined;
  /** Where clients are told the metadata is (`WWW-Authenticate: Bearer resource_metadata="..."`). */
  readonly metadataUrl: string;
}

export interface OAuthResourceContext {
  /** Where an issuer outage is reported, once per outage. Default: stderr. */
  readonly logger?: Logger | undefined;
}

/** Why jose refused a token, said for the caller (`error_description`). */
function reasonOf(error: errors.JOSEError): string {
  if (error instanceof errors.JWTExpired) return 'token expired';
  if (error instanceof errors.JWTClaimValidationFailed)
    return error.claim === 'nbf' ? 'token not yet valid' : `token ${error.claim} is not accepted here`;
  if (error instanceof errors.JOSEAlgNotAllowed) return 'token signing algorithm is not accepted';
  if (error instanceof errors.JWKSNoMatchingKey) return 'token signing key is unknown';
  if (error instanceof errors.JWSSignatureVerificationFailed) return 'token signature is invalid';
  return 'token is malformed';
}

/** A fault of the issuer (its keys unreachable or unusable), not of the caller's token. */
function issuerFault(error: unknown): boolean {
  return (
    !(error instanceof errors.JOSEError) || error instanceof errors.JWKSTimeout || error instanceof errors.JWKSInvalid
  );
}

function bearerToken(request: Request): string | undefined {
  const match = /^Bearer +([\x21-\x7e]+) *$/i.exec(request.headers.get('authorization') ?? '');
  return match?.[1];
}

class Issuer {
  #metadata: Promise<IssuerMetadata> | undefined;
  #jwks: ReturnType<typeof createRemoteJWKSet> | undefined;
  #down = false;

  constructor(
    readonly settings: OAuthSettings,
    readonly logger: Logger,
  ) {}

  /** The issuer's metadata, read once (a failure is retried after {@link RETRY_SECONDS}). */
  metadata(): Promise<IssuerMetadata> {
    const { settings } = this;
    const known =
      settings.jwksUri !== undefined &&
      (settings.introspection === undefined || settings.introspection.endpoint !== undefined);
    if (known) return Promise.resolve({ jwksUri: settings.jwksUri, introspectionEndpoint: undefined });
    this.#metadata ??= discoverIssuer(settings).catch((error: unknown) => {
      setTimeout(() => (this.#metadata = undefined), RETRY_SECONDS * 1000).unref();
      throw error;
    });
    return this.#metadata;
  }

  async keys(): Promise<ReturnType<typeof createRemoteJWKSet>> {
    if (this.#jwks !== undefined) return this.#jwks;
    const uri = this.settings.jwksUri ?? (await this.metadata()).jwksUri;
    if (uri === undefined) throw new IssuerUnavailable("the issuer's metadata names no jwks_uri");
    this.#jwks ??= createRemoteJWKSet(uri, {
      timeoutDuration: this.settings.timeoutMs,
      cooldownDuration: this.settings.keyRefreshCooldownSeconds * 1000,
      cacheMaxAge: JWKS_MAX_AGE_MS,
    });
    return this.#jwks;
  }

  async introspectionEndpoint(): Promise<URL | undefined> {
    const given = this.settings.introspection?.endpoint;
    return given === undefined ? (await this.metadata()).introspectionEndpoint : new URL(given);
  }

  /** Logs the first failure of an outage, and its end. */
  answered(fault: unknown): void {
    if (fault === undefined) {
      if (this.#down) this.logger.debug?.('oauth: the authorization server answers again');
      this.#down = false;
      return;
    }
    if (!this.#down)
      this.logger.warn('oauth: the authorization server could not be asked; requests get 503 until it answers', {
        issuer: this.settings.issuer,
        error: fault instanceof Error ? fault.message : 'unknown failure',
      });
    this.#down = true;
  }
}

async function verifyJwt(issuer: Issuer, token: string): Promise<JWTPayload | string> {
  const { settings } = issuer;
  try {
    const { payload } = await jwtVerify(token, await issuer.keys(), {
      issuer: settings.issuer,
      audience: settings.audience,
      algorithms: [...settings.algorithms],
      clockTolerance: settings.clockToleranceSeconds,
      requiredClaims: ['exp'],
    });
    return payload;
  } catch (error) {
    if (issuerFault(error)) throw error;
    return reasonOf(error as errors.JOSEError);
  }
}

async function introspected(
  issuer: Issuer,
  introspector: Introspector,
  token: string,
): Promise<Record<string, unknown> | string> {
  const endpoint = await issuer.introspectionEndpoint();
  if (endpoint === undefined) throw new IssuerUnavailable("the issuer's metadata names no introspection_endpoint");
  const judged = await introspector.introspect(token, endpoint);
  return 'claims' in judged ? judged.claims : judged.refused;
}

/** A token's claims once verified, or why it is refused. */
async function claimsOf(issuer: Issuer, introspector: Introspector | undefined, token: string) {
  if (JWT_SHAPE.test(token)) return verifyJwt(issuer, token);
  if (introspector === undefined) return 'token is not a JWT, and this server does not introspect tokens';
  return introspected(issuer, introspector, token);
}

/** An OAuth 2.1 resource server: checks `options` now (`ConfigurationError` naming the option), contacts the issuer on the first request. */
export function oauthResource(options: OAuthResourceOptions, context: OAuthResourceContext = {}): OAuthResource {
  const settings = resolveOAuthOptions(options);
  const issuer = new Issuer(settings, context.logger ?? consoleLogger);
  const introspector = settings.introspection === undefined ? undefined : new Introspector(settings);
  const paths = new Set(metadataPaths(settings.audience));
  const document = metadataDocument(settings);

  const authenticate = async (request: Request): Promise<SdkAuthInfo | Response> => {
    const token = bearerToken(request);
    if (token === undefined) return unauthorized(settings, undefined);
    let claims: JWTPayload | string;
    try {
      claims = await claimsOf(issuer, introspector, token);
      issuer.answered(undefined);
    } catch (error) {
      if (!(error instanceof IssuerUnavailable) && !issuerFault(error)) throw error;
      issuer.answered(error);
      return issuerUnavailable(RETRY_SECONDS);
    }
    if (typeof claims === 'string') return unauthorized(settings, claims);
    const authInfo = authInfoFromClaims({ token, claims }, settings);
    if (authInfo === undefined)
      return unauthorized(settings, `token has no ${settings.claims.principal ?? 'sub'} claim naming its subject`);
    const missing = settings.requiredScopes.filter((scope) => !authInfo.scopes.includes(scope));
    return missing.length > 0 ? insufficientScope(settings, settings.requiredScopes) : authInfo;
  };

  return {
    authenticate,
    wellKnown: (request) =>
      request.method === 'GET' && paths.has(new URL(request.url).pathname)
        ? Response.json(document, { headers: { 'cache-control': 'max-age=300', 'access-control-allow-origin': '*' } })
        : undefined,
    metadataUrl: metadataUrl(settings.audience),
  };
}

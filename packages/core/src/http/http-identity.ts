/**
 * How an HTTP endpoint tells its callers apart, for both SDK lines' HTTP
 * handlers: the options a server author states, the startup check, and the
 * per-request gate that turns a fetch `Request` into the auth info the SDK
 * carries to the handlers (or the `Response` that refuses it).
 */
import { ConfigurationError } from '../contract/errors.js';
import {
  ANONYMOUS_PRINCIPAL,
  principalFromAuthInfo,
  readIdentifyResult,
  stampedIdentity,
  stampIdentity,
  type IdentifyResult,
} from '../contract/identity.js';
import type { Logger } from '../telemetry/logger.js';
import type { AuthInfo, CallerIdentity } from '../contract/types.js';
import type { ComposedServer } from '../contract/extension.js';

/** The auth info both SDK lines carry from the transport to the handlers (`ctx.http.authInfo`, `extra.authInfo`). */
export interface SdkAuthInfo {
  token: string;
  clientId: string;
  scopes: string[];
  expiresAt?: number | undefined;
  extra?: Record<string, unknown> | undefined;
}

/** How the callers of an HTTP endpoint are identified (core SPEC, IDENT-6). */
export interface HttpIdentityOptions<A extends SdkAuthInfo = SdkAuthInfo> {
  /**
   * Checks a request's credentials: the SDK's own bearer gate
   * (`requireBearerAuth({ verifier })` from `@modelcontextprotocol/server`)
   * or any function of that shape. Resolves to the verified auth info, whose
   * issuer and subject (else client id) name the caller and whose scopes
   * are the starting grant of `@ext/permissions`; or to the `Response` that
   * refuses the request (401 with its `WWW-Authenticate` challenge).
   */
  readonly authenticate?: ((request: Request) => Promise<A | Response> | A | Response) | undefined;
  /**
   * Other schemes (API keys, an mTLS header, a reverse proxy's identity
   * header): the caller's name, or `{ principal, scopes }`, or `undefined`
   * when the request carries nothing it recognises (then `authenticate`,
   * then `anonymous` decide). Runs first. Only what the server trusts may
   * name the caller: never read `_meta` or tool arguments here.
   */
  readonly identify?: ((request: Request) => IdentifyResult | Promise<IdentifyResult>) | undefined;
  /**
   * What happens to a request nothing identifies. `'refuse'` (the default
   * once `authenticate` or `identify` is given): 401. `'shared'`: it is
   * served as the one principal `anonymous`, so callers are not told apart
   * (logged once at start; the manifest says so). Give `'refuse'` alone
   * when authentication happens in front of the handler and reaches it as
   * `fetch(request, { authInfo })`.
   */
  readonly anonymous?: 'shared' | 'refuse' | undefined;
  /**
   * Documents the scheme serves beside the endpoint (OAuth protected-resource
   * metadata: `oauthResource(...).wellKnown` of `@ext/core/oauth`): the
   * answer for such a path, else `undefined`. `listen` asks it for every
   * path but the endpoint's; a server of your own mounts it at the root.
   */
  readonly wellKnown?: ((request: Request) => Response | undefined) | undefined;
}

/** The caller's auth info for the SDK (`undefined`: none), or the refusal to answer with. */
export type CallerGate<A extends SdkAuthInfo> = (
  request: Request,
  given: A | undefined,
) => Promise<A | Response | undefined>;

/**
 * Whether every request this endpoint serves names its own caller: some
 * scheme was stated, and no unidentified request is served as the shared
 * anonymous caller. Only such an endpoint may listen beyond loopback (SERVE-7).
 */
export function identifiesCallers(options: HttpIdentityOptions): boolean {
  return statesIdentity(options) && options.anonymous !== 'shared';
}

/** Whether the server author said how callers are identified. */
export function statesIdentity(options: HttpIdentityOptions): boolean {
  return options.authenticate !== undefined || options.identify !== undefined || options.anonymous !== undefined;
}

/**
 * The startup check (IDENT-7): an HTTP endpoint whose composition keeps
 * per-caller state must say how its callers are identified.
 */
export function assertIdentityStated(
  composed: ComposedServer | undefined,
  options: HttpIdentityOptions,
  where: string,
): void {
  if (composed === undefined || statesIdentity(options) || composed.callerState.length === 0) return;
  throw new ConfigurationError(
    'CALLERS_NOT_IDENTIFIED',
    `${where}: ${composed.callerState.join(', ')} keep${composed.callerState.length === 1 ? 's' : ''} state per caller, and nothing tells HTTP callers apart. ` +
      "Pass `authenticate` (OAuth: requireBearerAuth({ verifier }) from @modelcontextprotocol/server), `identify` (API keys, a proxy's identity header), " +
      "`anonymous: 'refuse'` when authentication happens in front of the handler (fetch(request, { authInfo })), " +
      "or `anonymous: 'shared'` to serve every caller as one principal.",
  );
}

/** Logs the one start-up warning of an endpoint that does not tell callers apart. */
export function warnIfShared(options: HttpIdentityOptions, logger: Logger, where: string): void {
  if (options.anonymous !== 'shared') return;
  logger.warn(
    `${where}: anonymous: 'shared': callers no scheme identifies are one principal ("${ANONYMOUS_PRINCIPAL}"); they share confirmation tokens, quotas and every other per-caller record`,
  );
}

function stamped(identity: CallerIdentity, scopes: readonly string[]): SdkAuthInfo {
  return stampIdentity({ token: '', clientId: '', scopes: [...scopes] }, identity);
}

function unauthorized(): Response {
  const body = {
    jsonrpc: '2.0',
    error: {
      code: -32000,
      message: 'Unauthorized: this server identifies its callers; send the credentials it expects',
    },
    id: null,
  };
  return Response.json(body, { status: 401 });
}

/**
 * The per-request gate (IDENT-6): auth info handed in by whatever ran in
 * front of the handler, else `identify`, else `authenticate`, else the
 * shared anonymous caller when chosen, else 401. Without any stated choice
 * the request passes as it came (its caller may stay unidentified).
 */
export function createCallerGate<A extends SdkAuthInfo>(options: HttpIdentityOptions<A>, where: string): CallerGate<A> {
  const { authenticate, identify } = options;
  const anonymous = options.anonymous ?? (statesIdentity(options) ? 'refuse' : undefined);
  return async (request, given) => {
    if (given !== undefined) return given;
    if (identify !== undefined) {
      const found = readIdentifyResult(await identify(request), `${where} identify`);
      if (found !== undefined) return stamped({ principal: found.principal, source: 'custom' }, found.scopes) as A;
    }
    if (authenticate !== undefined) return authenticate(request);
    if (anonymous === 'shared') return stamped({ principal: ANONYMOUS_PRINCIPAL, source: 'anonymous' }, []) as A;
    return anonymous === 'refuse' ? unauthorized() : undefined;
  };
}

/**
 * Whose share of the session table a session counts against: the principal
 * of an identified caller; `undefined` for the shared anonymous caller, who
 * stands for many people (one of them must not lose a session to another).
 */
export function sessionOwnerOf(authInfo: SdkAuthInfo | undefined): string | undefined {
  if (stampedIdentity(authInfo)?.source === 'anonymous') return undefined;
  return principalOf(authInfo);
}

/** The principal a request's auth info names, for binding a legacy-era session to its caller. */
export function principalOf(authInfo: SdkAuthInfo | undefined): string | undefined {
  if (authInfo === undefined) return undefined;
  const identity = stampedIdentity(authInfo);
  if (identity !== undefined) return identity.principal;
  const info: AuthInfo = {
    clientId: authInfo.clientId === '' ? undefined : authInfo.clientId,
    scopes: authInfo.scopes,
    extra: authInfo.extra,
  };
  return principalFromAuthInfo(info);
}

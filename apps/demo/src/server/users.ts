/**
 * The tracker's two demo users and the bearer-token verifier that knows
 * them. Every HTTP request is authenticated by the SDK's own bearer gate
 * (`requireBearerAuth`) with this verifier, so each caller is the OAuth
 * principal `oauth:<issuer>#<user>` and keeps its own confirmation tokens,
 * session state, quotas and every other per-caller record.
 *
 * The tokens are random per process unless given: the server prints them
 * at start, and the tour and the web console present them. A real
 * deployment swaps the verifier for one that checks its authorization
 * server's access tokens (the demo README shows JWTs checked against a JWKS).
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import {
  OAuthError,
  OAuthErrorCode,
  requireBearerAuth,
  type AuthInfo,
  type OAuthTokenVerifier,
} from '@modelcontextprotocol/server';

/** Who the demo knows. */
export const DEMO_USERS = ['alice', 'bob'] as const;
export type DemoUser = (typeof DEMO_USERS)[number];

/** The issuer the demo's tokens name (a real server names its authorization server). */
export const DEMO_ISSUER = 'urn:mcp-ext:tracker-demo';

/** The starting grant of every demo user: `@ext/permissions` starts from the token's scopes. */
const DEMO_SCOPES = ['tickets:read'];

/**
 * How long one verification of a token holds. The demo's tokens are fixed
 * secrets that never expire, but the SDK's bearer gate refuses auth info
 * without an expiry, so each verification says "good for the next hour",
 * counted from that verification: a server up for days keeps accepting them.
 */
export const VERIFICATION_LIFETIME_SECONDS = 60 * 60;

/** Each demo user's bearer token. */
export type DemoTokens = Readonly<Record<DemoUser, string>>;

/** Tokens shorter than this are refused: a guessable token is no authentication. */
export const MIN_TOKEN_LENGTH = 16;

/**
 * The demo users' tokens: `TRACKER_ALICE_TOKEN` / `TRACKER_BOB_TOKEN` when
 * set (so a client configured once keeps working across restarts), else
 * random ones. Throws on a token too short to be a secret.
 */
export function createDemoTokens(env: Readonly<Record<string, string | undefined>> = {}): DemoTokens {
  const token = (user: DemoUser): string => {
    const name = `TRACKER_${user.toUpperCase()}_TOKEN`;
    const given = env[name];
    if (given === undefined || given === '') return randomBytes(24).toString('base64url');
    if (given.length < MIN_TOKEN_LENGTH || !/^[\x21-\x7e]+$/.test(given)) {
      throw new RangeError(`${name} must be at least ${MIN_TOKEN_LENGTH} printable characters with no spaces`);
    }
    return given;
  };
  return { alice: token('alice'), bob: token('bob') };
}

/** The principal the core derives for a demo user (issuer + subject). */
export function demoPrincipal(user: DemoUser): string {
  return `oauth:${DEMO_ISSUER}#${user}`;
}

function sameToken(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/** Checks a bearer token against the demo users' tokens, in constant time per user. */
export function createDemoVerifier(tokens: DemoTokens): OAuthTokenVerifier {
  return {
    verifyAccessToken(token: string): Promise<AuthInfo> {
      const user = DEMO_USERS.find((name) => sameToken(tokens[name], token));
      if (user === undefined)
        return Promise.reject(new OAuthError(OAuthErrorCode.InvalidToken, 'Unknown bearer token'));
      return Promise.resolve({
        token,
        clientId: 'tracker-demo',
        scopes: [...DEMO_SCOPES],
        expiresAt: Math.floor(Date.now() / 1000) + VERIFICATION_LIFETIME_SECONDS,
        extra: { iss: DEMO_ISSUER, sub: user },
      });
    },
  };
}

/** The SDK's bearer gate with the demo verifier: the verified auth info, or the 401 challenge. */
export function demoAuthenticate(tokens: DemoTokens): (request: Request) => Promise<AuthInfo | Response> {
  return requireBearerAuth({ verifier: createDemoVerifier(tokens) });
}

/** Where the console asks who a bearer token belongs to (never an MCP request: no session, no effect). */
export const WHOAMI_PATH = '/console/whoami';

/**
 * `GET /console/whoami`: the demo user the request's bearer token names,
 * `{ "user": "bob" }`, or 401; `{ "anonymous": true }` when the server
 * does not identify callers. The console asks before it signs a tab in with
 * a token from a link, so a crafted link cannot switch a person's identity
 * without their knowing (login CSRF). It tells nothing the token's holder
 * does not already know.
 */
export function demoWhoami(tokens: DemoTokens | undefined): (request: Request) => Promise<Response> {
  const verifier = tokens === undefined ? undefined : createDemoVerifier(tokens);
  const noStore = { 'cache-control': 'no-store' };
  return async (request) => {
    if (verifier === undefined) return Response.json({ anonymous: true }, { headers: noStore });
    const [scheme, token] = (request.headers.get('authorization') ?? '').split(' ');
    const info =
      scheme?.toLowerCase() === 'bearer' && token !== undefined
        ? await verifier.verifyAccessToken(token).catch(() => undefined)
        : undefined;
    const user = info?.extra?.sub;
    if (typeof user !== 'string') return Response.json({ error: 'invalid_token' }, { status: 401, headers: noStore });
    return Response.json({ user }, { headers: noStore });
  };
}

/**
 * A real, certified OpenID provider (`oidc-provider` from npm) for end-to-end
 * tests of OAuth-protected resources: started on 127.0.0.1 at a free port over
 * plain HTTP, issuing access tokens by the client credentials grant.
 *
 * - JWT access tokens (RFC 9068, `typ: at+jwt`, RS256) carry `iss` (= `issuer`),
 *   `aud` (= the requested `resource`, RFC 8707), `sub` and `client_id` (both the
 *   client's id: a client credentials token has no end user), `scope`, `jti`,
 *   `iat`, `exp`. They cannot be introspected or revoked (the library refuses
 *   structured tokens at those endpoints).
 * - Opaque access tokens are introspected at `introspectionEndpoint`; the answer
 *   carries `client_id` but no `sub` (the library sets `sub` only for tokens of
 *   an end user).
 * - Which format a resource gets when a client asks the token endpoint itself:
 *   opaque for resources listed in `opaqueResources` or whose URL path ends in
 *   `/opaque`, JWT otherwise. `token()` always gets a JWT and `opaqueToken()`
 *   always an opaque token (they ask with a fixture-only request header).
 * - Storage is in memory, shared by the provider instances `rotateKeys()` swaps
 *   in, so opaque tokens outlive a rotation.
 */
import { generateKeyPair, randomBytes, randomUUID, type JsonWebKey } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import type {
  Adapter,
  AdapterPayload,
  ClientMetadata,
  Configuration,
  ProviderContext,
  Provider as ProviderClass,
} from 'oidc-provider';

/** Scopes every known client may ask for, and every resource accepts. */
export const PROVIDER_SCOPES = ['notes:read', 'notes:write', 'mcp:use'] as const;

export interface ProviderClientCredentials {
  readonly clientId: string;
  readonly clientSecret: string;
}

export interface TokenOptions {
  /** A key of `clients`; default `'agent-a'`. */
  readonly client?: string;
  /** The RFC 8707 resource indicator; becomes the token's `aud` exactly as given. */
  readonly resource: string;
  /** Space-separated scopes; default none (the token then carries no `scope`). */
  readonly scope?: string;
}

export interface RotateKeysOptions {
  /**
   * Whether the JWKS keeps publishing the previous signing key beside the new
   * one (default `true`, as providers do during a rotation: tokens signed before
   * still verify). `false` publishes only the new key.
   */
  readonly keepPrevious?: boolean;
}

export interface TestProvider {
  /** E.g. `http://127.0.0.1:PORT`, exactly what tokens carry as `iss` and discovery lists as `issuer`. */
  readonly issuer: string;
  readonly tokenEndpoint: string;
  readonly introspectionEndpoint: string;
  readonly revocationEndpoint: string;
  readonly jwksUri: string;
  /** The `kid` the provider signs JWT access tokens with now. */
  readonly currentKid: string;
  /** A JWT access token (RFC 9068, typ at+jwt) for `resource` by client credentials of `client` with `scope`. */
  token(options: TokenOptions): Promise<string>;
  /** An opaque access token for `resource`, whatever format the resource gets by configuration. */
  opaqueToken(options: TokenOptions): Promise<string>;
  /**
   * RFC 7009 revocation of an opaque token. `client` is a key of `clients`;
   * by default the resource server's `introspectionClient` revokes (allowed for
   * any token). JWT access tokens cannot be revoked (the provider refuses them).
   */
  revoke(token: string, client?: string): Promise<void>;
  /**
   * Replaces the signing key (new `kid`): tokens issued afterwards are signed
   * with the new key. The JWKS publishes the new key first and, unless
   * `keepPrevious: false`, the one before it (only one previous key: older
   * ones are dropped). The library cannot change keys live, so a new provider
   * instance (same issuer, same storage, same clients) takes over the same
   * HTTP server and port.
   */
  rotateKeys(options?: RotateKeysOptions): Promise<void>;
  /** Client credentials of the resource server itself, allowed to introspect (and revoke) any token. */
  readonly introspectionClient: ProviderClientCredentials;
  /**
   * Known clients (grant client_credentials, `client_secret_basic`):
   * `agent-a` and `agent-b` (two distinct principals, every scope of
   * `PROVIDER_SCOPES`) and `agent-reader` (only `notes:read mcp:use`).
   * Asking for a known scope the client is not allowed fails (`invalid_scope`);
   * a scope the provider does not know is silently left out of the token.
   */
  readonly clients: Readonly<Record<string, ProviderClientCredentials>>;
  close(): Promise<void>;
}

export interface StartProviderOptions {
  /** Resources that get opaque access tokens (besides any whose path ends in `/opaque`). */
  readonly opaqueResources?: readonly string[];
  /** Lifetime of client credentials access tokens; default 300. */
  readonly accessTokenTtlSeconds?: number;
}

/** Fixture-only header by which `token()`/`opaqueToken()` choose the format. */
const FORMAT_HEADER = 'x-test-access-token-format';
/** The known clients and the scopes each may ask for. */
const AGENTS: Readonly<Record<string, readonly string[]>> = {
  'agent-a': PROVIDER_SCOPES,
  'agent-b': PROVIDER_SCOPES,
  'agent-reader': ['notes:read', 'mcp:use'],
};
const RESOURCE_SERVER_CLIENT = 'resource-server';

const generateRsaKeyPair = promisify(generateKeyPair);

let library: Promise<typeof ProviderClass> | undefined;

/**
 * `oidc-provider`, loaded once. Its import warns "Unsupported runtime" on
 * Node.js 20 (it runs there, the warning is about support); that one line is
 * dropped.
 */
function loadProvider(): Promise<typeof ProviderClass> {
  library ??= (async () => {
    const warn = console.warn;
    console.warn = (...args: unknown[]) => {
      const [first] = args;
      if (typeof first === 'string' && first.startsWith('oidc-provider WARNING: Unsupported runtime')) return;
      warn(...args);
    };
    try {
      const { Provider } = await import('oidc-provider');
      return Provider;
    } finally {
      console.warn = warn;
    }
  })();
  return library;
}

/** An RS256 signing key as a private JWK with a fresh `kid`. */
async function newSigningKey(): Promise<JsonWebKey> {
  const { privateKey } = await generateRsaKeyPair('rsa', { modulusLength: 2048 });
  return { ...privateKey.export({ format: 'jwk' }), kid: `key-${randomUUID()}`, alg: 'RS256', use: 'sig' };
}

/** In-memory storage shared by every provider instance of one fixture (survives `rotateKeys`). */
function memoryAdapter(): (model: string) => Adapter {
  const entries = new Map<string, { payload: AdapterPayload; expiresAt: number }>();
  return (model) => {
    const key = (id: string) => `${model}:${id}`;
    const find = (id: string): Promise<AdapterPayload | undefined> => {
      const entry = entries.get(key(id));
      if (entry === undefined) return Promise.resolve(undefined);
      if (entry.expiresAt <= Date.now()) {
        entries.delete(key(id));
        return Promise.resolve(undefined);
      }
      return Promise.resolve(entry.payload);
    };
    const findBy = (field: string, value: string): Promise<AdapterPayload | undefined> => {
      for (const [k, entry] of entries) {
        if (k.startsWith(`${model}:`) && entry.payload[field] === value) return find(k.slice(model.length + 1));
      }
      return Promise.resolve(undefined);
    };
    return {
      upsert: (id, payload, expiresIn) => {
        const expiresAt = expiresIn === undefined ? Infinity : Date.now() + expiresIn * 1000;
        entries.set(key(id), { payload, expiresAt });
        return Promise.resolve();
      },
      find,
      findByUid: (uid) => findBy('uid', uid),
      findByUserCode: (userCode) => findBy('userCode', userCode),
      consume: (id) => {
        const entry = entries.get(key(id));
        if (entry !== undefined) entry.payload = { ...entry.payload, consumed: Math.floor(Date.now() / 1000) };
        return Promise.resolve();
      },
      destroy: (id) => {
        entries.delete(key(id));
        return Promise.resolve();
      },
      revokeByGrantId: (grantId) => {
        for (const [k, entry] of entries) if (entry.payload.grantId === grantId) entries.delete(k);
        return Promise.resolve();
      },
    };
  };
}

function secret(): string {
  return randomBytes(24).toString('base64url');
}

function basicAuth(client: ProviderClientCredentials): string {
  const pair = `${encodeURIComponent(client.clientId)}:${encodeURIComponent(client.clientSecret)}`;
  return `Basic ${Buffer.from(pair).toString('base64')}`;
}

function isOpaquePath(resource: string): boolean {
  const url = URL.parse(resource);
  return url !== null && url.pathname.replace(/\/+$/, '').endsWith('/opaque');
}

/** Starts a provider on 127.0.0.1 at a free port; `close()` it when done. */
export async function startProvider(options: StartProviderOptions = {}): Promise<TestProvider> {
  const Provider = await loadProvider();
  const ttl = options.accessTokenTtlSeconds ?? 300;
  const opaqueResources = new Set(options.opaqueResources ?? []);
  const adapter = memoryAdapter();

  const clients: Record<string, ProviderClientCredentials> = {};
  for (const name of Object.keys(AGENTS)) clients[name] = { clientId: name, clientSecret: secret() };
  const introspectionClient: ProviderClientCredentials = { clientId: RESOURCE_SERVER_CLIENT, clientSecret: secret() };
  const clientMetadata: ClientMetadata[] = [...Object.values(clients), introspectionClient].map((client) => ({
    client_id: client.clientId,
    client_secret: client.clientSecret,
    grant_types: ['client_credentials'],
    response_types: [],
    redirect_uris: [],
    scope: (AGENTS[client.clientId] ?? PROVIDER_SCOPES).join(' '),
    token_endpoint_auth_method: 'client_secret_basic',
  }));

  // The issuer needs the port: listen first, then hand requests to whichever provider instance is current.
  let handle: ((req: IncomingMessage, res: ServerResponse) => Promise<void>) | undefined;
  const server: Server = createServer((req, res) => {
    if (handle === undefined) {
      res.statusCode = 503;
      res.end();
      return;
    }
    void handle(req, res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const issuer = `http://127.0.0.1:${port}`;

  let keys: JsonWebKey[] = [await newSigningKey()];
  const currentKid = (): string => String(keys[0]?.kid);

  const configuration = (): Configuration => ({
    adapter,
    clients: clientMetadata.map((client) => ({ ...client })),
    jwks: { keys: keys.map((key) => ({ ...key })) },
    scopes: ['openid', ...PROVIDER_SCOPES],
    ttl: { ClientCredentials: ttl, AccessToken: ttl },
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      introspection: {
        enabled: true,
        allowedPolicy: (_ctx, caller, token) =>
          Promise.resolve(caller.clientId === RESOURCE_SERVER_CLIENT || caller.clientId === token.clientId),
      },
      revocation: {
        enabled: true,
        allowedPolicy: (_ctx, caller, token) =>
          Promise.resolve(caller.clientId === RESOURCE_SERVER_CLIENT || caller.clientId === token.clientId),
      },
      resourceIndicators: {
        enabled: true,
        getResourceServerInfo: (ctx: ProviderContext, resource: string) => {
          const asked = ctx.get(FORMAT_HEADER);
          const format =
            asked === 'jwt' || asked === 'opaque'
              ? asked
              : opaqueResources.has(resource) || isOpaquePath(resource)
                ? 'opaque'
                : 'jwt';
          return Promise.resolve({
            scope: PROVIDER_SCOPES.join(' '),
            audience: resource,
            accessTokenFormat: format,
            ...(format === 'jwt' ? { jwt: { sign: { alg: 'RS256', kid: currentKid() } } } : {}),
          });
        },
      },
    },
  });

  const install = (): void => {
    const provider = new Provider(issuer, configuration());
    handle = provider.callback();
  };
  install();

  const tokenEndpoint = `${issuer}/token`;
  const introspectionEndpoint = `${issuer}/token/introspection`;
  const revocationEndpoint = `${issuer}/token/revocation`;

  const credentialsOf = (name: string): ProviderClientCredentials => {
    const client = clients[name];
    if (client === undefined)
      throw new Error(`unknown test client "${name}" (known: ${Object.keys(clients).join(', ')})`);
    return client;
  };

  const requestToken = async (tokenOptions: TokenOptions, format: 'jwt' | 'opaque'): Promise<string> => {
    const body = new URLSearchParams({ grant_type: 'client_credentials', resource: tokenOptions.resource });
    if (tokenOptions.scope !== undefined) body.set('scope', tokenOptions.scope);
    const response = await fetch(tokenEndpoint, {
      method: 'POST',
      headers: { authorization: basicAuth(credentialsOf(tokenOptions.client ?? 'agent-a')), [FORMAT_HEADER]: format },
      body,
    });
    const answer = (await response.json()) as { access_token?: unknown };
    if (!response.ok || typeof answer.access_token !== 'string') {
      throw new Error(`token request failed (${response.status}): ${JSON.stringify(answer)}`);
    }
    return answer.access_token;
  };

  let closed = false;
  return {
    issuer,
    tokenEndpoint,
    introspectionEndpoint,
    revocationEndpoint,
    jwksUri: `${issuer}/jwks`,
    get currentKid() {
      return currentKid();
    },
    clients,
    introspectionClient,
    token: (tokenOptions) => requestToken(tokenOptions, 'jwt'),
    opaqueToken: (tokenOptions) => requestToken(tokenOptions, 'opaque'),
    revoke: async (token, client) => {
      const response = await fetch(revocationEndpoint, {
        method: 'POST',
        headers: { authorization: basicAuth(client === undefined ? introspectionClient : credentialsOf(client)) },
        body: new URLSearchParams({ token, token_type_hint: 'access_token' }),
      });
      if (!response.ok) throw new Error(`revocation failed (${response.status}): ${await response.text()}`);
    },
    rotateKeys: async (rotateOptions = {}) => {
      const next = await newSigningKey();
      keys = rotateOptions.keepPrevious === false ? [next] : [next, ...keys.slice(0, 1)];
      install();
    },
    close: async () => {
      if (closed) return;
      closed = true;
      handle = undefined;
      await new Promise<void>((resolve, reject) => {
        server.close((error) => {
          if (error === undefined) resolve();
          else reject(error);
        });
        server.closeAllConnections();
      });
    },
  };
}

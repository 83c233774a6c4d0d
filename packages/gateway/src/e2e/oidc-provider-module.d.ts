/**
 * The few parts of `oidc-provider` (v9, JavaScript without type declarations
 * and no `@types/oidc-provider` for v9) that the test fixture in
 * `oidc-provider.ts` uses. Not a description of the whole library.
 *
 * (Named apart from `oidc-provider.ts`: TypeScript would skip a `.d.ts` with
 * the same base name as a `.ts` file beside it.)
 */
declare module 'oidc-provider' {
  import type { JsonWebKey } from 'node:crypto';
  import type { IncomingMessage, ServerResponse } from 'node:http';

  /** What the provider keeps for one stored artefact (token, grant, ...). */
  export type AdapterPayload = Readonly<Record<string, unknown>>;

  /** Storage for one model (`ClientCredentials`, `Grant`, ...). */
  export interface Adapter {
    upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void>;
    find(id: string): Promise<AdapterPayload | undefined>;
    findByUserCode(userCode: string): Promise<AdapterPayload | undefined>;
    findByUid(uid: string): Promise<AdapterPayload | undefined>;
    consume(id: string): Promise<void>;
    destroy(id: string): Promise<void>;
    revokeByGrantId(grantId: string): Promise<void>;
  }

  /** The Koa context the provider passes to configuration callbacks (only what the fixture reads). */
  export interface ProviderContext {
    /** A request header's value, `''` when absent (Koa `ctx.get`). */
    get(field: string): string;
  }

  /** A registered client as callbacks see it. */
  export interface ProviderClient {
    readonly clientId: string;
  }

  /** A token as policy callbacks see it. */
  export interface ProviderToken {
    readonly kind: string;
    readonly clientId: string;
  }

  export interface ClientMetadata {
    client_id: string;
    client_secret?: string;
    grant_types?: string[];
    response_types?: string[];
    redirect_uris?: string[];
    scope?: string;
    token_endpoint_auth_method?: 'client_secret_basic' | 'client_secret_post';
  }

  export interface ResourceServerInfo {
    scope: string;
    audience?: string;
    accessTokenTTL?: number;
    accessTokenFormat?: 'opaque' | 'jwt';
    jwt?: { sign?: { alg: string; kid?: string } };
  }

  type Policy = (ctx: ProviderContext, client: ProviderClient, token: ProviderToken) => Promise<boolean>;

  export interface Configuration {
    adapter?: (model: string) => Adapter;
    clients?: ClientMetadata[];
    jwks?: { keys: JsonWebKey[] };
    scopes?: string[];
    ttl?: { ClientCredentials?: number; AccessToken?: number };
    features?: {
      devInteractions?: { enabled: boolean };
      clientCredentials?: { enabled: boolean };
      introspection?: { enabled: boolean; allowedPolicy?: Policy };
      revocation?: { enabled: boolean; allowedPolicy?: Policy };
      resourceIndicators?: {
        enabled: boolean;
        getResourceServerInfo?: (
          ctx: ProviderContext,
          resourceIndicator: string,
          client: ProviderClient,
        ) => Promise<ResourceServerInfo>;
      };
    };
  }

  /** The provider: a Koa application. */
  export class Provider {
    constructor(issuer: string, configuration?: Configuration);
    readonly issuer: string;
    /** Koa's request handler for `http.createServer`. */
    callback(): (req: IncomingMessage, res: ServerResponse) => Promise<void>;
  }
}

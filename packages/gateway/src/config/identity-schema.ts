/**
 * The schema of `identity`: who is calling over HTTP (API keys, OAuth
 * tokens, or one shared caller), and what the one local client served over
 * stdio holds.
 */
import Type from 'typebox';
import {
  SCOPE_PATTERN,
  ENV_NAME_PATTERN,
  CLAIM_PATH_PATTERN,
  ASYMMETRIC_ALGORITHM_PATTERN,
  API_KEY_PATTERN,
} from './patterns.js';

/** Who an API key identifies: a principal, or a principal and the scopes the key grants. */
export const ApiKeyCallerSchema = Type.Union(
  [
    Type.String({ minLength: 1, description: 'The principal.' }),
    Type.Object(
      {
        principal: Type.String({ minLength: 1, description: 'The principal.' }),
        scopes: Type.Optional(
          Type.Array(Type.String({ pattern: SCOPE_PATTERN }), {
            description: 'Scopes the key grants, as an OAuth token would: the `scopes` a policy requires.',
          }),
        ),
      },
      { additionalProperties: false },
    ),
  ],
  { description: 'A principal, or `{ principal, scopes }`.' },
);

const ClaimPath = (description: string) => Type.String({ pattern: CLAIM_PATH_PATTERN, description });

/** A resource server's own client at the issuer, for RFC 7662 introspection of opaque tokens. */
export const IntrospectionSchema = Type.Object(
  {
    endpoint: Type.Optional(
      Type.String({
        format: 'uri',
        pattern: '^https?://',
        description: 'Default: the issuer metadata’s `introspection_endpoint`.',
      }),
    ),
    clientId: Type.String({ minLength: 1, description: 'The gateway’s client id at the issuer.' }),
    clientSecretEnv: Type.String({
      pattern: ENV_NAME_PATTERN,
      description: 'The environment variable holding its secret (secrets stay out of the file).',
    }),
    cacheSeconds: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 3600,
        default: 30,
        description: 'How long an active answer is reused (never past the token’s `exp`); 0 asks every time.',
      }),
    ),
  },
  { additionalProperties: false, description: 'Opaque (non-JWT) access tokens are asked about at the issuer.' },
);

/** OAuth 2.1 bearer tokens from an identity provider. */
export const OAuthSchema = Type.Object(
  {
    issuer: Type.String({
      format: 'uri',
      pattern: '^https?://',
      description: 'The identity provider’s issuer; tokens must carry it as `iss`. `https` unless on loopback.',
    }),
    audience: Type.String({
      format: 'uri',
      pattern: '^https?://',
      description: 'The gateway’s public MCP URL (RFC 8707); tokens must name it in `aud`.',
    }),
    jwksUri: Type.Optional(
      Type.String({ format: 'uri', pattern: '^https?://', description: 'Default: discovered from the issuer.' }),
    ),
    algorithms: Type.Optional(
      Type.Array(Type.String({ pattern: ASYMMETRIC_ALGORITHM_PATTERN }), {
        minItems: 1,
        description: 'Signature algorithms accepted. Default RS256, PS256, ES256, EdDSA.',
      }),
    ),
    clockToleranceSeconds: Type.Optional(
      Type.Integer({ minimum: 0, maximum: 300, default: 30, description: 'Clock skew tolerated on `exp` and `nbf`.' }),
    ),
    keyRefreshCooldownSeconds: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 3600,
        default: 30,
        description: 'A token signed by an unknown key refetches the issuer’s keys at most this often.',
      }),
    ),
    requiredScopes: Type.Optional(
      Type.Array(Type.String({ pattern: SCOPE_PATTERN }), {
        description: 'Scopes every request needs (`403 insufficient_scope` otherwise).',
      }),
    ),
    introspection: Type.Optional(IntrospectionSchema),
    claims: Type.Optional(
      Type.Object(
        {
          principal: Type.Optional(ClaimPath('The claim naming the caller. Default `sub`.')),
          scopes: Type.Optional(ClaimPath('The claim holding scopes. Default `scope`, else `scp`.')),
          roles: Type.Optional(ClaimPath('A dotted path to roles or groups, e.g. `realm_access.roles`.')),
        },
        { additionalProperties: false, description: 'Where the caller, scopes and roles are read from.' },
      ),
    ),
  },
  {
    additionalProperties: false,
    description: 'Callers identified by OAuth access tokens (the gateway as a resource server).',
  },
);

/** The one client of a gateway served over stdio: core's principal `local`, holding the scopes granted here. */
export const StdioCallerSchema = Type.Object(
  {
    scopes: Type.Array(Type.String({ pattern: SCOPE_PATTERN }), {
      description: 'Scopes the local client holds, as an API key’s or a token’s would: the `scopes` a policy requires.',
    }),
  },
  {
    additionalProperties: false,
    description:
      'The one local client served over `--stdio` (principal `local`; it holds no scope unless granted here).',
  },
);

export const IdentitySchema = Type.Object(
  {
    apiKeys: Type.Optional(
      Type.Record(Type.String({ pattern: API_KEY_PATTERN }), ApiKeyCallerSchema, {
        additionalProperties: false,
        description: 'Bearer API keys and the caller each one identifies.',
      }),
    ),
    anonymous: Type.Optional(
      Type.Boolean({
        default: false,
        description: 'Serve callers nothing identifies as one shared principal (local use only).',
      }),
    ),
    oauth: Type.Optional(OAuthSchema),
    stdio: Type.Optional(StdioCallerSchema),
  },
  {
    additionalProperties: false,
    description: 'Who is calling over HTTP, and what the one local client served over `--stdio` holds.',
  },
);

/** The manifest extension's identifiers and wire shapes (TypeBox schemas and their JSON Schema document). */
import { extensionId } from '@ext/core';
import Type, { type Static } from 'typebox';

/** The extension identifier: `io.github.mcp-ext/manifest`. */
export const MANIFEST_ID = extensionId('manifest');

/** npm package name; the core negotiates extensions by it. */
export const MANIFEST_PACKAGE = '@ext/manifest';

/** Wire contract version this package speaks. */
export const MANIFEST_WIRE_VERSION = '1.0';

/** `manifest_version` of every manifest document (the seed schema's constant). */
export const MANIFEST_DOCUMENT_VERSION = '0.1.0';

/** Where this package's JSON Schemas are identified (one folder per wire version). */
export const SCHEMA_BASE = 'https://mcp-ext.github.io/schemas/manifest/1.0';

/** Tool names a manifest can carry (seed `ToolDefinition.name`). */
export const TOOL_NAME_PATTERN_SOURCE = '^[a-z][a-z0-9_]*$';

/** Server versions a manifest can carry (seed `server.version`: starts like semver). */
export const SERVER_VERSION_PATTERN_SOURCE = '^\\d+\\.\\d+\\.\\d+';

/** Longest etag a client may send back. */
export const MAX_ETAG_LENGTH = 256;

/** The seed's names for optional extensions (`supported_extensions` items). */
export const SUPPORTED_EXTENSION_NAMES = [
  'streaming',
  'progress_notifications',
  'idempotency',
  'transactions',
  'session_state',
  'intent_hints',
  'provenance',
  'human_in_the_loop',
  'data_references',
  'subscribe_notify',
  'server_recommendations',
  'structured_errors',
  'multimodal_signatures',
  'conformance',
] as const;
export type SupportedExtensionName = (typeof SUPPORTED_EXTENSION_NAMES)[number];

export const AUTH_METHODS = ['oauth2_device', 'oauth2_code', 'api_key', 'bearer_token', 'none'] as const;
export type AuthMethod = (typeof AUTH_METHODS)[number];

export const RISK_LEVELS = ['safe', 'reversible', 'destructive'] as const;
export const COST_CATEGORIES = ['free', 'metered', 'requires_approval'] as const;
export const LATENCY_CLASSES = ['instant', 'seconds', 'minutes'] as const;
export type LatencyClass = (typeof LATENCY_CLASSES)[number];
export const MATCH_CONFIDENCES = ['high', 'medium', 'low'] as const;

const JsonObject = Type.Record(Type.String(), Type.Unknown());

// Nested shapes are built by functions, so one document never holds an `$id` twice.
const costInfo = (options: Record<string, string> = {}) =>
  Type.Object(
    {
      category: Type.Optional(Type.Enum(COST_CATEGORIES)),
      estimated_units: Type.Optional(Type.Number()),
      unit_label: Type.Optional(Type.String()),
    },
    options,
  );

const toolDefinition = (options: Record<string, string> = {}) =>
  Type.Object(
    {
      name: Type.String({ pattern: TOOL_NAME_PATTERN_SOURCE }),
      description: Type.String(),
      input_schema: JsonObject,
      output_schema: Type.Optional(JsonObject),
      input_types: Type.Optional(Type.Array(Type.String())),
      output_types: Type.Optional(Type.Array(Type.String())),
      max_input_size_bytes: Type.Optional(Type.Integer()),
      cost: Type.Optional(costInfo()),
      latency: Type.Optional(Type.Enum(LATENCY_CLASSES)),
      idempotent: Type.Optional(Type.Boolean()),
      requires_confirmation: Type.Optional(Type.Boolean()),
      confirmation_message: Type.Optional(Type.String()),
      risk_level: Type.Optional(Type.Enum(RISK_LEVELS)),
      required_scopes: Type.Optional(Type.Array(Type.String())),
      supports_streaming: Type.Optional(Type.Boolean()),
      supports_pagination: Type.Optional(Type.Boolean()),
    },
    options,
  );

const scopeDefinition = (options: Record<string, string> = {}) =>
  Type.Object(
    {
      name: Type.String(),
      description: Type.String(),
      grants: Type.Optional(Type.Array(Type.String())),
    },
    options,
  );

const authCapabilities = (options: Record<string, string> = {}) =>
  Type.Object(
    {
      methods: Type.Optional(Type.Array(Type.Enum(AUTH_METHODS))),
      scopes: Type.Optional(Type.Array(scopeDefinition())),
      session_ttl_seconds: Type.Optional(Type.Integer()),
    },
    options,
  );

const rateLimits = (options: Record<string, string> = {}) =>
  Type.Object(
    {
      requests_per_minute: Type.Optional(Type.Integer()),
      requests_per_day: Type.Optional(Type.Integer()),
      remaining: Type.Optional(Type.Integer()),
      resets_at: Type.Optional(Type.String({ format: 'date-time' })),
    },
    options,
  );

const serverRecommendation = (options: Record<string, string> = {}) =>
  Type.Object(
    {
      capability: Type.String(),
      server_name: Type.String(),
      registry_url: Type.Optional(Type.String({ format: 'uri' })),
      auth_flow: Type.Optional(Type.String()),
      match_confidence: Type.Optional(Type.Enum(MATCH_CONFIDENCES)),
    },
    options,
  );

const serverInfo = () =>
  Type.Object({
    name: Type.String(),
    version: Type.String({ pattern: SERVER_VERSION_PATTERN_SOURCE }),
    mcp_spec_version: Type.String(),
    description: Type.Optional(Type.String()),
    homepage: Type.Optional(Type.String({ format: 'uri' })),
  });

const serviceManifest = (options: Record<string, string> = {}) =>
  Type.Object(
    {
      manifest_version: Type.Literal(MANIFEST_DOCUMENT_VERSION),
      server: serverInfo(),
      auth: Type.Optional(authCapabilities()),
      tools: Type.Array(toolDefinition()),
      supported_extensions: Type.Optional(Type.Array(Type.Enum(SUPPORTED_EXTENSION_NAMES))),
      rate_limits: Type.Optional(rateLimits()),
      recommendations: Type.Optional(Type.Array(serverRecommendation())),
      /**
       * Every advertised extension identifier with its wire version. Not in
       * the seed (allowed: the seed leaves documents open): the seed's
       * `supported_extensions` names only some of this project's extensions.
       */
      extensions: Type.Optional(Type.Record(Type.String(), Type.String())),
    },
    options,
  );

/** The seed's `CostInfo`. */
export const CostInfoSchema = costInfo({ $id: `${SCHEMA_BASE}/cost-info.json`, title: 'CostInfo' });
export type CostInfo = Static<typeof CostInfoSchema>;

/** One tool in a manifest (seed `ToolDefinition`). */
export const ToolDefinitionSchema = toolDefinition({
  $id: `${SCHEMA_BASE}/tool-definition.json`,
  title: 'ToolDefinition',
});
export type ToolDefinition = Static<typeof ToolDefinitionSchema>;

/** A permission scope in a manifest (seed `ScopeDefinition`: `grants` lists the tools it unlocks). */
export const ScopeDefinitionSchema = scopeDefinition({
  $id: `${SCHEMA_BASE}/scope-definition.json`,
  title: 'ScopeDefinition',
});
export type ScopeDefinition = Static<typeof ScopeDefinitionSchema>;

/** Authentication methods and scopes (seed `AuthCapabilities`). */
export const AuthCapabilitiesSchema = authCapabilities({
  $id: `${SCHEMA_BASE}/auth-capabilities.json`,
  title: 'AuthCapabilities',
});
export type AuthCapabilities = Static<typeof AuthCapabilitiesSchema>;

/** Server-wide rate limits (seed `RateLimits`). */
export const RateLimitsSchema = rateLimits({ $id: `${SCHEMA_BASE}/rate-limits.json`, title: 'RateLimits' });
export type RateLimits = Static<typeof RateLimitsSchema>;

/** Another server recommended for a capability (seed `ServerRecommendation`). */
export const ServerRecommendationSchema = serverRecommendation({
  $id: `${SCHEMA_BASE}/server-recommendation.json`,
  title: 'ServerRecommendation',
});
export type ServerRecommendation = Static<typeof ServerRecommendationSchema>;

/** The service manifest document (seed `service-manifest.json`). */
export const ServiceManifestSchema = serviceManifest({
  $id: `${SCHEMA_BASE}/service-manifest.json`,
  title: 'ServiceManifest',
});
export type ServiceManifest = Static<typeof ServiceManifestSchema>;

/** What the server advertises in `capabilities.extensions[MANIFEST_ID]`. Unknown fields are ignored. */
export const ManifestServerSettingsSchema = Type.Object(
  {
    version: Type.String(),
    ttl_seconds: Type.Optional(Type.Integer({ minimum: 1 })),
  },
  { $id: `${SCHEMA_BASE}/server-settings.json`, title: 'ManifestServerSettings' },
);
export type ManifestServerSettings = Static<typeof ManifestServerSettingsSchema>;

/** What the client advertises: only the wire version. Unknown fields are ignored. */
export const ManifestClientSettingsSchema = Type.Object(
  { version: Type.String() },
  { $id: `${SCHEMA_BASE}/client-settings.json`, title: 'ManifestClientSettings' },
);
export type ManifestClientSettings = Static<typeof ManifestClientSettingsSchema>;

/** `Tool._meta[MANIFEST_ID]`: what only the tool's author can say about it. */
export const ManifestToolMetaSchema = Type.Object(
  { supports_pagination: Type.Optional(Type.Boolean()) },
  { $id: `${SCHEMA_BASE}/tool-meta.json`, title: 'ManifestToolMeta' },
);
export type ManifestToolMeta = Static<typeof ManifestToolMetaSchema>;

/** Params of `<id>/get`: the etag of the manifest the client holds, if any. */
export const ManifestGetParamsSchema = Type.Object(
  { etag: Type.Optional(Type.String({ minLength: 1, maxLength: MAX_ETAG_LENGTH })) },
  { $id: `${SCHEMA_BASE}/get-params.json`, title: 'ManifestGetParams' },
);
export type ManifestGetParams = Static<typeof ManifestGetParamsSchema>;

/**
 * Result of `<id>/get`: the current etag and how long to rely on it, and
 * the manifest unless the client's etag is current (`not_modified`).
 */
export const ManifestGetResultSchema = Type.Object(
  {
    etag: Type.String({ minLength: 1, maxLength: MAX_ETAG_LENGTH }),
    ttl_seconds: Type.Integer({ minimum: 1 }),
    not_modified: Type.Boolean(),
    manifest: Type.Optional(serviceManifest()),
  },
  { $id: `${SCHEMA_BASE}/get-result.json`, title: 'ManifestGetResult' },
);
export type ManifestGetResult = Static<typeof ManifestGetResultSchema>;

/** Params of `notifications/<id>/changed`: the etag of the new manifest. */
export const ManifestChangedParamsSchema = Type.Object(
  { etag: Type.String({ minLength: 1, maxLength: MAX_ETAG_LENGTH }) },
  { $id: `${SCHEMA_BASE}/changed-params.json`, title: 'ManifestChangedParams' },
);
export type ManifestChangedParams = Static<typeof ManifestChangedParamsSchema>;

/**
 * The static server card served over HTTP: the shape of the MCP Server
 * Card draft (SEP-2127: identity, description, `remotes`), carrying the
 * manifest under `_meta[MANIFEST_ID]`.
 */
export const ServerCardSchema = Type.Object(
  {
    name: Type.String({ minLength: 1 }),
    version: Type.String({ minLength: 1 }),
    description: Type.String(),
    title: Type.Optional(Type.String()),
    websiteUrl: Type.Optional(Type.String({ format: 'uri' })),
    remotes: Type.Optional(
      Type.Array(
        Type.Object({
          type: Type.Literal('streamable-http'),
          url: Type.String({ format: 'uri' }),
          supportedProtocolVersions: Type.Optional(Type.Array(Type.String())),
        }),
      ),
    ),
    _meta: Type.Record(Type.String(), Type.Unknown()),
  },
  { $id: `${SCHEMA_BASE}/server-card.json`, title: 'ServerCard' },
);
export type ServerCard = Static<typeof ServerCardSchema>;

/** The change notification's method for an identifier: `notifications/<id>/changed`. */
export function manifestChangedMethod(id: string = MANIFEST_ID): string {
  return `notifications/${id}/changed`;
}

/** The method that returns the manifest: `<id>/get`. */
export function manifestGetMethod(id: string = MANIFEST_ID): string {
  return `${id}/get`;
}

/** Every wire shape of this extension, by name, as JSON Schema 2020-12. */
export const MANIFEST_SCHEMAS = {
  ServiceManifest: ServiceManifestSchema,
  ToolDefinition: ToolDefinitionSchema,
  CostInfo: CostInfoSchema,
  ScopeDefinition: ScopeDefinitionSchema,
  AuthCapabilities: AuthCapabilitiesSchema,
  RateLimits: RateLimitsSchema,
  ServerRecommendation: ServerRecommendationSchema,
  ManifestServerSettings: ManifestServerSettingsSchema,
  ManifestClientSettings: ManifestClientSettingsSchema,
  ManifestToolMeta: ManifestToolMetaSchema,
  ManifestGetParams: ManifestGetParamsSchema,
  ManifestGetResult: ManifestGetResultSchema,
  ManifestChangedParams: ManifestChangedParamsSchema,
  ServerCard: ServerCardSchema,
} as const;

/**
 * Every wire shape as one JSON Schema 2020-12 document (shipped as
 * `schema.json`), each shape an embedded resource under `$defs`.
 */
export function manifestJsonSchema(): Record<string, unknown> {
  const defs = Object.fromEntries(
    Object.entries(MANIFEST_SCHEMAS).map(([name, schema]) => [name, JSON.parse(JSON.stringify(schema)) as unknown]),
  );
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: `${SCHEMA_BASE}/manifest.json`,
    title: 'MCP manifest extension (io.github.mcp-ext/manifest)',
    description:
      'Wire payloads of the manifest extension: the service manifest document, settings, tool metadata, the get method, the change notification and the server card.',
    $defs: defs,
  };
}

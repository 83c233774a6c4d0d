/** The wire contract of `@ext/permissions`: identifiers, the TypeBox schema of every payload, and the JSON Schema document. */
import { extensionId } from '@ext/core';
import Type, { type Static } from 'typebox';

/** The extension identifier: `io.github.mcp-ext/permissions`. */
export const PERMISSIONS_ID = extensionId('permissions');

/** npm package name; the core negotiates extensions by it. */
export const PERMISSIONS_PACKAGE = '@ext/permissions';

/** Wire contract version this package speaks. */
export const PERMISSIONS_WIRE_VERSION = '1.0';

/** Where this package's JSON Schemas are identified (one folder per wire version). */
export const SCHEMA_BASE = 'https://mcp-ext.github.io/schemas/permissions/1.0';

/** An OAuth 2.1 scope token (RFC 6749 section 3.3): printable ASCII without space, `"` or `\`. */
export const SCOPE_PATTERN_SOURCE = '^[\\x21\\x23-\\x5B\\x5D-\\x7E]{1,128}$';

/** A scope the server declares: what it lets the caller do, and which tools need it. */
// Shapes nested in others are built twice (with and without `$id`), so one document never holds an `$id` twice.
const scopeDefinition = (options: Record<string, string> = {}) =>
  Type.Object(
    {
      name: Type.String({ pattern: SCOPE_PATTERN_SOURCE }),
      /** A verb phrase that completes "can ...", e.g. "read tickets". */
      description: Type.String(),
      tools: Type.Array(Type.String()),
      /** Granted on negotiation without asking anyone (low risk). */
      auto_grant: Type.Optional(Type.Boolean()),
    },
    options,
  );
export const ScopeDefinitionSchema = scopeDefinition({
  $id: `${SCHEMA_BASE}/scope-definition.json`,
  title: 'ScopeDefinition',
});
export type ScopeDefinition = Static<typeof ScopeDefinitionSchema>;

/** What the server advertises in `capabilities.extensions[PERMISSIONS_ID]`. Unknown fields are ignored. */
export const PermissionsServerSettingsSchema = Type.Object(
  {
    version: Type.String(),
    scopes: Type.Optional(Type.Array(scopeDefinition())),
    session_ttl_seconds: Type.Optional(Type.Integer({ minimum: 1 })),
    max_session_seconds: Type.Optional(Type.Integer({ minimum: 1 })),
    elevation_url: Type.Optional(Type.String({ format: 'uri' })),
  },
  { $id: `${SCHEMA_BASE}/server-settings.json`, title: 'PermissionsServerSettings' },
);
export type PermissionsServerSettings = Static<typeof PermissionsServerSettingsSchema>;

/** What the client advertises: only the wire version. */
export const PermissionsClientSettingsSchema = Type.Object(
  { version: Type.String() },
  { $id: `${SCHEMA_BASE}/client-settings.json`, title: 'PermissionsClientSettings' },
);
export type PermissionsClientSettings = Static<typeof PermissionsClientSettingsSchema>;

/** `Tool._meta[PERMISSIONS_ID]`: the scopes a call of the tool needs (all of them). */
export const PermissionsToolMetaSchema = Type.Object(
  { required_scopes: Type.Array(Type.String({ pattern: SCOPE_PATTERN_SOURCE })) },
  { $id: `${SCHEMA_BASE}/tool-meta.json`, title: 'PermissionsToolMeta' },
);
export type PermissionsToolMeta = Static<typeof PermissionsToolMetaSchema>;

/** `params._meta[PERMISSIONS_ID]` of a request: the negotiated session the caller uses. */
export const PermissionsRequestMetaSchema = Type.Object(
  { session_token: Type.String({ minLength: 1, maxLength: 512 }) },
  { $id: `${SCHEMA_BASE}/request-meta.json`, title: 'PermissionsRequestMeta' },
);
export type PermissionsRequestMeta = Static<typeof PermissionsRequestMetaSchema>;

/** Params of `<id>/check` (seed `PermissionCheckRequest`). */
export const PermissionCheckRequestSchema = Type.Object(
  {
    tool: Type.String(),
    scopes_held: Type.Array(Type.String()),
    parameters: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  },
  { $id: `${SCHEMA_BASE}/check-request.json`, title: 'PermissionCheckRequest' },
);
export type PermissionCheckRequest = Static<typeof PermissionCheckRequestSchema>;

/** Result of `<id>/check` (seed `PermissionCheckResponse`). */
export const PermissionCheckResponseSchema = Type.Object(
  {
    allowed: Type.Boolean(),
    missing_scopes: Type.Optional(Type.Array(Type.String())),
    elevation_url: Type.Optional(Type.String({ format: 'uri' })),
    reason: Type.Optional(Type.String()),
  },
  { $id: `${SCHEMA_BASE}/check-response.json`, title: 'PermissionCheckResponse' },
);
export type PermissionCheckResponse = Static<typeof PermissionCheckResponseSchema>;

/** A negotiated session (seed `SessionToken`). */
const sessionToken = (options: Record<string, string> = {}) =>
  Type.Object(
    {
      token: Type.String(),
      scopes: Type.Array(Type.String()),
      expires_at: Type.String({ format: 'date-time' }),
      refresh_token: Type.Optional(Type.String()),
      inactivity_timeout_seconds: Type.Optional(Type.Integer()),
    },
    options,
  );
export const SessionTokenSchema = sessionToken({ $id: `${SCHEMA_BASE}/session-token.json`, title: 'SessionToken' });
export type SessionToken = Static<typeof SessionTokenSchema>;

/** Params of `<id>/negotiate` (seed `ScopeNegotiationRequest`). */
export const ScopeNegotiationRequestSchema = Type.Object(
  {
    requested_scopes: Type.Array(Type.String(), { maxItems: 100 }),
    justification: Type.Optional(Type.String({ maxLength: 2000 })),
    ttl_seconds: Type.Optional(Type.Integer({ minimum: 1 })),
  },
  { $id: `${SCHEMA_BASE}/negotiate-request.json`, title: 'ScopeNegotiationRequest' },
);
export type ScopeNegotiationRequest = Static<typeof ScopeNegotiationRequestSchema>;

/** One refused scope and why. */
const deniedScope = (options: Record<string, string> = {}) =>
  Type.Object({ scope: Type.String(), reason: Type.String() }, options);
export const DeniedScopeSchema = deniedScope({ $id: `${SCHEMA_BASE}/denied-scope.json`, title: 'DeniedScope' });
export type DeniedScope = Static<typeof DeniedScopeSchema>;

/** Result of `<id>/negotiate` (seed `ScopeNegotiationResponse`). */
export const ScopeNegotiationResponseSchema = Type.Object(
  {
    granted_scopes: Type.Array(Type.String()),
    denied_scopes: Type.Optional(Type.Array(deniedScope())),
    session: sessionToken(),
  },
  { $id: `${SCHEMA_BASE}/negotiate-response.json`, title: 'ScopeNegotiationResponse' },
);
export type ScopeNegotiationResponse = Static<typeof ScopeNegotiationResponseSchema>;

/** Every wire shape of this extension, by name, as JSON Schema 2020-12. */
export const PERMISSIONS_SCHEMAS = {
  ScopeDefinition: ScopeDefinitionSchema,
  PermissionsServerSettings: PermissionsServerSettingsSchema,
  PermissionsClientSettings: PermissionsClientSettingsSchema,
  PermissionsToolMeta: PermissionsToolMetaSchema,
  PermissionsRequestMeta: PermissionsRequestMetaSchema,
  PermissionCheckRequest: PermissionCheckRequestSchema,
  PermissionCheckResponse: PermissionCheckResponseSchema,
  SessionToken: SessionTokenSchema,
  ScopeNegotiationRequest: ScopeNegotiationRequestSchema,
  DeniedScope: DeniedScopeSchema,
  ScopeNegotiationResponse: ScopeNegotiationResponseSchema,
} as const;

/**
 * Every wire shape as one JSON Schema 2020-12 document (shipped as
 * `schema.json`), each shape an embedded resource under `$defs`.
 */
export function permissionsJsonSchema(): Record<string, unknown> {
  const defs = Object.fromEntries(
    Object.entries(PERMISSIONS_SCHEMAS).map(([name, schema]) => [name, JSON.parse(JSON.stringify(schema)) as unknown]),
  );
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: `${SCHEMA_BASE}/permissions.json`,
    title: 'MCP permissions extension (io.github.mcp-ext/permissions)',
    description:
      'Wire payloads of the permissions extension: settings, tool metadata, request _meta, check and negotiate methods.',
    $defs: defs,
  };
}

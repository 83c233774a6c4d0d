/** The wire contract: the identifier, the version, and one TypeBox schema per payload (shipped as `schema.json`). */
import { extensionId } from '@ext/core';
import Type, { type Static } from 'typebox';

/** The extension identifier: `io.github.mcp-ext/idempotency`. */
export const IDEMPOTENCY_ID = extensionId('idempotency');

/** npm package name; the core negotiates extensions by it. */
export const IDEMPOTENCY_PACKAGE = '@ext/idempotency';

/** Wire contract version this package speaks. */
export const IDEMPOTENCY_WIRE_VERSION = '1.0';

/** Allowed idempotency keys (seed schema `IdempotentRequest.idempotency_key`). */
export const IDEMPOTENCY_KEY_PATTERN_SOURCE = '^[a-zA-Z0-9_\\-:.]{1,128}$';

/** TTL the server applies when the client asks for none (seed schema default: 24 hours). */
export const DEFAULT_TTL_SECONDS = 86_400;

/** Where this package's JSON Schemas are identified (one folder per wire version). */
export const SCHEMA_BASE = 'https://mcp-ext.github.io/schemas/idempotency/1.0';

/** `params._meta[IDEMPOTENCY_ID]`: the key a client sends with a tool call. */
export const IdempotencyRequestMetaSchema = Type.Object(
  {
    idempotency_key: Type.String({ pattern: IDEMPOTENCY_KEY_PATTERN_SOURCE }),
    idempotency_ttl_seconds: Type.Optional(Type.Integer({ minimum: 1 })),
  },
  { $id: `${SCHEMA_BASE}/request-meta.json`, title: 'IdempotencyRequestMeta' },
);
export type IdempotencyRequestMeta = Static<typeof IdempotencyRequestMetaSchema>;

/** `result._meta[IDEMPOTENCY_ID]`: how the server handled the key. */
export const IdempotencyResultMetaSchema = Type.Object(
  {
    idempotency_key: Type.String(),
    was_replay: Type.Boolean(),
    original_timestamp: Type.String({ format: 'date-time' }),
  },
  { $id: `${SCHEMA_BASE}/result-meta.json`, title: 'IdempotencyResultMeta' },
);
export type IdempotencyResultMeta = Static<typeof IdempotencyResultMetaSchema>;

/** `Tool._meta[IDEMPOTENCY_ID]`: whether the server honours keys for this tool. */
export const IdempotencyToolMetaSchema = Type.Object(
  { idempotent_capable: Type.Boolean() },
  { $id: `${SCHEMA_BASE}/tool-meta.json`, title: 'IdempotencyToolMeta' },
);
export type IdempotencyToolMeta = Static<typeof IdempotencyToolMetaSchema>;

/** What the server advertises in `capabilities.extensions[IDEMPOTENCY_ID]`. Unknown fields are ignored. */
export const IdempotencyServerSettingsSchema = Type.Object(
  {
    version: Type.String(),
    default_ttl_seconds: Type.Optional(Type.Integer({ minimum: 1 })),
    max_ttl_seconds: Type.Optional(Type.Integer({ minimum: 1 })),
  },
  { $id: `${SCHEMA_BASE}/server-settings.json`, title: 'IdempotencyServerSettings' },
);
export type IdempotencyServerSettings = Static<typeof IdempotencyServerSettingsSchema>;

/** What the client advertises: only the wire version. Unknown fields are ignored. */
export const IdempotencyClientSettingsSchema = Type.Object(
  { version: Type.String() },
  { $id: `${SCHEMA_BASE}/client-settings.json`, title: 'IdempotencyClientSettings' },
);
export type IdempotencyClientSettings = Static<typeof IdempotencyClientSettingsSchema>;

/** Every wire shape of this extension, by name, as JSON Schema 2020-12. */
export const IDEMPOTENCY_SCHEMAS = {
  IdempotencyRequestMeta: IdempotencyRequestMetaSchema,
  IdempotencyResultMeta: IdempotencyResultMetaSchema,
  IdempotencyToolMeta: IdempotencyToolMetaSchema,
  IdempotencyServerSettings: IdempotencyServerSettingsSchema,
  IdempotencyClientSettings: IdempotencyClientSettingsSchema,
} as const;

/**
 * Every wire shape as one JSON Schema 2020-12 document (shipped as
 * `schema.json`), each shape an embedded resource under `$defs`.
 */
export function idempotencyJsonSchema(): Record<string, unknown> {
  const defs = Object.fromEntries(
    Object.entries(IDEMPOTENCY_SCHEMAS).map(([name, schema]) => [name, JSON.parse(JSON.stringify(schema)) as unknown]),
  );
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: `${SCHEMA_BASE}/idempotency.json`,
    title: 'MCP idempotency extension (io.github.mcp-ext/idempotency)',
    description:
      'Wire payloads of the idempotency extension: request and result _meta entries, tool metadata, settings.',
    $defs: defs,
  };
}

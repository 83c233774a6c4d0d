/** The wire contract of `@ext/session-state`: identifiers, error codes, the TypeBox schema of every payload, and the JSON Schema document. */
import { extensionId } from '@ext/core';
import Type, { type Static } from 'typebox';

/** The extension identifier: `io.github.mcp-ext/session-state`. */
export const SESSION_STATE_ID = extensionId('session-state');

/** npm package name; the core negotiates extensions by it. */
export const SESSION_STATE_PACKAGE = '@ext/session-state';

/** Wire contract version this package speaks. */
export const SESSION_STATE_WIRE_VERSION = '1.0';

/** Largest token either side accepts unless configured otherwise (64 KiB, as the seed recommends). */
export const DEFAULT_MAX_TOKEN_BYTES = 65_536;

/** Lifetime of a sealed token unless configured otherwise: one hour. */
export const DEFAULT_TTL_SECONDS = 3_600;

/** Error code of a refused incoming token (every reason). */
export const SESSION_STATE_INVALID = 'SESSION_STATE_INVALID';
/** Error code of a `set()` whose sealed token would exceed the size limit. */
export const SESSION_STATE_TOO_LARGE = 'SESSION_STATE_TOO_LARGE';
/** Error code of a `set()` with a value that is not JSON, or that the server's schema refuses. */
export const SESSION_STATE_INVALID_VALUE = 'SESSION_STATE_INVALID_VALUE';

/** Where this package's JSON Schemas are identified (one folder per wire version). */
export const SCHEMA_BASE = 'https://mcp-ext.github.io/schemas/session-state/1.0';

/** Alphabet of a token: unpadded base64url (RFC 4648 section 5). */
export const TOKEN_PATTERN_SOURCE = '^[A-Za-z0-9_-]+$';

/**
 * `params._meta[SESSION_STATE_ID]`: the token a client replays. The field
 * name is the seed schema's (`StateUpdateRequest.session_state`).
 */
export const SessionStateRequestMetaSchema = Type.Object(
  { session_state: Type.String({ minLength: 1, pattern: TOKEN_PATTERN_SOURCE }) },
  { $id: `${SCHEMA_BASE}/request-meta.json`, title: 'SessionStateRequestMeta' },
);
export type SessionStateRequestMeta = Static<typeof SessionStateRequestMetaSchema>;

/**
 * `result._meta[SESSION_STATE_ID]`: a new token, or the instruction to drop
 * the current one (`state_changed: true` without `session_state`). Field
 * names are the seed schema's (`StateUpdateResponse`).
 */
export const SessionStateResultMetaSchema = Type.Object(
  {
    session_state: Type.Optional(Type.String({ minLength: 1, pattern: TOKEN_PATTERN_SOURCE })),
    expires_at: Type.Optional(Type.String({ format: 'date-time' })),
    state_changed: Type.Boolean(),
  },
  { $id: `${SCHEMA_BASE}/result-meta.json`, title: 'SessionStateResultMeta' },
);
export type SessionStateResultMeta = Static<typeof SessionStateResultMetaSchema>;

/** What the server advertises in `capabilities.extensions[SESSION_STATE_ID]`. Unknown fields are ignored. */
export const SessionStateServerSettingsSchema = Type.Object(
  {
    version: Type.String(),
    ttl_seconds: Type.Optional(Type.Integer({ minimum: 1 })),
    max_token_bytes: Type.Optional(Type.Integer({ minimum: 1 })),
    server_name: Type.Optional(Type.String({ minLength: 1 })),
  },
  { $id: `${SCHEMA_BASE}/server-settings.json`, title: 'SessionStateServerSettings' },
);
export type SessionStateServerSettings = Static<typeof SessionStateServerSettingsSchema>;

/** What the client advertises: the wire version and the largest token it keeps. Unknown fields are ignored. */
export const SessionStateClientSettingsSchema = Type.Object(
  {
    version: Type.String(),
    max_token_bytes: Type.Optional(Type.Integer({ minimum: 1 })),
  },
  { $id: `${SCHEMA_BASE}/client-settings.json`, title: 'SessionStateClientSettings' },
);
export type SessionStateClientSettings = Static<typeof SessionStateClientSettingsSchema>;

/** Every wire shape of this extension, by name, as JSON Schema 2020-12. */
export const SESSION_STATE_SCHEMAS = {
  SessionStateRequestMeta: SessionStateRequestMetaSchema,
  SessionStateResultMeta: SessionStateResultMetaSchema,
  SessionStateServerSettings: SessionStateServerSettingsSchema,
  SessionStateClientSettings: SessionStateClientSettingsSchema,
} as const;

/**
 * Every wire shape as one JSON Schema 2020-12 document (shipped as
 * `schema.json`), each shape an embedded resource under `$defs`.
 */
export function sessionStateJsonSchema(): Record<string, unknown> {
  const defs = Object.fromEntries(
    Object.entries(SESSION_STATE_SCHEMAS).map(([name, schema]) => [
      name,
      JSON.parse(JSON.stringify(schema)) as unknown,
    ]),
  );
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: `${SCHEMA_BASE}/session-state.json`,
    title: 'MCP session-state extension (io.github.mcp-ext/session-state)',
    description: 'Wire payloads of the session-state extension: request and result _meta entries, settings.',
    $defs: defs,
  };
}

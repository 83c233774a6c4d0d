/** The wire contract: the identifier, the version, the limits, and one TypeBox schema per payload (shipped as `schema.json`). */
import { extensionId } from '@ext/core';
import Type, { type Static } from 'typebox';

/** The extension identifier: `io.github.mcp-ext/intent`. */
export const INTENT_ID = extensionId('intent');

/** npm package name; the core negotiates extensions by it. */
export const INTENT_PACKAGE = '@ext/intent';

/** Wire contract version this package speaks. */
export const INTENT_WIRE_VERSION = '1.0';

/** Where this package's JSON Schemas are identified (one folder per wire version). */
export const SCHEMA_BASE = 'https://mcp-ext.github.io/schemas/intent/1.0';

/** Longest intent a server accepts unless configured otherwise, in Unicode code points. */
export const DEFAULT_MAX_INTENT_LENGTH = 500;

/** Longest `reason` a suggestion carries, in Unicode code points. */
export const MAX_REASON_LENGTH = 1000;

/** Longest tool name (MCP's own limit for tool names). */
export const MAX_TOOL_NAME_LENGTH = 128;

/** `params._meta[INTENT_ID]`: why the client makes this call, in its own words. */
export const IntentRequestMetaSchema = Type.Object(
  { intent: Type.String({ minLength: 1, pattern: '\\S' }) },
  { $id: `${SCHEMA_BASE}/request-meta.json`, title: 'IntentRequestMeta' },
);
export type IntentRequestMeta = Static<typeof IntentRequestMetaSchema>;

// Inlined where used (not referenced), so each schema validates on its own.
function suggestionShape(options: Record<string, unknown> = {}) {
  return Type.Object(
    {
      recommended_tool: Type.String({ minLength: 1, maxLength: MAX_TOOL_NAME_LENGTH }),
      reason: Type.String({ maxLength: MAX_REASON_LENGTH }),
    },
    options,
  );
}

/** A routing suggestion (the seed's `suggestion`). */
export const SuggestionSchema = suggestionShape({ $id: `${SCHEMA_BASE}/suggestion.json`, title: 'IntentSuggestion' });
export type Suggestion = Static<typeof SuggestionSchema>;

/** `result._meta[INTENT_ID]`: the suggestion, and whether the called tool ran. */
export const IntentResultMetaSchema = Type.Object(
  {
    suggestion: suggestionShape(),
    executed: Type.Boolean(),
  },
  { $id: `${SCHEMA_BASE}/result-meta.json`, title: 'IntentResultMeta' },
);
export type IntentResultMeta = Static<typeof IntentResultMetaSchema>;

/** What the server advertises. Unknown fields are ignored. */
export const IntentServerSettingsSchema = Type.Object(
  {
    version: Type.String(),
    mode: Type.Union([Type.Literal('advisory'), Type.Literal('redirect')]),
    max_intent_length: Type.Integer({ minimum: 1 }),
  },
  { $id: `${SCHEMA_BASE}/server-settings.json`, title: 'IntentServerSettings' },
);
export type IntentServerSettings = Static<typeof IntentServerSettingsSchema>;

/** What the client advertises. */
export const IntentClientSettingsSchema = Type.Object(
  { version: Type.String() },
  { $id: `${SCHEMA_BASE}/client-settings.json`, title: 'IntentClientSettings' },
);
export type IntentClientSettings = Static<typeof IntentClientSettingsSchema>;

export const INTENT_SCHEMAS = {
  'request-meta': IntentRequestMetaSchema,
  suggestion: SuggestionSchema,
  'result-meta': IntentResultMetaSchema,
  'server-settings': IntentServerSettingsSchema,
  'client-settings': IntentClientSettingsSchema,
} as const;

/** The wire shapes as one JSON Schema 2020-12 document (shipped as `dist/schema.json`). */
export function intentJsonSchema(): Record<string, unknown> {
  const defs = Object.fromEntries(
    Object.entries(INTENT_SCHEMAS).map(([name, schema]) => [name, JSON.parse(JSON.stringify(schema)) as unknown]),
  );
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: `${SCHEMA_BASE}/intent.json`,
    title: 'MCP intent extension (io.github.mcp-ext/intent)',
    description: 'Wire payloads of the intent extension: request and result _meta entries, settings.',
    $defs: defs,
  };
}

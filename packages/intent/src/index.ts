/** The `@ext/intent` entry point: the identifier, the wire schemas and types, and the routing rule type. */
export {
  INTENT_ID,
  INTENT_PACKAGE,
  INTENT_WIRE_VERSION,
  SCHEMA_BASE,
  DEFAULT_MAX_INTENT_LENGTH,
  MAX_REASON_LENGTH,
  MAX_TOOL_NAME_LENGTH,
  IntentRequestMetaSchema,
  SuggestionSchema,
  IntentResultMetaSchema,
  IntentServerSettingsSchema,
  IntentClientSettingsSchema,
  INTENT_SCHEMAS,
  intentJsonSchema,
} from './schema.js';
export type {
  IntentRequestMeta,
  Suggestion,
  IntentResultMeta,
  IntentServerSettings,
  IntentClientSettings,
} from './schema.js';
export type { RoutingRule } from './logic.js';

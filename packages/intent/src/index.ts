export {
  INTENT_ID,
  INTENT_PACKAGE,
  INTENT_WIRE_VERSION,
  SCHEMA_BASE,
  DEFAULT_MAX_INTENT_LENGTH,
  IntentRequestMetaSchema,
  SuggestionSchema,
  IntentResultMetaSchema,
  IntentServerSettingsSchema,
  IntentClientSettingsSchema,
  INTENT_SCHEMAS,
  intentJsonSchema,
} from './schema.js';
export type { IntentRequestMeta, Suggestion, IntentResultMeta, IntentServerSettings, IntentClientSettings } from './schema.js';
export { route, ruleMatch } from './logic.js';
export type { RoutingRule, Router } from './logic.js';

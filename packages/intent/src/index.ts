/** The `@ext/intent` entry point: the identifier, the wire schemas (through `INTENT_SCHEMAS`) and types, and the routing rule type. */
export { INTENT_ID, INTENT_PACKAGE, INTENT_WIRE_VERSION, INTENT_SCHEMAS, intentJsonSchema } from './schema.js';
export type {
  IntentRequestMeta,
  Suggestion,
  IntentResultMeta,
  IntentServerSettings,
  IntentClientSettings,
} from './schema.js';
export type { RoutingRule } from './logic.js';

/** The `@ext/idempotency` entry point: the identifier, the wire schemas and types, and the settings reader. */
export {
  IDEMPOTENCY_ID,
  IDEMPOTENCY_PACKAGE,
  IDEMPOTENCY_WIRE_VERSION,
  IDEMPOTENCY_KEY_PATTERN_SOURCE,
  DEFAULT_TTL_SECONDS,
  IDEMPOTENCY_SCHEMAS,
  SCHEMA_BASE,
  idempotencyJsonSchema,
  IdempotencyRequestMetaSchema,
  IdempotencyResultMetaSchema,
  IdempotencyToolMetaSchema,
  IdempotencyServerSettingsSchema,
  IdempotencyClientSettingsSchema,
} from './schema.js';
export type {
  IdempotencyRequestMeta,
  IdempotencyResultMeta,
  IdempotencyToolMeta,
  IdempotencyServerSettings,
  IdempotencyClientSettings,
} from './schema.js';
export type { ParticipationRule } from './logic.js';
export { getIdempotencySettings } from './settings.js';

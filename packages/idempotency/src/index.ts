/** The `@ext/idempotency` entry point: the identifier, the wire schemas (through `IDEMPOTENCY_SCHEMAS`) and types, and the settings reader. */
export {
  IDEMPOTENCY_ID,
  IDEMPOTENCY_PACKAGE,
  IDEMPOTENCY_WIRE_VERSION,
  IDEMPOTENCY_SCHEMAS,
  idempotencyJsonSchema,
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

/**
 * The `@ext/idempotency` entry point: the identifier, the wire schemas
 * (through `IDEMPOTENCY_SCHEMAS`) and types, the settings reader, and the
 * replay probe a gate asks before asking a person (`willReplay`).
 */
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
export { offerReplay, willReplay } from './replay-probe.js';
export type { ReplayProbe } from './replay-probe.js';

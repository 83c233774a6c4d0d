export {
  SESSION_STATE_ID,
  SESSION_STATE_PACKAGE,
  SESSION_STATE_WIRE_VERSION,
  DEFAULT_MAX_TOKEN_BYTES,
  DEFAULT_TTL_SECONDS,
  SCHEMA_BASE,
  TOKEN_PATTERN_SOURCE,
  SESSION_STATE_SCHEMAS,
  sessionStateJsonSchema,
  SessionStateRequestMetaSchema,
  SessionStateResultMetaSchema,
  SessionStateServerSettingsSchema,
  SessionStateClientSettingsSchema,
} from './schema.js';
export type {
  SessionStateRequestMeta,
  SessionStateResultMeta,
  SessionStateServerSettings,
  SessionStateClientSettings,
} from './schema.js';
export {
  TOKEN_FORMAT_VERSION,
  KEY_ID_PATTERN,
  MIN_SECRET_BYTES,
  TOKEN_FAILURE_REASONS,
  createKeyRing,
  sealedLength,
  sealToken,
  openToken,
  inspectToken,
} from './token.js';
export type {
  SessionKey,
  KeyRing,
  TokenBinding,
  TokenFailureReason,
  OpenResult,
  OpenOptions,
  TokenHeader,
} from './token.js';
export {
  SESSION_STATE_INVALID,
  SESSION_STATE_TOO_LARGE,
  SESSION_STATE_INVALID_VALUE,
  RETRY_WITHOUT_TOKEN_SUGGESTION,
  escapePointerSegment,
  metaPointer,
  parseRequestMeta,
  invalidTokenError,
  encodeState,
  decodeState,
  tooLargeError,
  readResultMeta,
  isSessionStateRejected,
  withResultMeta,
} from './logic.js';
export type { SessionStateFailureReason, RequestMetaParse } from './logic.js';
export { sessionState } from './locals.js';
export type { SessionStateHandle } from './locals.js';
export { getSessionStateSettings } from './settings.js';

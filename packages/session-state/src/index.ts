/** The `.` entry of `@ext/session-state`: identifiers and error codes, the wire schemas and their types, and the settings reader. */
export {
  SESSION_STATE_ID,
  SESSION_STATE_PACKAGE,
  SESSION_STATE_WIRE_VERSION,
  SESSION_STATE_INVALID,
  SESSION_STATE_TOO_LARGE,
  SESSION_STATE_INVALID_VALUE,
  SESSION_STATE_SCHEMAS,
  sessionStateJsonSchema,
} from './schema.js';
export type {
  SessionStateRequestMeta,
  SessionStateResultMeta,
  SessionStateServerSettings,
  SessionStateClientSettings,
} from './schema.js';
export type { SessionKey } from './token.js';
export { getSessionStateSettings } from './settings.js';

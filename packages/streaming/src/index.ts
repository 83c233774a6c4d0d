/** The `.` entry of `@ext/streaming`: identifiers, the wire schemas and their types, and the settings reader. */
export {
  STREAMING_ID,
  STREAMING_PACKAGE,
  STREAMING_WIRE_VERSION,
  SCHEMA_BASE,
  OPERATION_ID_PATTERN_SOURCE,
  MAX_CHECKPOINT_TOKEN_LENGTH,
  DEFAULT_CHECKPOINT_TTL_SECONDS,
  STREAMING_EVENTS,
  STREAMING_SCHEMAS,
  streamingMethod,
  streamingJsonSchema,
  StreamingServerSettingsSchema,
  StreamingClientSettingsSchema,
  StreamingToolMetaSchema,
  StreamingRequestMetaSchema,
  StreamingResultMetaSchema,
  ProgressNotificationSchema,
  StreamChunkSchema,
} from './schema.js';
export type {
  StreamingServerSettings,
  StreamingClientSettings,
  StreamingToolMeta,
  StreamingRequestMeta,
  StreamingResultMeta,
  ProgressNotification,
  StreamChunk,
} from './schema.js';
export { getStreamingSettings } from './settings.js';

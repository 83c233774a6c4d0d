/** The `.` entry of `@ext/streaming`: identifiers, the wire schemas and their types, and the settings reader. */
export {
  STREAMING_ID,
  STREAMING_PACKAGE,
  STREAMING_WIRE_VERSION,
  STREAMING_EVENTS,
  STREAMING_SCHEMAS,
  streamingMethod,
  streamingJsonSchema,
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

/** The reader of the settings a streaming server advertises. */
import { settingsReader } from '@ext/core/kit';
import { STREAMING_ID, StreamingServerSettingsSchema } from './schema.js';

/**
 * The server's streaming settings from its `capabilities.extensions`
 * (e.g. `client.serverExtensions()`), or `undefined` when it does not
 * advertise a version this package speaks. Never throws.
 */
export const getStreamingSettings = settingsReader({
  id: STREAMING_ID,
  schema: StreamingServerSettingsSchema,
  majors: [1],
});

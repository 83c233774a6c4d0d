/** The reader of the settings a session-state server advertises. */
import { settingsReader } from '@ext/core/kit';
import { SESSION_STATE_ID, SessionStateServerSettingsSchema } from './schema.js';

/**
 * The server's session-state settings from its `capabilities.extensions`
 * (e.g. `client.serverExtensions()`), or `undefined` when it does not
 * advertise a version this package speaks. Never throws.
 */
export const getSessionStateSettings = settingsReader({
  id: SESSION_STATE_ID,
  schema: SessionStateServerSettingsSchema,
  majors: [1],
});

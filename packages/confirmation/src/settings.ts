/** The reader of the server's confirmation settings, as a client sees them in `capabilities.extensions`. */
import { settingsReader } from '@ext/core/kit';
import { CONFIRMATION_ID, ConfirmationServerSettingsSchema, type ConfirmationServerSettings } from './schema.js';

/**
 * The server's confirmation settings from its `capabilities.extensions`
 * (e.g. `client.serverExtensions()`), or `undefined` when it does not
 * advertise a version this package speaks. Never throws.
 */
export const getConfirmationSettings: (extensions: unknown) => ConfirmationServerSettings | undefined = settingsReader({
  id: CONFIRMATION_ID,
  schema: ConfirmationServerSettingsSchema,
  majors: [1],
});

/** The reader of the server's idempotency settings, as a client sees them in `capabilities.extensions`. */
import { settingsReader } from '@ext/core/kit';
import { IDEMPOTENCY_ID, IdempotencyServerSettingsSchema, type IdempotencyServerSettings } from './schema.js';

/**
 * The server's idempotency settings from its `capabilities.extensions`
 * (e.g. `client.serverExtensions()`), or `undefined` when it does not
 * advertise a version this package speaks. Never throws.
 */
export const getIdempotencySettings: (extensions: unknown) => IdempotencyServerSettings | undefined = settingsReader({
  id: IDEMPOTENCY_ID,
  schema: IdempotencyServerSettingsSchema,
  majors: [1],
});

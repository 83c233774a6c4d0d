/** Reading the events settings a server advertised, on the client side. */
import { settingsReader } from '@ext/core/kit';
import { EVENTS_ID, EventsServerSettingsSchema, type EventsServerSettings } from './schema.js';

/**
 * The server's events settings from its `capabilities.extensions` (e.g.
 * `client.serverExtensions()`), or `undefined` when it does not advertise a
 * version this package speaks. Never throws.
 */
export const getEventsSettings: (extensions: unknown) => EventsServerSettings | undefined = settingsReader({
  id: EVENTS_ID,
  schema: EventsServerSettingsSchema,
  majors: [1],
});

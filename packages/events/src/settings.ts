import { parseSettings } from '@ext/core';
import { EVENTS_ID, EventsServerSettingsSchema, type EventsServerSettings } from './schema.js';

/**
 * The server's events settings from its `capabilities.extensions` (e.g.
 * `client.serverExtensions()`), or `undefined` when it does not advertise a
 * version this package speaks. Never throws.
 */
export function getEventsSettings(extensions: unknown): EventsServerSettings | undefined {
  if (typeof extensions !== 'object' || extensions === null || Array.isArray(extensions)) return undefined;
  const raw = (extensions as Record<string, unknown>)[EVENTS_ID];
  if (raw === undefined) return undefined;
  const parsed = parseSettings<EventsServerSettings>(raw, { schema: EventsServerSettingsSchema, majors: [1] });
  return parsed.ok ? parsed.settings : undefined;
}

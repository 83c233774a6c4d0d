import { parseSettings } from '@ext/core';
import { SESSION_STATE_ID, SessionStateServerSettingsSchema, type SessionStateServerSettings } from './schema.js';

/**
 * The server's session-state settings from its `capabilities.extensions`
 * (e.g. `client.serverExtensions()`), or `undefined` when it does not
 * advertise a version this package speaks. Never throws.
 */
export function getSessionStateSettings(extensions: unknown): SessionStateServerSettings | undefined {
  if (typeof extensions !== 'object' || extensions === null || Array.isArray(extensions)) return undefined;
  const raw = (extensions as Record<string, unknown>)[SESSION_STATE_ID];
  if (raw === undefined) return undefined;
  const parsed = parseSettings<SessionStateServerSettings>(raw, {
    schema: SessionStateServerSettingsSchema,
    majors: [1],
  });
  return parsed.ok ? parsed.settings : undefined;
}

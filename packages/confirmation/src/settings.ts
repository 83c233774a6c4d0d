import { parseSettings } from '@ext/core';
import { CONFIRMATION_ID, ConfirmationServerSettingsSchema, type ConfirmationServerSettings } from './schema.js';

/**
 * The server's confirmation settings from its `capabilities.extensions`
 * (e.g. `client.serverExtensions()`), or `undefined` when it does not
 * advertise a version this package speaks. Never throws.
 */
export function getConfirmationSettings(extensions: unknown): ConfirmationServerSettings | undefined {
  if (typeof extensions !== 'object' || extensions === null || Array.isArray(extensions)) return undefined;
  const raw = (extensions as Record<string, unknown>)[CONFIRMATION_ID];
  if (raw === undefined) return undefined;
  const parsed = parseSettings<ConfirmationServerSettings>(raw, {
    schema: ConfirmationServerSettingsSchema,
    majors: [1],
  });
  return parsed.ok ? parsed.settings : undefined;
}

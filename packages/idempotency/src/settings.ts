import { parseSettings } from '@ext/core';
import { IDEMPOTENCY_ID, IdempotencyServerSettingsSchema, type IdempotencyServerSettings } from './schema.js';

/**
 * The server's idempotency settings from its `capabilities.extensions`
 * (e.g. `client.serverExtensions()`), or `undefined` when it does not
 * advertise a version this package speaks. Never throws.
 */
export function getIdempotencySettings(extensions: unknown): IdempotencyServerSettings | undefined {
  if (typeof extensions !== 'object' || extensions === null || Array.isArray(extensions)) return undefined;
  const raw = (extensions as Record<string, unknown>)[IDEMPOTENCY_ID];
  if (raw === undefined) return undefined;
  const parsed = parseSettings<IdempotencyServerSettings>(raw, {
    schema: IdempotencyServerSettingsSchema,
    majors: [1],
  });
  return parsed.ok ? parsed.settings : undefined;
}

import { parseSettings } from '@ext/core';
import { COST_ID, CostSettingsSchema, type CostSettings } from './schema.js';

/**
 * The server's cost settings from its `capabilities.extensions` (e.g.
 * `client.serverExtensions()`), or `undefined` when it does not advertise a
 * version this package speaks. Never throws.
 */
export function getCostSettings(extensions: unknown): CostSettings | undefined {
  if (typeof extensions !== 'object' || extensions === null || Array.isArray(extensions)) return undefined;
  const raw = (extensions as Record<string, unknown>)[COST_ID];
  if (raw === undefined) return undefined;
  const parsed = parseSettings<CostSettings>(raw, { schema: CostSettingsSchema, majors: [1] });
  return parsed.ok ? parsed.settings : undefined;
}

import { parseSettings } from '@ext/core';
import { MANIFEST_ID, ManifestServerSettingsSchema, type ManifestServerSettings } from './schema.js';

/**
 * The server's manifest settings from its `capabilities.extensions`
 * (e.g. `client.serverExtensions()`), or `undefined` when it does not
 * advertise a version this package speaks. Never throws.
 */
export function getManifestSettings(extensions: unknown): ManifestServerSettings | undefined {
  if (typeof extensions !== 'object' || extensions === null || Array.isArray(extensions)) return undefined;
  const raw = (extensions as Record<string, unknown>)[MANIFEST_ID];
  if (raw === undefined) return undefined;
  const parsed = parseSettings<ManifestServerSettings>(raw, { schema: ManifestServerSettingsSchema, majors: [1] });
  return parsed.ok ? parsed.settings : undefined;
}

/** The reader of the manifest settings a server advertised. */
import { settingsReader } from '@ext/core/kit';
import { MANIFEST_ID, ManifestServerSettingsSchema, type ManifestServerSettings } from './schema.js';

/**
 * The server's manifest settings from its `capabilities.extensions`
 * (e.g. `client.serverExtensions()`), or `undefined` when it does not
 * advertise a version this package speaks. Never throws.
 */
export const getManifestSettings: (extensions: unknown) => ManifestServerSettings | undefined = settingsReader({
  id: MANIFEST_ID,
  schema: ManifestServerSettingsSchema,
  majors: [1],
});

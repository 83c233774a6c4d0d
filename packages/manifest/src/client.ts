/** The client half of `@ext/manifest`, and what its users call: one `<id>/get` round trip, and a caching reader. */
import type { ClientExtension } from '@ext/core';
import { MANIFEST_ID, MANIFEST_PACKAGE, MANIFEST_WIRE_VERSION, ManifestServerSettingsSchema } from './schema.js';

/** The client half: advertises the extension, so the server tells this client when its manifest changes. */
export function manifestClient(): ClientExtension {
  return {
    side: 'client',
    name: MANIFEST_PACKAGE,
    ids: [MANIFEST_ID],
    settings: { version: MANIFEST_WIRE_VERSION },
    peerSettings: ManifestServerSettingsSchema,
  };
}

export { fetchManifest } from './fetch.js';
export { createManifestReader } from './reader.js';
export type { ManifestReader, ManifestReaderOptions, ManifestSnapshot } from './reader.js';
export { getManifestSettings } from './settings.js';
export { costlyTools, findTool, slowTools, toolsRequiringConfirmation } from './queries.js';

/** The server half of `@ext/manifest`, the server card, and reading the manifest outside a request. */
import { ConfigurationError } from '@ext/core';
import { manifestAssembler } from './assemble.js';
import { getMethod } from './methods.js';
import { resolveOptions, type ManifestServerOptions } from './options.js';
import { parseManifestToolMeta } from './parse.js';
import {
  MANIFEST_ID,
  MANIFEST_PACKAGE,
  MANIFEST_WIRE_VERSION,
  ManifestClientSettingsSchema,
  type ManifestServerSettings,
} from './schema.js';
import type { ManifestServerExtension } from './serving.js';
import { connectionWatcher } from './watch.js';

export type { ManifestServerOptions } from './options.js';

/**
 * The server half of the service manifest. Serves `<id>/get`, which returns
 * the manifest assembled from every registered tool and every composed
 * extension's tool metadata, with an etag, a "not modified" answer for a
 * current etag, and `ttl_seconds`. A client that fetched it on a connection
 * that outlives the request, and negotiated the extension, is sent
 * `notifications/<id>/changed` when a tool registered later changes it.
 */
export function manifestServer(options: ManifestServerOptions = {}): ManifestServerExtension {
  const { ttlSeconds, config } = resolveOptions(options);
  const assemble = manifestAssembler(config, ttlSeconds);
  const settings: ManifestServerSettings = { version: MANIFEST_WIRE_VERSION, ttl_seconds: ttlSeconds };
  return {
    side: 'server',
    name: MANIFEST_PACKAGE,
    ids: [MANIFEST_ID],
    settings,
    peerSettings: ManifestClientSettingsSchema,
    currentManifest: (server, protocolVersion, sharedCallers) => assemble(server, protocolVersion, sharedCallers),
    toolMeta(tool) {
      // Validates the author's entry at registration, so a mistake fails at startup.
      const parsed = parseManifestToolMeta(tool._meta?.[MANIFEST_ID]);
      if (!parsed.ok) {
        throw new ConfigurationError(
          'INVALID_TOOL_META',
          `tool "${tool.name}": _meta["${MANIFEST_ID}"]${parsed.pointer} ${parsed.message}`,
        );
      }
      return parsed.value;
    },
    methods: { get: getMethod(assemble, connectionWatcher(assemble), ttlSeconds) },
  };
}

export { getServiceManifest } from './serving.js';
export type { CurrentManifest, ManifestServerExtension } from './serving.js';
export { createServerCardHandler, SERVER_CARD_MEDIA_TYPE, WELL_KNOWN_SERVER_CARD_PATH } from './card.js';
export type { ServerCardHandler, ServerCardOptions, ServerCardResponse } from './card.js';
export { getManifestSettings } from './settings.js';

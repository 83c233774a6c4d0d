/** The `./server` entry: `dataReferencesServer`, the origin, import sinks, and what tool handlers call during a call. */
import type { ServerExtension } from '@ext/core';
import { bindCallReferences } from './call-references.js';
import { dataReferencesMethods } from './methods.js';
import { negotiatedOnly } from './middleware.js';
import { referenceResources } from './resources.js';
import { serverConfig, type DataReferencesServerOptions } from './options.js';
import {
  DATA_REFERENCES_ID,
  DATA_REFERENCES_PACKAGE,
  DATA_REFERENCES_WIRE_VERSION,
  DataReferencesClientSettingsSchema,
  type DataReferencesServerSettings,
} from './schema.js';

export { createReferenceOrigin } from './origin.js';
export type { ReferenceOriginOptions, UploadOptions } from './origin-options.js';
export type {
  CreateReferenceOptions,
  LocalReference,
  ReferenceOrigin,
  ReferenceSource,
  SpoolWriter,
} from './origin-types.js';
export { fileSink } from './sinks.js';
export type { ImportSink, ImportTarget, SinkFactory } from './sinks.js';
export type { ImportPolicy } from './import-policy.js';
export type {
  DataReferencesImportOptions,
  DataReferencesResourceOptions,
  DataReferencesServerOptions,
} from './options.js';
export type { AccessUrlCheck } from './access-url.js';
export { DEFAULT_RESOURCE_MAX_BYTES } from './resources.js';
export { referencesOf, referencesFor } from './call-references.js';
export type { CallReferences } from './call-references.js';
export { registerDataReferenceTools, DATA_REFERENCE_TOOL_NAMES } from './tools.js';

/**
 * The server half of data references: advertises what this server does
 * with references, gives tool handlers {@link referencesOf} to create,
 * read and import them, serves `<id>/import` (with an import policy) and
 * `<id>/upload` (with an origin that takes uploads), and sends
 * `result._meta[<id>]` only to clients that negotiated the extension (the
 * others keep the `resource_link`). The bytes travel over the origin's HTTP
 * endpoint; a reference up to a few MiB can also be read through
 * `resources/read` of its `resource_link`, for hosts that cannot reach it.
 */
export function dataReferencesServer(options: DataReferencesServerOptions = {}): ServerExtension {
  const config = serverConfig(options);
  const { origin, policy } = config;

  const settings: Omit<DataReferencesServerSettings, 'version'> = {};
  if (origin !== undefined) settings.origin_server = origin.serverName;
  if (policy !== undefined) settings.import = { max_size_bytes: policy.maxBytes };
  if (origin?.uploads !== undefined)
    settings.upload = { max_size_bytes: origin.uploads.maxBytes, ttl_seconds: origin.uploads.ttlSeconds };

  return {
    side: 'server',
    keepsCallerState: true,
    name: DATA_REFERENCES_PACKAGE,
    ids: [DATA_REFERENCES_ID],
    settings: { version: DATA_REFERENCES_WIRE_VERSION, ...settings },
    peerSettings: DataReferencesClientSettingsSchema,
    stage: 'data-references',
    middleware: negotiatedOnly,
    methods: dataReferencesMethods(config),
    // The origin's references as MCP resources, so a plain host can read a resource_link it cannot fetch (DREF-23).
    resources:
      origin === undefined || config.resourceMaxBytes === undefined
        ? undefined
        : referenceResources(origin, config.resourceMaxBytes),
    beginCall(_call, ctx) {
      // Set before the pipeline, so the multimodal stage (which runs earlier) can resolve uploaded references too.
      bindCallReferences(config, ctx);
    },
  };
}

/** The server half of `@ext/discovery`, and everything a server author uses to fill its index. */
import type { ServerExtension } from '@ext/core';
import { resolveOptions, type DiscoveryServerOptions } from './options.js';
import { recommendMethod } from './recommend.js';
import { RegistryIndex } from './registry.js';
import { DISCOVERY_ID, DISCOVERY_PACKAGE, DISCOVERY_WIRE_VERSION, type DiscoveryServerSettings } from './schema.js';

export { RegistryIndex } from './registry.js';
export type { RegistryIndexOptions, AddReport, SkippedEntry } from './registry.js';
export { loadRegistryFile, saveRegistryFile, syncRegistry, RegistrySyncError } from './sync.js';
export type {
  LoadRegistryFileOptions,
  LoadReport,
  SyncRegistryOptions,
  SyncReport,
  RegistrySyncErrorCode,
} from './sync.js';
export type { DiscoveryPeer, DiscoveryServerOptions } from './options.js';
export { DISCOVERY_TOOL_NAME, registerDiscoveryTools } from './tools.js';

/**
 * The server half of `@ext/discovery`: answers
 * `io.github.mcp-ext/discovery/recommend { capability_needed }` with ranked
 * recommendations from a local index of MCP Registry entries and from the
 * peers the server author configured. The query is answered locally: it is
 * never sent to a registry or logged (DISC-12).
 *
 * @example
 * ```ts
 * const index = new RegistryIndex();
 * await syncRegistry(index, { url: 'https://registry.modelcontextprotocol.io' });
 * composeServer([discoveryServer({ index, peers: [{ name: 'com.example/billing', description: 'Invoices and refunds', url: 'https://billing.example.com/mcp' }] })]);
 * ```
 */
export function discoveryServer(options: DiscoveryServerOptions = {}): ServerExtension {
  const resolved = resolveOptions(options, () => new RegistryIndex());
  const settings: DiscoveryServerSettings = { version: DISCOVERY_WIRE_VERSION, max_results: resolved.maxResults };
  return {
    side: 'server',
    name: DISCOVERY_PACKAGE,
    ids: [DISCOVERY_ID],
    settings,
    methods: { recommend: recommendMethod(resolved) },
  };
}

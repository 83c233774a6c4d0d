/**
 * `@ext/discovery`: the extension's identifiers, its wire schemas (through
 * `DISCOVERY_SCHEMAS`) and types, and the MCP Registry entry format the index reads.
 */
export {
  DISCOVERY_ID,
  DISCOVERY_PACKAGE,
  DISCOVERY_WIRE_VERSION,
  MATCH_CONFIDENCES,
  DISCOVERY_SCHEMAS,
  discoveryJsonSchema,
} from './schema.js';
export type {
  MatchConfidence,
  RecommendationSource,
  RecommendRequest,
  Remote,
  Package,
  Recommendation,
  RecommendResult,
  DiscoveryServerSettings,
  DiscoveryClientSettings,
} from './schema.js';
export { RegistryServerDetailSchema, RegistryServerResponseSchema } from './registry-entry.js';
export type {
  RegistryServerDetail,
  RegistryServerResponse,
  RegistryServerList,
  OfficialMeta,
  IndexedEntry,
} from './registry-entry.js';
export type { Candidate } from './candidate.js';

/**
 * `@ext/discovery`: the extension's identifiers, its wire schemas and types,
 * and the MCP Registry entry format the index reads.
 */
export {
  DISCOVERY_ID,
  DISCOVERY_PACKAGE,
  DISCOVERY_WIRE_VERSION,
  SCHEMA_BASE,
  MAX_CAPABILITY_LENGTH,
  MATCH_CONFIDENCES,
  RECOMMENDATION_SOURCES,
  RecommendRequestSchema,
  RemoteSchema,
  PackageSchema,
  RecommendationSchema,
  RecommendResultSchema,
  DiscoveryServerSettingsSchema,
  DiscoveryClientSettingsSchema,
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
export {
  OFFICIAL_META_KEY,
  REGISTRY_NAME_PATTERN,
  REGISTRY_STATUSES,
  RegistryServerDetailSchema,
  RegistryServerResponseSchema,
} from './registry-entry.js';
export type {
  RegistryStatus,
  RegistryServerDetail,
  RegistryServerResponse,
  RegistryServerList,
  OfficialMeta,
  IndexedEntry,
} from './registry-entry.js';
export type { Candidate } from './candidate.js';
export type { SkippedEntry, AddReport, RegistryIndexOptions } from './registry.js';

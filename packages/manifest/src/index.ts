/**
 * `@ext/manifest`: the extension's identifiers and method names, its wire
 * schemas (through `MANIFEST_SCHEMAS`) and types, and the reader of the
 * settings a server advertises.
 */
export {
  MANIFEST_ID,
  MANIFEST_PACKAGE,
  MANIFEST_WIRE_VERSION,
  AUTH_METHODS,
  LATENCY_CLASSES,
  MATCH_CONFIDENCES,
  MANIFEST_SCHEMAS,
  manifestJsonSchema,
  manifestChangedMethod,
  manifestGetMethod,
} from './schema.js';
export type {
  AuthMethod,
  LatencyClass,
  ServiceManifest,
  ToolDefinition,
  CostInfo,
  ScopeDefinition,
  AuthCapabilities,
  RateLimits,
  ServerRecommendation,
  ManifestServerSettings,
  ManifestClientSettings,
  ManifestToolMeta,
  ManifestGetParams,
  ManifestGetResult,
  ManifestChangedParams,
  ServerCard,
} from './schema.js';
export { parseServiceManifest } from './parse.js';
export { getManifestSettings } from './settings.js';

/** The discovery extension's identifiers and wire shapes (TypeBox schemas and their JSON Schema document). */
import { extensionId } from '@ext/core';
import Type, { type Static } from 'typebox';

/** The extension identifier: `io.github.mcp-ext/discovery`. */
export const DISCOVERY_ID = extensionId('discovery');

/** npm package name; the core negotiates extensions by it. */
export const DISCOVERY_PACKAGE = '@ext/discovery';

/** Wire contract version this package speaks. */
export const DISCOVERY_WIRE_VERSION = '1.0';

/** Where this package's JSON Schemas are identified (one folder per wire version). */
export const SCHEMA_BASE = 'https://mcp-ext.github.io/schemas/discovery/1.0';

/** Longest `capability_needed` a server accepts, in characters. */
export const MAX_CAPABILITY_LENGTH = 256;

/** The confidence levels of a recommendation (seed schema `ServerRecommendation.match_confidence`), strongest first. */
export const MATCH_CONFIDENCES = ['high', 'medium', 'low'] as const;
export type MatchConfidence = (typeof MATCH_CONFIDENCES)[number];

/** Where a recommendation comes from: the registry index, or a peer the server author configured. */
export const RECOMMENDATION_SOURCES = ['registry', 'peer'] as const;
export type RecommendationSource = (typeof RECOMMENDATION_SOURCES)[number];

const confidence = () => Type.Union([Type.Literal('high'), Type.Literal('medium'), Type.Literal('low')]);

/** `<id>/recommend` params. Unknown fields are ignored. */
export const RecommendRequestSchema = Type.Object(
  {
    capability_needed: Type.String({ minLength: 1, maxLength: MAX_CAPABILITY_LENGTH, pattern: '\\S' }),
    max_results: Type.Optional(Type.Integer({ minimum: 1 })),
    min_confidence: Type.Optional(confidence()),
  },
  { $id: `${SCHEMA_BASE}/recommend-request.json`, title: 'RecommendRequest' },
);
export interface RecommendRequest {
  capability_needed: string;
  max_results?: number | undefined;
  min_confidence?: MatchConfidence | undefined;
}

// Inlined where used (not referenced), so each schema validates on its own.
function remoteShape(options: Record<string, unknown> = {}) {
  return Type.Object(
    {
      type: Type.Union([Type.Literal('streamable-http'), Type.Literal('sse')]),
      url: Type.String({ pattern: '^https://' }),
    },
    options,
  );
}

function packageShape(options: Record<string, unknown> = {}) {
  return Type.Object(
    {
      registry_type: Type.String({ minLength: 1 }),
      identifier: Type.String({ minLength: 1 }),
      version: Type.Optional(Type.String()),
      transport: Type.Optional(Type.String()),
    },
    options,
  );
}

function recommendationShape(options: Record<string, unknown> = {}) {
  return Type.Object(
    {
      capability: Type.String(),
      server_name: Type.String({ minLength: 1 }),
      title: Type.Optional(Type.String()),
      description: Type.String(),
      version: Type.Optional(Type.String()),
      registry_url: Type.Optional(Type.String({ format: 'uri', pattern: '^https?://' })),
      auth_flow: Type.Optional(Type.String({ minLength: 1 })),
      match_confidence: confidence(),
      score: Type.Number({ minimum: 0, maximum: 1 }),
      reason: Type.String(),
      source: Type.Union(RECOMMENDATION_SOURCES.map((source) => Type.Literal(source))),
      remotes: Type.Optional(Type.Array(remoteShape())),
      packages: Type.Optional(Type.Array(packageShape())),
      repository_url: Type.Optional(Type.String()),
      website_url: Type.Optional(Type.String()),
    },
    options,
  );
}

/** A remote endpoint a client can connect to without installing anything. */
export const RemoteSchema = remoteShape({ $id: `${SCHEMA_BASE}/remote.json`, title: 'RecommendedRemote' });
export type Remote = Static<typeof RemoteSchema>;

/** A package a client can install and run locally (from the registry's `server.json`). */
export const PackageSchema = packageShape({ $id: `${SCHEMA_BASE}/server-package.json`, title: 'RecommendedPackage' });
export type Package = Static<typeof PackageSchema>;

/**
 * One recommended server: the seed's `ServerRecommendation` (`capability`,
 * `server_name`, `registry_url`, `auth_flow`, `match_confidence`) plus what
 * a client needs to explain and use it.
 */
export const RecommendationSchema = recommendationShape({
  $id: `${SCHEMA_BASE}/recommendation.json`,
  title: 'ServerRecommendation',
});
export interface Recommendation {
  capability: string;
  server_name: string;
  title?: string | undefined;
  description: string;
  version?: string | undefined;
  registry_url?: string | undefined;
  auth_flow?: string | undefined;
  match_confidence: MatchConfidence;
  score: number;
  reason: string;
  source: RecommendationSource;
  remotes?: Remote[] | undefined;
  packages?: Package[] | undefined;
  repository_url?: string | undefined;
  website_url?: string | undefined;
}

/** `<id>/recommend` result. */
export const RecommendResultSchema = Type.Object(
  {
    capability_needed: Type.String(),
    recommendations: Type.Array(recommendationShape()),
    index_size: Type.Integer({ minimum: 0 }),
  },
  { $id: `${SCHEMA_BASE}/recommend-result.json`, title: 'RecommendResult' },
);
export interface RecommendResult {
  capability_needed: string;
  recommendations: Recommendation[];
  /** How many servers (registry entries and peers) the answer was chosen from. */
  index_size: number;
}

/** What the server advertises. Unknown fields are ignored. */
export const DiscoveryServerSettingsSchema = Type.Object(
  { version: Type.String(), max_results: Type.Integer({ minimum: 1 }) },
  { $id: `${SCHEMA_BASE}/server-settings.json`, title: 'DiscoveryServerSettings' },
);
export type DiscoveryServerSettings = Static<typeof DiscoveryServerSettingsSchema>;

/** What the client advertises. */
export const DiscoveryClientSettingsSchema = Type.Object(
  { version: Type.String() },
  { $id: `${SCHEMA_BASE}/client-settings.json`, title: 'DiscoveryClientSettings' },
);
export type DiscoveryClientSettings = Static<typeof DiscoveryClientSettingsSchema>;

/** Every wire shape, by name. */
export const DISCOVERY_SCHEMAS = {
  'recommend-request': RecommendRequestSchema,
  remote: RemoteSchema,
  'server-package': PackageSchema,
  recommendation: RecommendationSchema,
  'recommend-result': RecommendResultSchema,
  'server-settings': DiscoveryServerSettingsSchema,
  'client-settings': DiscoveryClientSettingsSchema,
} as const;

/** The wire shapes as one JSON Schema 2020-12 document (shipped as `dist/schema.json`). */
export function discoveryJsonSchema(): Record<string, unknown> {
  const defs = Object.fromEntries(
    Object.entries(DISCOVERY_SCHEMAS).map(([name, schema]) => [name, JSON.parse(JSON.stringify(schema)) as unknown]),
  );
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: `${SCHEMA_BASE}/discovery.json`,
    title: 'MCP discovery extension (io.github.mcp-ext/discovery)',
    description: 'Wire payloads of the discovery extension: the recommend method and settings.',
    $defs: defs,
  };
}

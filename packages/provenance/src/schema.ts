/** The identifier, the wire version and one TypeBox schema per wire payload, with the JSON Schema document of them all. */
import { extensionId } from '@ext/core';
import Type, { type Static } from 'typebox';

/** The extension identifier: `io.github.mcp-ext/provenance`. */
export const PROVENANCE_ID = extensionId('provenance');

/** npm package name; the core negotiates extensions by it. */
export const PROVENANCE_PACKAGE = '@ext/provenance';

/** Wire contract version this package speaks. */
export const PROVENANCE_WIRE_VERSION = '1.0';

/** Where this package's JSON Schemas are identified (one folder per wire version). */
export const SCHEMA_BASE = 'https://mcp-ext.github.io/schemas/provenance/1.0';

/** How literally a value comes from its source (seed schema `Provenance.confidence`). */
export const CONFIDENCE_LEVELS = ['exact', 'derived', 'estimated', 'uncertain'] as const;

function locationShape(options: Record<string, unknown> = {}) {
  return Type.Object(
    {
      page: Type.Optional(Type.Integer()),
      paragraph: Type.Optional(Type.Integer()),
      line: Type.Optional(Type.Integer()),
      cell: Type.Optional(Type.String()),
      json_path: Type.Optional(Type.String()),
      url_fragment: Type.Optional(Type.String()),
    },
    options,
  );
}

/** Where within the source the data was found (seed schema `Provenance.location`). */
export const LocationSchema = locationShape({ $id: `${SCHEMA_BASE}/location.json`, title: 'ProvenanceLocation' });
export type Location = Static<typeof LocationSchema>;

// Inlined where used (not referenced), so each schema validates on its own.
function provenanceShape(options: Record<string, unknown> = {}) {
  return Type.Object(
    {
      source: Type.String({ minLength: 1 }),
      location: Type.Optional(locationShape()),
      retrieved_at: Type.Optional(Type.String({ format: 'date-time' })),
      version: Type.Optional(Type.String()),
      confidence: Type.Optional(Type.Union(CONFIDENCE_LEVELS.map((level) => Type.Literal(level)))),
      transformation: Type.Optional(Type.String()),
    },
    options,
  );
}

/** One source of a result (seed schema `Provenance`). */
export const ProvenanceSchema = provenanceShape({ $id: `${SCHEMA_BASE}/provenance.json`, title: 'Provenance' });
export interface Provenance {
  source: string;
  location?: Location | undefined;
  retrieved_at?: string | undefined;
  version?: string | undefined;
  confidence?: (typeof CONFIDENCE_LEVELS)[number] | undefined;
  transformation?: string | undefined;
}

/**
 * `result._meta[PROVENANCE_ID]`: the seed's `ProvenanceWrapper` without
 * `result` (the MCP result itself is the payload), plus the optional digest
 * and how many further sources were left out (PROV-10).
 */
export const ProvenanceResultMetaSchema = Type.Object(
  {
    provenance: Type.Union([provenanceShape(), Type.Array(provenanceShape(), { minItems: 1 })]),
    sha256: Type.Optional(Type.String({ pattern: '^[0-9a-f]{64}$' })),
    sources_omitted: Type.Optional(Type.Integer({ minimum: 1 })),
  },
  { $id: `${SCHEMA_BASE}/result-meta.json`, title: 'ProvenanceResultMeta' },
);
export interface ProvenanceResultMeta {
  provenance: Provenance | Provenance[];
  sha256?: string | undefined;
  sources_omitted?: number | undefined;
}

/** Most sources one result carries unless configured otherwise. */
export const DEFAULT_MAX_SOURCES = 100;

/** What the server advertises. Unknown fields are ignored. */
export const ProvenanceServerSettingsSchema = Type.Object(
  {
    version: Type.String(),
    digest: Type.Optional(Type.Boolean()),
    max_sources: Type.Optional(Type.Integer({ minimum: 1 })),
  },
  { $id: `${SCHEMA_BASE}/server-settings.json`, title: 'ProvenanceServerSettings' },
);
export type ProvenanceServerSettings = Static<typeof ProvenanceServerSettingsSchema>;

/** What the client advertises. */
export const ProvenanceClientSettingsSchema = Type.Object(
  { version: Type.String() },
  { $id: `${SCHEMA_BASE}/client-settings.json`, title: 'ProvenanceClientSettings' },
);
export type ProvenanceClientSettings = Static<typeof ProvenanceClientSettingsSchema>;

/** Every wire shape, by name. */
export const PROVENANCE_SCHEMAS = {
  location: LocationSchema,
  provenance: ProvenanceSchema,
  'result-meta': ProvenanceResultMetaSchema,
  'server-settings': ProvenanceServerSettingsSchema,
  'client-settings': ProvenanceClientSettingsSchema,
} as const;

/** The wire shapes as one JSON Schema 2020-12 document (shipped as `dist/schema.json`). */
export function provenanceJsonSchema(): Record<string, unknown> {
  const defs = Object.fromEntries(
    Object.entries(PROVENANCE_SCHEMAS).map(([name, schema]) => [name, JSON.parse(JSON.stringify(schema)) as unknown]),
  );
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: `${SCHEMA_BASE}/provenance-extension.json`,
    title: 'MCP provenance extension (io.github.mcp-ext/provenance)',
    description: 'Wire payloads of the provenance extension: the result _meta entry and settings.',
    $defs: defs,
  };
}

/** The `@ext/provenance` entry: the identifier, the TypeBox wire schemas and their JSON Schema, the wire types. */
export {
  PROVENANCE_ID,
  PROVENANCE_PACKAGE,
  PROVENANCE_WIRE_VERSION,
  SCHEMA_BASE,
  CONFIDENCE_LEVELS,
  DEFAULT_MAX_SOURCES,
  LocationSchema,
  ProvenanceSchema,
  ProvenanceResultMetaSchema,
  ProvenanceServerSettingsSchema,
  ProvenanceClientSettingsSchema,
  PROVENANCE_SCHEMAS,
  provenanceJsonSchema,
} from './schema.js';
export type {
  Location,
  Provenance,
  ProvenanceResultMeta,
  ProvenanceServerSettings,
  ProvenanceClientSettings,
} from './schema.js';

/**
 * The `@ext/provenance` entry: the identifier, the wire schemas (through
 * `PROVENANCE_SCHEMAS`) and their JSON Schema, the wire types.
 */
export {
  PROVENANCE_ID,
  PROVENANCE_PACKAGE,
  PROVENANCE_WIRE_VERSION,
  CONFIDENCE_LEVELS,
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

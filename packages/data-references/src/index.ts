/**
 * The `.` entry: identifiers, wire schemas and types, and the few value
 * helpers both halves' users call (media types, `referenceResult`).
 */
export {
  DATA_REFERENCES_ID,
  DATA_REFERENCES_PACKAGE,
  DATA_REFERENCES_WIRE_VERSION,
  SCHEMA_BASE,
  MIME_TYPE_PATTERN_SOURCE,
  DATA_REFERENCES_SCHEMAS,
  dataReferencesJsonSchema,
  ChecksumSchema,
  DataReferenceSchema,
  ImportFromRefRequestSchema,
  ImportFromRefResponseSchema,
  DataReferencesServerSettingsSchema,
  DataReferencesClientSettingsSchema,
  DataReferencesResultMetaSchema,
  UploadRequestSchema,
  UploadTicketSchema,
} from './schema.js';
export type {
  Checksum,
  DataReference,
  ImportFromRefRequest,
  ImportFromRefResponse,
  DataReferencesServerSettings,
  DataReferencesClientSettings,
  DataReferencesResultMeta,
  UploadRequest,
  UploadTicket,
} from './schema.js';
export { isMimeType, essenceOf, isDataReference, resourceLinkFor, referenceResult } from './logic.js';
export type { OriginPolicy } from './import-policy.js';

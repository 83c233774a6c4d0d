/**
 * The `.` entry: identifiers, wire schemas (through `DATA_REFERENCES_SCHEMAS`)
 * and types, and the few value helpers both halves' users call (media types,
 * `referenceResult`).
 */
export {
  DATA_REFERENCES_ID,
  DATA_REFERENCES_PACKAGE,
  DATA_REFERENCES_WIRE_VERSION,
  DATA_REFERENCES_SCHEMAS,
  dataReferencesJsonSchema,
  DataReferenceSchema,
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

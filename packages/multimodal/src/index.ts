/** The `.` entry: identifiers, wire schemas and types, and `inlineInput` (bytes as inline MCP content). */
export {
  MULTIMODAL_ID,
  MULTIMODAL_PACKAGE,
  MULTIMODAL_WIRE_VERSION,
  SCHEMA_BASE,
  MEDIA_RANGE_PATTERN_SOURCE,
  BINARY_TRANSPORTS,
  MULTIMODAL_SCHEMAS,
  multimodalJsonSchema,
  MultimodalServerSettingsSchema,
  MultimodalClientSettingsSchema,
  MultimodalToolMetaSchema,
  MultimodalToolDeclarationSchema,
} from './schema.js';
export type {
  BinaryTransport,
  MultimodalServerSettings,
  MultimodalClientSettings,
  MultimodalToolMeta,
  MultimodalToolDeclaration,
} from './schema.js';
export { inlineInput } from './logic.js';

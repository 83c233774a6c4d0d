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
export {
  isMediaRange,
  matchesMediaRange,
  accepted,
  toolDeclaration,
  base64Length,
  detectInput,
  findBinaryInputs,
  checkInputs,
  inlineInput,
} from './logic.js';
export type { BinaryInput, BinaryInputKind, FoundInputs, InvalidInput } from './logic.js';

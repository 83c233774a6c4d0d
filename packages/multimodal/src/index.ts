/**
 * The `.` entry: identifiers, wire schemas (through `MULTIMODAL_SCHEMAS`) and
 * types, and `inlineInput` (bytes as inline MCP content).
 */
export {
  MULTIMODAL_ID,
  MULTIMODAL_PACKAGE,
  MULTIMODAL_WIRE_VERSION,
  MULTIMODAL_SCHEMAS,
  multimodalJsonSchema,
} from './schema.js';
export type {
  BinaryTransport,
  MultimodalServerSettings,
  MultimodalClientSettings,
  MultimodalToolMeta,
  MultimodalToolDeclaration,
} from './schema.js';
export { inlineInput } from './logic.js';

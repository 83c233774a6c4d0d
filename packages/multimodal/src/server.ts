/** The `./server` entry: `multimodalServer`, and what tool handlers call to read their binary inputs. */
import type { ServerExtension } from '@ext/core';
import { DATA_REFERENCES_PACKAGE } from '@ext/data-references';
import { toolDeclaration } from './logic.js';
import { multimodalMiddleware } from './middleware.js';
import { serverConfig, type MultimodalServerOptions } from './options.js';
import {
  MULTIMODAL_ID,
  MULTIMODAL_PACKAGE,
  MULTIMODAL_WIRE_VERSION,
  MultimodalClientSettingsSchema,
  type MultimodalServerSettings,
  type MultimodalToolMeta,
} from './schema.js';

export type { BinaryInput, BinaryInputKind } from './logic.js';
export type { MultimodalServerOptions } from './options.js';
export { inputsOf, openInput } from './inputs.js';
export { binaryInputSchema } from './input-schema.js';

/**
 * The server half of multimodal signatures: lists each tool's declared
 * `input_types`, `output_types` and `max_input_size_bytes` in
 * `Tool._meta[<id>]`, and at the `multimodal` stage (before confirmation
 * and anything with effects) refuses a call whose binary inputs are too
 * large (`PAYLOAD_TOO_LARGE`) or of a type the tool does not take
 * (`UNSUPPORTED_MEDIA_TYPE`, `invalid_input`). With `outOfBand`, clients
 * may upload bytes to the data-references endpoint and pass a reference;
 * its real size and type are read from this server's own records.
 */
export function multimodalServer(options: MultimodalServerOptions = {}): ServerExtension {
  const config = serverConfig(options);
  const { outOfBand, maxInputSizeBytes: defaultMax, transports } = config;
  const declarations = new Map<string, MultimodalToolMeta | undefined>();

  const settings: Omit<MultimodalServerSettings, 'version'> = { binary_transport: transports };
  if (options.mimeTypes !== undefined) settings.mimeTypes = [...options.mimeTypes];
  if (defaultMax !== undefined) settings.max_input_size_bytes = defaultMax;

  return {
    side: 'server',
    name: MULTIMODAL_PACKAGE,
    ids: [MULTIMODAL_ID],
    settings: { version: MULTIMODAL_WIRE_VERSION, ...settings },
    peerSettings: MultimodalClientSettingsSchema,
    requires: outOfBand ? [DATA_REFERENCES_PACKAGE] : undefined,
    stage: 'multimodal',
    middleware: multimodalMiddleware(config, declarations),
    toolMeta(tool) {
      // Validates at registration, so a malformed declaration fails at startup, naming the tool and the field.
      const declaration = toolDeclaration(tool, MULTIMODAL_ID, transports);
      declarations.set(tool.name, declaration);
      if (declaration === undefined) return undefined;
      return { ...declaration };
    },
  };
}

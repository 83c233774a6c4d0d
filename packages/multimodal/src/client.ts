/** The `./client` entry: `multimodalClient`, reading tools' media declarations, and passing bytes the cheapest way. */
import { ConfigurationError, type ClientExtension, type ExtendedClient } from '@ext/core';
import { lazyValidator } from '@ext/core/kit';
import { isMimeType, type DataReference } from '@ext/data-references';
import { uploadData } from '@ext/data-references/client';
import { inlineInput } from './logic.js';
import { clientConfig, type ClientConfig, type MultimodalClientOptions } from './options.js';
import {
  MULTIMODAL_ID,
  MULTIMODAL_PACKAGE,
  MULTIMODAL_WIRE_VERSION,
  MultimodalServerSettingsSchema,
  MultimodalToolMetaSchema,
  type MultimodalServerSettings,
  type MultimodalToolMeta,
} from './schema.js';

export type { MultimodalClientOptions } from './options.js';

// Keyed by the descriptor the client composed, so each client keeps its own options.
const states = new WeakMap<ClientExtension, ClientConfig>();

/**
 * The client half: advertises the media types the client can show and
 * whether it can send binary out of band; {@link binaryInput} then picks the
 * cheapest way to pass bytes in tool arguments.
 */
export function multimodalClient(options: MultimodalClientOptions = {}): ClientExtension {
  const config = clientConfig(options);
  const settings: Record<string, unknown> = { binary_transport: config.transports };
  if (options.mimeTypes !== undefined) settings.mimeTypes = [...options.mimeTypes];
  const extension: ClientExtension = {
    side: 'client',
    name: MULTIMODAL_PACKAGE,
    ids: [MULTIMODAL_ID],
    settings: { version: MULTIMODAL_WIRE_VERSION, ...settings },
    peerSettings: MultimodalServerSettingsSchema,
  };
  states.set(extension, config);
  return extension;
}

/** The server's multimodal settings, or `undefined` when it does not negotiate the extension. */
export function getMultimodalSettings(client: ExtendedClient): MultimodalServerSettings | undefined {
  return client.negotiated<MultimodalServerSettings>(MULTIMODAL_ID)?.settings;
}

const toolMeta = lazyValidator(MultimodalToolMetaSchema);

/** A listed tool's media declaration (`_meta[<id>]`), or `undefined` when it has none or it is malformed. */
export function toolMediaTypes(tool: {
  readonly _meta?: Readonly<Record<string, unknown>> | undefined;
}): MultimodalToolMeta | undefined {
  const meta = tool._meta?.[MULTIMODAL_ID];
  return toolMeta().Check(meta) ? meta : undefined;
}

/** A binary tool argument: inline MCP content, or a reference to bytes uploaded out of band. */
export type BinaryArgument = Record<string, unknown> | DataReference;

/**
 * Turns bytes into a tool argument the cheapest way both sides allow: when
 * the server negotiated multimodal with `data-reference` transport and takes
 * data-reference uploads, and the bytes are at least `minOutOfBandBytes`,
 * they are uploaded raw (one HTTP `PUT`, no base64) and the argument is the
 * returned `DataReference`; otherwise it is inline MCP content (image,
 * audio, or an embedded blob) with base64 data.
 *
 * @example
 * ```ts
 * const image = await binaryInput(client, png, { mimeType: 'image/png' });
 * await client.callTool('describe_image', { image });
 * ```
 */
export async function binaryInput(
  client: ExtendedClient,
  bytes: Uint8Array,
  options: { mimeType: string; signal?: AbortSignal | undefined },
): Promise<BinaryArgument> {
  if (!isMimeType(options.mimeType)) {
    throw new ConfigurationError(
      'INVALID_OPTION',
      `binaryInput: mimeType must be a media type such as image/png, got ${JSON.stringify(options.mimeType)}`,
    );
  }
  const half = client.composed.extensions.find((extension) => extension.name === MULTIMODAL_PACKAGE);
  const state = half === undefined ? undefined : states.get(half);
  const server = getMultimodalSettings(client);
  const outOfBand =
    state !== undefined &&
    state.outOfBand &&
    bytes.byteLength >= state.minOutOfBandBytes &&
    server?.binary_transport?.includes('data-reference') === true;
  if (outOfBand) {
    const reference = await uploadData(client, bytes, { mimeType: options.mimeType, signal: options.signal });
    if (reference !== undefined) return reference;
  }
  return inlineInput(bytes, options.mimeType);
}

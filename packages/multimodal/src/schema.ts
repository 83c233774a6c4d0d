/** The wire contract: identifiers, and every payload as a TypeBox schema, shipped as JSON Schema 2020-12. */
import { extensionId } from '@ext/core';
import Type, { type Static } from 'typebox';

/** The extension identifier: `io.github.mcp-ext/multimodal`. */
export const MULTIMODAL_ID = extensionId('multimodal');

/** npm package name; the core negotiates extensions by it. */
export const MULTIMODAL_PACKAGE = '@ext/multimodal';

/** Wire contract version this package speaks. */
export const MULTIMODAL_WIRE_VERSION = '1.0';

/** Where this package's JSON Schemas are identified (one folder per wire version). */
export const SCHEMA_BASE = 'https://mcp-ext.github.io/schemas/multimodal/1.0';

/**
 * A media range: `type/subtype`, `type/*` or `*\/*` (RFC 9110 section
 * 12.5.1, without parameters). Lower and upper case mean the same.
 */
export const MEDIA_RANGE_PATTERN_SOURCE =
  '^(?:\\*/\\*|[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}/(?:\\*|[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}))$';

/** How binary inputs may travel: base64 inside the JSON arguments, or uploaded out of band and passed as a data reference. */
export const BINARY_TRANSPORTS = ['base64', 'data-reference'] as const;
export type BinaryTransport = (typeof BINARY_TRANSPORTS)[number];

const mediaRanges = () => Type.Array(Type.String({ pattern: MEDIA_RANGE_PATTERN_SOURCE }), { maxItems: 256 });
// Unknown transports from a newer peer are ignored, not refused.
const transports = () => Type.Array(Type.String({ maxLength: 64 }), { maxItems: 16 });

/**
 * What the server advertises in `capabilities.extensions[MULTIMODAL_ID]`.
 * `mimeTypes` is named as in the official MCP Apps extension's settings, so
 * hosts that know that one recognise it; the other fields follow the seed's
 * snake_case. Unknown fields are ignored.
 */
export const MultimodalServerSettingsSchema = Type.Object(
  {
    version: Type.String(),
    /** The media types this server's tools accept overall (each tool says which in its `_meta`). */
    mimeTypes: Type.Optional(mediaRanges()),
    binary_transport: Type.Optional(transports()),
    /** The limit for tools that declare none. */
    max_input_size_bytes: Type.Optional(Type.Integer({ minimum: 0 })),
  },
  { $id: `${SCHEMA_BASE}/server-settings.json`, title: 'MultimodalServerSettings' },
);
export type MultimodalServerSettings = Static<typeof MultimodalServerSettingsSchema>;

/** What the client advertises: the media types it can show, and how it can send binary. */
export const MultimodalClientSettingsSchema = Type.Object(
  {
    version: Type.String(),
    mimeTypes: Type.Optional(mediaRanges()),
    binary_transport: Type.Optional(transports()),
  },
  { $id: `${SCHEMA_BASE}/client-settings.json`, title: 'MultimodalClientSettings' },
);
export type MultimodalClientSettings = Static<typeof MultimodalClientSettingsSchema>;

/**
 * `Tool._meta[MULTIMODAL_ID]` as the server lists it (seed proposal 10:
 * `input_types`, `output_types`, `max_input_size_bytes`,
 * `binary_transport`). `input_types` are hints for matching, not an
 * exhaustive list, when `accepts_unlisted_types` is true.
 */
export const MultimodalToolMetaSchema = Type.Object(
  {
    input_types: mediaRanges(),
    output_types: mediaRanges(),
    /** Largest total size of the call's binary inputs, decoded. Absent: no limit. */
    max_input_size_bytes: Type.Optional(Type.Integer({ minimum: 0 })),
    accepts_unlisted_types: Type.Boolean(),
    binary_transport: transports(),
  },
  { $id: `${SCHEMA_BASE}/tool-meta.json`, title: 'MultimodalToolMeta' },
);
export type MultimodalToolMeta = Static<typeof MultimodalToolMetaSchema>;

/** What a tool author writes in `Tool._meta[MULTIMODAL_ID]`: every field optional. */
export const MultimodalToolDeclarationSchema = Type.Object(
  {
    input_types: Type.Optional(mediaRanges()),
    output_types: Type.Optional(mediaRanges()),
    max_input_size_bytes: Type.Optional(Type.Integer({ minimum: 0 })),
    accepts_unlisted_types: Type.Optional(Type.Boolean()),
  },
  { $id: `${SCHEMA_BASE}/tool-declaration.json`, title: 'MultimodalToolDeclaration' },
);
export type MultimodalToolDeclaration = Static<typeof MultimodalToolDeclarationSchema>;

/** Every wire shape of this extension, by name, as JSON Schema 2020-12. */
export const MULTIMODAL_SCHEMAS = {
  MultimodalServerSettings: MultimodalServerSettingsSchema,
  MultimodalClientSettings: MultimodalClientSettingsSchema,
  MultimodalToolMeta: MultimodalToolMetaSchema,
  MultimodalToolDeclaration: MultimodalToolDeclarationSchema,
} as const;

/**
 * Every wire shape as one JSON Schema 2020-12 document (shipped as
 * `schema.json`), each shape an embedded resource under `$defs`.
 */
export function multimodalJsonSchema(): Record<string, unknown> {
  const defs = Object.fromEntries(
    Object.entries(MULTIMODAL_SCHEMAS).map(([name, schema]) => [name, JSON.parse(JSON.stringify(schema)) as unknown]),
  );
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: `${SCHEMA_BASE}/multimodal.json`,
    title: 'MCP multimodal extension (io.github.mcp-ext/multimodal)',
    description: 'Wire payloads of the multimodal extension: settings and per-tool media declarations.',
    $defs: defs,
  };
}

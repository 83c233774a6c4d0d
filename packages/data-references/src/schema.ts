/** The wire contract: identifiers, and every payload as a TypeBox schema, shipped as JSON Schema 2020-12. */
import { extensionId } from '@ext/core';
import { StructuredErrorSchema } from '@ext/core/kit';
import Type, { type Static } from 'typebox';

/** The extension identifier: `io.github.mcp-ext/data-references`. */
export const DATA_REFERENCES_ID = extensionId('data-references');

/** npm package name; the core negotiates extensions by it. */
export const DATA_REFERENCES_PACKAGE = '@ext/data-references';

/** Wire contract version this package speaks. */
export const DATA_REFERENCES_WIRE_VERSION = '1.0';

/** Where this package's JSON Schemas are identified (one folder per wire version). */
export const SCHEMA_BASE = 'https://mcp-ext.github.io/schemas/data-references/1.0';

/**
 * A media type as it may appear in a `Content-Type` header: `type/subtype`
 * (RFC 6838 restricted names) and optional parameters, printable ASCII only,
 * so a value can never smuggle a header line.
 */
export const MIME_TYPE_PATTERN_SOURCE =
  '^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}(?:[ \\t]*;[\\x20-\\x7E]*)?$';

/** Reference ids this package mints: URL-safe, so they can be a path segment. */
export const REF_ID_PATTERN_SOURCE = '^[A-Za-z0-9_-]{1,128}$';

// Shapes nested in others are built twice (with and without `$id`), so one document never holds an `$id` twice.
const checksum = (options: Record<string, string> = {}) =>
  Type.Object(
    {
      algorithm: Type.Union([Type.Literal('sha256'), Type.Literal('md5')]),
      /** Hex digest of the whole payload. */
      value: Type.String({ pattern: '^[0-9a-fA-F]{32,128}$' }),
    },
    options,
  );
export const ChecksumSchema = checksum({ $id: `${SCHEMA_BASE}/checksum.json`, title: 'Checksum' });
export type Checksum = Static<typeof ChecksumSchema>;

/** An opaque handle to data a server produced (seed `DataReference`). */
const dataReference = (options: Record<string, string> = {}) =>
  Type.Object(
    {
      ref_id: Type.String({ minLength: 1, maxLength: 256 }),
      /** Name of the server that produced the data. */
      origin_server: Type.String({ minLength: 1, maxLength: 256 }),
      mime_type: Type.String({ minLength: 1, maxLength: 255 }),
      size_bytes: Type.Optional(Type.Integer({ minimum: 0 })),
      expires_at: Type.Optional(Type.String({ format: 'date-time' })),
      /** Signed, expiring URL where the bytes can be fetched; the URL is the credential. */
      access_url: Type.Optional(Type.String({ format: 'uri', maxLength: 4096 })),
      checksum: Type.Optional(checksum()),
    },
    options,
  );
export const DataReferenceSchema = dataReference({ $id: `${SCHEMA_BASE}/data-reference.json`, title: 'DataReference' });
export type DataReference = Static<typeof DataReferenceSchema>;

/**
 * Params of `<id>/import` (seed `ImportFromRefRequest`): the seed's
 * `ref_id`, `origin_server` and `target_format`, plus the fields of the
 * `DataReference` being imported, so a client passes the reference it got
 * as it is.
 */
export const ImportFromRefRequestSchema = Type.Object(
  {
    ref_id: Type.String({ minLength: 1, maxLength: 256 }),
    origin_server: Type.String({ minLength: 1, maxLength: 256 }),
    target_format: Type.Optional(Type.String({ maxLength: 128 })),
    mime_type: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    size_bytes: Type.Optional(Type.Integer({ minimum: 0 })),
    expires_at: Type.Optional(Type.String({ format: 'date-time' })),
    access_url: Type.Optional(Type.String({ minLength: 1, maxLength: 4096 })),
    checksum: Type.Optional(checksum()),
  },
  { $id: `${SCHEMA_BASE}/import-request.json`, title: 'ImportFromRefRequest' },
);
export type ImportFromRefRequest = Static<typeof ImportFromRefRequestSchema>;

/** Result of `<id>/import` (seed `ImportFromRefResponse`). */
export const ImportFromRefResponseSchema = Type.Object(
  {
    status: Type.Union([Type.Literal('imported'), Type.Literal('pending'), Type.Literal('failed')]),
    /** Where the data now lives on the importing server (its own reference id when it keeps imports as references). */
    imported_resource_id: Type.Optional(Type.String()),
    rows_imported: Type.Optional(Type.Integer({ minimum: 0 })),
    /** Bytes received and verified. */
    size_bytes: Type.Optional(Type.Integer({ minimum: 0 })),
    /** The importing server's own reference to the copy, when it serves one. */
    reference: Type.Optional(dataReference()),
    error: Type.Optional(StructuredErrorSchema),
  },
  { $id: `${SCHEMA_BASE}/import-response.json`, title: 'ImportFromRefResponse' },
);
export type ImportFromRefResponse = Static<typeof ImportFromRefResponseSchema>;

/** What the server advertises in `capabilities.extensions[DATA_REFERENCES_ID]`. Unknown fields are ignored. */
export const DataReferencesServerSettingsSchema = Type.Object(
  {
    version: Type.String(),
    /** The name this server puts in `origin_server` of the references it produces. */
    origin_server: Type.Optional(Type.String()),
    /** Present when the server serves `<id>/import`. */
    import: Type.Optional(Type.Object({ max_size_bytes: Type.Integer({ minimum: 0 }) })),
    /** Present when the server hands out upload URLs through `<id>/upload`. */
    upload: Type.Optional(
      Type.Object({ max_size_bytes: Type.Integer({ minimum: 0 }), ttl_seconds: Type.Integer({ minimum: 1 }) }),
    ),
  },
  { $id: `${SCHEMA_BASE}/server-settings.json`, title: 'DataReferencesServerSettings' },
);
export type DataReferencesServerSettings = Static<typeof DataReferencesServerSettingsSchema>;

/** What the client advertises: only the wire version. */
export const DataReferencesClientSettingsSchema = Type.Object(
  { version: Type.String() },
  { $id: `${SCHEMA_BASE}/client-settings.json`, title: 'DataReferencesClientSettings' },
);
export type DataReferencesClientSettings = Static<typeof DataReferencesClientSettingsSchema>;

/** `result._meta[DATA_REFERENCES_ID]` of a tool result that hands out references. */
export const DataReferencesResultMetaSchema = Type.Object(
  { references: Type.Array(dataReference(), { minItems: 1, maxItems: 100 }) },
  { $id: `${SCHEMA_BASE}/result-meta.json`, title: 'DataReferencesResultMeta' },
);
export type DataReferencesResultMeta = Static<typeof DataReferencesResultMetaSchema>;

/** Params of `<id>/upload`: what the client is about to upload. */
export const UploadRequestSchema = Type.Object(
  {
    mime_type: Type.String({ pattern: MIME_TYPE_PATTERN_SOURCE, maxLength: 255 }),
    /** The size the client will send, when known: refused at once when over the limit. */
    size_bytes: Type.Optional(Type.Integer({ minimum: 0 })),
  },
  { $id: `${SCHEMA_BASE}/upload-request.json`, title: 'UploadRequest' },
);
export type UploadRequest = Static<typeof UploadRequestSchema>;

/** Result of `<id>/upload`: a single-use, expiring URL that takes the raw bytes. */
export const UploadTicketSchema = Type.Object(
  {
    upload_url: Type.String({ format: 'uri' }),
    method: Type.Literal('PUT'),
    expires_at: Type.String({ format: 'date-time' }),
    max_size_bytes: Type.Integer({ minimum: 0 }),
  },
  { $id: `${SCHEMA_BASE}/upload-ticket.json`, title: 'UploadTicket' },
);
export type UploadTicket = Static<typeof UploadTicketSchema>;

/** Every wire shape of this extension, by name, as JSON Schema 2020-12. */
export const DATA_REFERENCES_SCHEMAS = {
  Checksum: ChecksumSchema,
  DataReference: DataReferenceSchema,
  ImportFromRefRequest: ImportFromRefRequestSchema,
  ImportFromRefResponse: ImportFromRefResponseSchema,
  DataReferencesServerSettings: DataReferencesServerSettingsSchema,
  DataReferencesClientSettings: DataReferencesClientSettingsSchema,
  DataReferencesResultMeta: DataReferencesResultMetaSchema,
  UploadRequest: UploadRequestSchema,
  UploadTicket: UploadTicketSchema,
} as const;

/**
 * Every wire shape as one JSON Schema 2020-12 document (shipped as
 * `schema.json`), each shape an embedded resource under `$defs`.
 */
export function dataReferencesJsonSchema(): Record<string, unknown> {
  const defs = Object.fromEntries(
    Object.entries(DATA_REFERENCES_SCHEMAS).map(([name, schema]) => [
      name,
      JSON.parse(JSON.stringify(schema)) as unknown,
    ]),
  );
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: `${SCHEMA_BASE}/data-references.json`,
    title: 'MCP data references extension (io.github.mcp-ext/data-references)',
    description:
      'Wire payloads of the data-references extension: settings, references, result _meta, import and upload methods.',
    $defs: defs,
  };
}

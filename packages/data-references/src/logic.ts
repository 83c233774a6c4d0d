/**
 * Pure reading and writing of data-reference values: media types and ids,
 * `Range` headers, method params, and the tool results that hand references out.
 */
import { firstViolation, lazyValidator, pointerField, type Parsed, type SchemaViolation } from '@ext/core/kit';
import { type ContentBlock, type ToolResult } from '@ext/core';
import {
  DATA_REFERENCES_ID,
  DataReferenceSchema,
  DataReferencesResultMetaSchema,
  ImportFromRefRequestSchema,
  MIME_TYPE_PATTERN_SOURCE,
  REF_ID_PATTERN_SOURCE,
  UploadRequestSchema,
  type DataReference,
  type ImportFromRefRequest,
  type UploadRequest,
} from './schema.js';

const MIME_TYPE = new RegExp(MIME_TYPE_PATTERN_SOURCE);
const REF_ID = new RegExp(REF_ID_PATTERN_SOURCE);

/** Whether `value` is a media type this package accepts (safe to put in a `Content-Type` header). */
export function isMimeType(value: unknown): value is string {
  return typeof value === 'string' && value.length <= 255 && MIME_TYPE.test(value);
}

/** Whether `value` can be a reference id this package serves (a URL path segment). */
export function isRefId(value: unknown): value is string {
  return typeof value === 'string' && REF_ID.test(value);
}

/** The media type without its parameters, lower-cased: `Image/PNG; q=1` -> `image/png`. */
export function essenceOf(mimeType: string): string {
  const semicolon = mimeType.indexOf(';');
  return (semicolon === -1 ? mimeType : mimeType.slice(0, semicolon)).trim().toLowerCase();
}

// Media types whose bytes are text though not `text/*`, and the structured-syntax suffixes that are.
const TEXT_APPLICATION_TYPES = new Set([
  'application/json',
  'application/xml',
  'application/javascript',
  'application/ecmascript',
  'application/x-ndjson',
  'application/yaml',
  'application/x-yaml',
  'application/toml',
  'application/csv',
  'application/sql',
  'application/graphql',
]);
const TEXT_SUFFIXES = ['+json', '+xml', '+yaml'];
const UTF8_CHARSETS = new Set(['utf-8', 'utf8', 'us-ascii']);

/** The `charset` parameter of a media type, lower-cased and unquoted, or `undefined`. */
function charsetOf(mimeType: string): string | undefined {
  for (const parameter of mimeType.split(';').slice(1)) {
    const [name = '', value = ''] = parameter.split('=', 2).map((part) => part.trim());
    if (name.toLowerCase() === 'charset') return value.replace(/^"(.*)"$/, '$1').toLowerCase();
  }
  return undefined;
}

/**
 * Whether bytes of this media type are UTF-8 text (`text/*`, JSON, XML,
 * YAML and the like, with no charset or a UTF-8 one), so `resources/read`
 * answers them as `text` rather than base64 `blob` (DREF-25).
 */
export function isTextMediaType(mimeType: string): boolean {
  const essence = essenceOf(mimeType);
  const textual =
    essence.startsWith('text/') ||
    TEXT_APPLICATION_TYPES.has(essence) ||
    TEXT_SUFFIXES.some((suffix) => essence.endsWith(suffix));
  const charset = charsetOf(mimeType);
  return textual && (charset === undefined || UTF8_CHARSETS.has(charset));
}

// ---------------------------------------------------------------------------
// Range requests (RFC 9110 section 14)
// ---------------------------------------------------------------------------

export type RangeDecision =
  | { readonly kind: 'full' }
  | { readonly kind: 'partial'; readonly start: number; readonly end: number }
  | { readonly kind: 'unsatisfiable' };

const SINGLE_RANGE = /^bytes[ \t]*=[ \t]*(\d{0,16})[ \t]*-[ \t]*(\d{0,16})[ \t]*$/i;

/**
 * Decides how to answer a `Range` header for a payload of `size` bytes:
 * the whole payload (no header, a malformed one, or several ranges, which
 * a server may ignore), one inclusive byte range, or 416. Never throws.
 */
export function parseRange(header: string | undefined, size: number): RangeDecision {
  if (header === undefined) return { kind: 'full' };
  const match = SINGLE_RANGE.exec(header);
  if (!match) return { kind: 'full' };
  const [, first = '', last = ''] = match;
  if (first === '' && last === '') return { kind: 'full' };
  if (first === '') {
    const suffix = Number(last);
    if (suffix === 0 || size === 0) return { kind: 'unsatisfiable' };
    return { kind: 'partial', start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(first);
  if (last !== '' && Number(last) < start) return { kind: 'full' };
  if (start >= size) return { kind: 'unsatisfiable' };
  const end = last === '' ? size - 1 : Math.min(Number(last), size - 1);
  return { kind: 'partial', start, end };
}

/** `Content-Range` of a partial answer, or of a 416 (`bytes *\/size`). */
export function contentRange(decision: RangeDecision, size: number): string | undefined {
  if (decision.kind === 'partial') return `bytes ${decision.start}-${decision.end}/${size}`;
  if (decision.kind === 'unsatisfiable') return `bytes */${size}`;
  return undefined;
}
// ---------------------------------------------------------------------------
// Boundary parsing
// ---------------------------------------------------------------------------

/** Where the first violation is, and the field a person would look for (`params` when none is named). */
function violationSite(errors: Iterable<SchemaViolation>): { pointer: string; field: string } {
  const { pointer } = firstViolation(errors);
  return { pointer, field: pointerField(pointer, 'params') };
}

function withoutMeta(params: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const { _meta: _ignored, ...body } = params;
  return body;
}

const importValidator = lazyValidator(ImportFromRefRequestSchema);
const uploadValidator = lazyValidator(UploadRequestSchema);
const referenceValidator = lazyValidator(DataReferenceSchema);
const resultMetaValidator = lazyValidator(DataReferencesResultMetaSchema);

/** Validates `<id>/import` params (without `_meta`). Never throws. */
export function parseImportRequest(params: Readonly<Record<string, unknown>>): Parsed<ImportFromRefRequest> {
  const validator = importValidator();
  const body = withoutMeta(params);
  if (validator.Check(body)) return { ok: true, value: body };
  const { pointer, field } = violationSite(validator.Errors(body));
  return { ok: false, pointer, field, message: `Invalid import request: ${field} is missing or malformed` };
}

/** Validates `<id>/upload` params (without `_meta`). Never throws. */
export function parseUploadRequest(params: Readonly<Record<string, unknown>>): Parsed<UploadRequest> {
  const validator = uploadValidator();
  const body = withoutMeta(params);
  if (validator.Check(body)) return { ok: true, value: body };
  const { pointer, field } = violationSite(validator.Errors(body));
  const what =
    field === 'mime_type'
      ? 'must be a media type such as image/png'
      : field === 'size_bytes'
        ? 'must be a non-negative integer'
        : 'is malformed';
  return { ok: false, pointer, field, message: `Invalid upload request: ${field} ${what}` };
}

/** Whether `value` is a `DataReference` (seed shape). Never throws. */
export function isDataReference(value: unknown): value is DataReference {
  return referenceValidator().Check(value);
}

/** The references in a tool result's `_meta[id]`, or `[]` when there are none or the entry is malformed. Never throws. */
export function referencesInResult(
  result: { readonly _meta?: Readonly<Record<string, unknown>> | undefined },
  id: string,
): DataReference[] {
  const meta = result._meta?.[id];
  return resultMetaValidator().Check(meta) ? meta.references : [];
}

/** The import request for a reference: the reference itself, plus a target format when given. */
export function importRequestFor(reference: DataReference, targetFormat?: string): ImportFromRefRequest {
  const request: ImportFromRefRequest = { ...reference };
  if (targetFormat !== undefined) request.target_format = targetFormat;
  return request;
}

// ---------------------------------------------------------------------------
// Tool results
// ---------------------------------------------------------------------------

/**
 * A `resource_link` content block for a reference, so a client that knows
 * nothing of the extension can still fetch the bytes at the signed URL.
 * `undefined` for a reference without an access URL.
 */
export function resourceLinkFor(reference: DataReference): ContentBlock | undefined {
  if (reference.access_url === undefined) return undefined;
  const link: ContentBlock = {
    type: 'resource_link',
    uri: reference.access_url,
    name: reference.ref_id,
    mimeType: reference.mime_type,
    // Enough for a model to pass the reference on (import_from_ref) when its client cannot read `_meta`.
    description: [
      `Data reference ${reference.ref_id} from origin_server ${reference.origin_server}`,
      reference.checksum === undefined ? undefined : `${reference.checksum.algorithm} ${reference.checksum.value}`,
      reference.expires_at === undefined ? undefined : `the link expires at ${reference.expires_at}`,
    ]
      .filter((part) => part !== undefined)
      .join('; ')
      .concat('.'),
  };
  if (reference.size_bytes !== undefined) link.size = reference.size_bytes;
  return link;
}

/**
 * A tool result that hands out references instead of inlining the data:
 * `result._meta[DATA_REFERENCES_ID] = { references }` for clients that
 * negotiated the extension, a `resource_link` per reference for the others,
 * and `text` first when given.
 */
export function referenceResult(
  references: DataReference | readonly DataReference[],
  options: { text?: string | undefined } = {},
): ToolResult {
  const list: DataReference[] = Array.isArray(references)
    ? [...(references as readonly DataReference[])]
    : [references as DataReference];
  const content: ContentBlock[] = [];
  if (options.text !== undefined) content.push({ type: 'text', text: options.text });
  for (const reference of list) {
    const link = resourceLinkFor(reference);
    if (link !== undefined) content.push(link);
  }
  return { content, _meta: { [DATA_REFERENCES_ID]: { references: list } } };
}

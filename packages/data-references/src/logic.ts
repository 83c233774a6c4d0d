import { createHmac, timingSafeEqual } from 'node:crypto';
import { ConfigurationError, ExtensionError, type ContentBlock, type ErrorCategory, type ToolResult } from '@ext/core';
import { Compile } from 'typebox/compile';
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
// Signed URLs
// ---------------------------------------------------------------------------

/** What a signed URL lets its holder do; part of the signed text, so one can never stand for the other. */
export type SigningPurpose = 'download' | 'upload';

const SIGNATURE_BYTES = 32;

/** HMAC-SHA256 over purpose, id and expiry, base64url. */
export function sign(key: Uint8Array, purpose: SigningPurpose, id: string, expiresSeconds: number): string {
  return createHmac('sha256', key)
    .update(`io.github.mcp-ext/data-references\n${purpose}\n${id}\n${String(expiresSeconds)}`)
    .digest('base64url');
}

export type SignedRequestCheck =
  | { readonly ok: true; readonly expiresSeconds: number }
  | { readonly ok: false; readonly reason: 'signature' | 'expired' };

const EXPIRES = /^\d{1,12}$/;
const SIGNATURE = /^[A-Za-z0-9_-]{43}$/;

/**
 * Checks the `expires` and `sig` query parameters of a request for `id`:
 * the signature first (constant-time, against every key, so a rotated-out
 * key still verifies), then the expiry. Never throws.
 */
export function checkSignedRequest(
  keys: readonly Uint8Array[],
  purpose: SigningPurpose,
  id: string,
  query: URLSearchParams,
  nowMs: number,
): SignedRequestCheck {
  const expires = query.get('expires') ?? '';
  const candidate = query.get('sig') ?? '';
  if (!EXPIRES.test(expires) || !SIGNATURE.test(candidate)) return { ok: false, reason: 'signature' };
  const given = Buffer.from(candidate, 'base64url');
  // The last of 43 characters carries two spare bits, so four spellings decode to the same
  // bytes; only the canonical one is accepted, so a changed URL is always a refused URL.
  if (given.length !== SIGNATURE_BYTES || given.toString('base64url') !== candidate)
    return { ok: false, reason: 'signature' };
  const expiresSeconds = Number(expires);
  let valid = false;
  for (const key of keys) {
    // Every key is tried, whatever matched, so the time taken says nothing about which one did.
    const expected = Buffer.from(sign(key, purpose, id, expiresSeconds), 'base64url');
    if (timingSafeEqual(expected, given)) valid = true;
  }
  if (!valid) return { ok: false, reason: 'signature' };
  if (expiresSeconds * 1000 <= nowMs) return { ok: false, reason: 'expired' };
  return { ok: true, expiresSeconds };
}

/** `base` (no trailing slash) + `/segments...` + `?expires=...&sig=...`. */
export function signedUrl(
  base: string,
  segments: readonly string[],
  key: Uint8Array,
  purpose: SigningPurpose,
  id: string,
  expiresSeconds: number,
): string {
  const path = segments.map((segment) => encodeURIComponent(segment)).join('/');
  return `${base.replace(/\/+$/, '')}/${path}?expires=${String(expiresSeconds)}&sig=${sign(key, purpose, id, expiresSeconds)}`;
}

/** Reads a signing secret given as text or bytes; throws a `ConfigurationError` naming the option when it is too short. */
export function secretBytes(value: unknown, option: string): Uint8Array {
  let bytes: Uint8Array;
  if (typeof value === 'string') bytes = Buffer.from(value, 'utf8');
  else if (value instanceof Uint8Array) bytes = Uint8Array.from(value);
  else
    throw new ConfigurationError('INVALID_OPTION', `${option} must be a string or a Uint8Array of at least 32 bytes`);
  if (bytes.length < 32) {
    throw new ConfigurationError(
      'INVALID_OPTION',
      `${option} must be at least 32 bytes long (got ${String(bytes.length)}); use 32 random bytes`,
    );
  }
  return bytes;
}

// ---------------------------------------------------------------------------
// Import policy
// ---------------------------------------------------------------------------

/** Which origins an importing server fetches from: exact URL origins, or a predicate. */
export type OriginPolicy = readonly string[] | ((url: URL) => boolean);

/** A checked policy: a predicate over URLs. */
export type OriginCheck = (url: URL) => boolean;

/**
 * Validates an allow-list at configuration time: each entry an http(s) URL
 * origin (`https://files.example.com`, `http://127.0.0.1:8080`), without
 * path, query or credentials. Throws a `ConfigurationError` naming the entry.
 */
export function originCheck(policy: OriginPolicy, option: string): OriginCheck {
  if (typeof policy === 'function') return policy;
  if (!Array.isArray(policy))
    throw new ConfigurationError(
      'INVALID_OPTION',
      `${option} must be an array of URL origins or a function (url) => boolean`,
    );
  const origins = new Set<string>();
  for (const entry of policy as readonly unknown[]) {
    let url: URL | undefined;
    try {
      url = typeof entry === 'string' ? new URL(entry) : undefined;
    } catch (error) {
      throw new ConfigurationError(
        'INVALID_OPTION',
        `${option}: ${JSON.stringify(entry)} is not a URL (${String(error)})`,
      );
    }
    if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
      throw new ConfigurationError(
        'INVALID_OPTION',
        `${option}: ${JSON.stringify(entry)} must be an http or https URL origin`,
      );
    }
    if (
      (url.pathname !== '/' && url.pathname !== '') ||
      url.search !== '' ||
      url.hash !== '' ||
      url.username !== '' ||
      url.password !== ''
    ) {
      throw new ConfigurationError(
        'INVALID_OPTION',
        `${option}: ${JSON.stringify(entry)} must be an origin only (scheme, host, port), e.g. ${url.origin}`,
      );
    }
    origins.add(url.origin);
  }
  return (url) => origins.has(url.origin);
}

/** A reason an import failed, as the structured error of an `ImportFromRefResponse`. */
export function importFailure(
  category: ErrorCategory,
  code: string,
  message: string,
  options: { suggestion?: string; details?: Record<string, unknown>; userActionable?: boolean } = {},
): ExtensionError {
  return new ExtensionError(category, code, message, {
    userActionable: options.userActionable ?? false,
    suggestion: options.suggestion,
    details: options.details,
  });
}

/**
 * Why a server without an import policy fetches nothing (DREF-12a): its
 * allow-list is empty, so every origin is refused, as `ORIGIN_NOT_ALLOWED`.
 */
export function importsNothing(reference: { readonly ref_id: string; readonly origin_server: string }): ExtensionError {
  return importFailure(
    'permanent',
    'ORIGIN_NOT_ALLOWED',
    `This server imports no data from other servers, so it cannot read a reference of "${reference.origin_server}"`,
    {
      userActionable: true,
      suggestion: 'Send the data inline, or upload it to this server and pass the reference it returns.',
      details: { ref_id: reference.ref_id, origin_server: reference.origin_server },
    },
  );
}

export type UrlDecision =
  { readonly ok: true; readonly url: URL } | { readonly ok: false; readonly error: ExtensionError };

/** Whether a reference's `access_url` may be fetched: http(s), no credentials, an allowed origin. Never throws. */
export function checkAccessUrl(raw: string | undefined, allowed: OriginCheck): UrlDecision {
  if (raw === undefined) {
    return {
      ok: false,
      error: importFailure(
        'invalid_input',
        'UNSUPPORTED_URL',
        'The reference carries no access_url, so its bytes cannot be fetched',
        {
          suggestion: 'Pass the whole DataReference the origin server returned, including its access_url.',
          details: { field: 'access_url' },
        },
      ),
    };
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return {
      ok: false,
      error: importFailure('invalid_input', 'UNSUPPORTED_URL', 'The access_url is not a valid URL', {
        details: { field: 'access_url' },
      }),
    };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return {
      ok: false,
      error: importFailure(
        'invalid_input',
        'UNSUPPORTED_URL',
        `Only http and https access URLs are fetched, not ${url.protocol.replace(/:$/, '')}`,
        {
          details: { field: 'access_url', scheme: url.protocol.replace(/:$/, '') },
        },
      ),
    };
  }
  if (url.username !== '' || url.password !== '') {
    return {
      ok: false,
      error: importFailure('invalid_input', 'UNSUPPORTED_URL', 'Access URLs with credentials in them are not fetched', {
        details: { field: 'access_url' },
      }),
    };
  }
  if (!allowed(url)) {
    return {
      ok: false,
      error: importFailure('permanent', 'ORIGIN_NOT_ALLOWED', `This server does not import from ${url.origin}`, {
        userActionable: true,
        suggestion: 'Import only references produced by servers this server is configured to trust.',
        details: { origin: url.origin },
      }),
    };
  }
  return { ok: true, url };
}

/**
 * Where a redirect may lead: the same origin (scheme, host and port) as the
 * request that got it, over http(s); anything else is refused. Never throws.
 */
export function checkRedirect(from: URL, location: string | null): UrlDecision {
  let target: URL | undefined;
  try {
    target = location === null ? undefined : new URL(location, from);
  } catch {
    target = undefined;
  }
  if (target === undefined) {
    return {
      ok: false,
      error: importFailure(
        'transient',
        'TRANSFER_FAILED',
        'The origin answered with a redirect without a valid Location',
      ),
    };
  }
  if (target.origin !== from.origin || (target.protocol !== 'http:' && target.protocol !== 'https:')) {
    return {
      ok: false,
      error: importFailure(
        'permanent',
        'REDIRECT_REFUSED',
        `The origin redirected to ${target.origin}, another host; redirects are followed only within ${from.origin}`,
        {
          userActionable: true,
          details: { origin: from.origin, redirect_origin: target.origin },
        },
      ),
    };
  }
  return { ok: true, url: target };
}

// ---------------------------------------------------------------------------
// Boundary parsing
// ---------------------------------------------------------------------------

export type Parsed<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly pointer: string; readonly field: string; readonly message: string };

interface Violation {
  readonly instancePath: string;
  readonly keyword: string;
  readonly params?: unknown;
}

function firstViolation(errors: readonly Violation[]): { pointer: string; field: string } {
  const first = errors[0];
  if (first === undefined) return { pointer: '', field: 'params' };
  let pointer = first.instancePath;
  if (first.keyword === 'required') {
    const missing = (first.params as { requiredProperties?: string[] } | undefined)?.requiredProperties?.[0];
    if (missing !== undefined) pointer = `${pointer}/${missing}`;
  }
  const segments = pointer.split('/').filter((segment) => segment !== '' && !/^\d+$/.test(segment));
  return { pointer, field: segments.at(-1) ?? 'params' };
}

function withoutMeta(params: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const { _meta: _ignored, ...body } = params;
  return body;
}

let importValidator: ReturnType<typeof Compile<typeof ImportFromRefRequestSchema>> | undefined;
let uploadValidator: ReturnType<typeof Compile<typeof UploadRequestSchema>> | undefined;
let referenceValidator: ReturnType<typeof Compile<typeof DataReferenceSchema>> | undefined;
let resultMetaValidator: ReturnType<typeof Compile<typeof DataReferencesResultMetaSchema>> | undefined;

/** Validates `<id>/import` params (without `_meta`). Never throws. */
export function parseImportRequest(params: Readonly<Record<string, unknown>>): Parsed<ImportFromRefRequest> {
  importValidator ??= Compile(ImportFromRefRequestSchema);
  const body = withoutMeta(params);
  if (importValidator.Check(body)) return { ok: true, value: body };
  const { pointer, field } = firstViolation(importValidator.Errors(body));
  return { ok: false, pointer, field, message: `Invalid import request: ${field} is missing or malformed` };
}

/** Validates `<id>/upload` params (without `_meta`). Never throws. */
export function parseUploadRequest(params: Readonly<Record<string, unknown>>): Parsed<UploadRequest> {
  uploadValidator ??= Compile(UploadRequestSchema);
  const body = withoutMeta(params);
  if (uploadValidator.Check(body)) return { ok: true, value: body };
  const { pointer, field } = firstViolation(uploadValidator.Errors(body));
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
  referenceValidator ??= Compile(DataReferenceSchema);
  return referenceValidator.Check(value);
}

/** The references in a tool result's `_meta[id]`, or `[]` when there are none or the entry is malformed. Never throws. */
export function referencesInResult(
  result: { readonly _meta?: Readonly<Record<string, unknown>> | undefined },
  id: string,
): DataReference[] {
  resultMetaValidator ??= Compile(DataReferencesResultMetaSchema);
  const meta = result._meta?.[id];
  return resultMetaValidator.Check(meta) ? meta.references : [];
}

/** The import request for a reference: the reference itself, plus a target format when given. */
export function importRequestFor(reference: DataReference, targetFormat?: string): ImportFromRefRequest {
  const request: ImportFromRefRequest = { ...reference };
  if (targetFormat !== undefined) request.target_format = targetFormat;
  return request;
}

/** Milliseconds until `expires_at`, `undefined` when absent or unreadable, never below 0. */
export function msUntil(expiresAt: string | undefined, nowMs: number): number | undefined {
  if (expiresAt === undefined) return undefined;
  const at = Date.parse(expiresAt);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - nowMs);
}

/** A whole number of bytes from an option, with a default; throws a `ConfigurationError` naming the option. */
export function byteCount(option: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new ConfigurationError(
      'INVALID_OPTION',
      `${option} must be a non-negative integer number of bytes, got ${String(value)}`,
    );
  }
  return value;
}

/** A positive whole number from an option, with a default; throws a `ConfigurationError` naming the option. */
export function positiveInteger(option: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new ConfigurationError('INVALID_OPTION', `${option} must be a positive integer, got ${String(value)}`);
  }
  return value;
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

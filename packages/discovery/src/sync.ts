/** Filling a `RegistryIndex`: from a file in the registry's list format, or by syncing with a registry over HTTP. */
import { brandError, isBrandedError, isRecord } from '@ext/core/kit';
import { readFile, stat, writeFile } from 'node:fs/promises';
import type { AddReport, RegistryIndex } from './registry.js';

export type RegistrySyncErrorCode =
  | 'REGISTRY_URL_INVALID'
  | 'REGISTRY_UNREACHABLE'
  | 'REGISTRY_HTTP_STATUS'
  | 'REGISTRY_RESPONSE_TOO_LARGE'
  | 'REGISTRY_RESPONSE_INVALID'
  | 'REGISTRY_TOO_MANY_PAGES'
  | 'REGISTRY_FILE_INVALID';

/**
 * Loading or syncing an index failed; the index is unchanged. A local
 * error (string code), branded so `isInstance` works across package copies.
 */
export class RegistrySyncError extends Error {
  static readonly brand: string = 'io.github.mcp-ext/discovery/RegistrySyncError';
  readonly code: RegistrySyncErrorCode;
  /** HTTP status, for `REGISTRY_HTTP_STATUS`. */
  readonly status: number | undefined;

  constructor(code: RegistrySyncErrorCode, message: string, options: { status?: number; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'RegistrySyncError';
    this.code = code;
    this.status = options.status;
    brandError(this, RegistrySyncError.brand);
  }

  static isInstance(value: unknown): value is RegistrySyncError {
    return isBrandedError(value, RegistrySyncError.brand);
  }
}

/** The entries of a document in the registry's list format, an array of entries, or one `server.json`. */
function entriesOf(document: unknown): unknown[] | undefined {
  if (Array.isArray(document)) return document as unknown[];
  if (isRecord(document) && Array.isArray(document.servers)) return document.servers as unknown[];
  if (isRecord(document) && (typeof document.name === 'string' || isRecord(document.server))) return [document];
  return undefined;
}

export interface LoadRegistryFileOptions {
  /** Registry the file's entries come from, when they do not record one (default: the index's `registryUrl`). */
  readonly registryUrl?: string | undefined;
  /** Largest file accepted. Default 64 MiB. */
  readonly maxBytes?: number | undefined;
}

export interface LoadReport extends AddReport {
  readonly entries: number;
}

/**
 * Merges a file into the index: the registry's `/v0.1/servers` response
 * format (`{ "servers": [...] }`, what {@link saveRegistryFile} writes), a
 * bare array of its entries, or one `server.json`. Invalid entries are
 * skipped and reported; a file that is not JSON of one of those shapes
 * throws `REGISTRY_FILE_INVALID` and changes nothing.
 */
export async function loadRegistryFile(
  index: RegistryIndex,
  path: string,
  options: LoadRegistryFileOptions = {},
): Promise<LoadReport> {
  const maxBytes = options.maxBytes ?? 64 * 1024 * 1024;
  const info = await stat(path);
  if (info.size > maxBytes)
    throw new RegistrySyncError(
      'REGISTRY_FILE_INVALID',
      `registry file is ${info.size} bytes; at most ${maxBytes} are read`,
    );
  let document: unknown;
  try {
    document = JSON.parse(await readFile(path, 'utf8'));
  } catch (error) {
    throw new RegistrySyncError('REGISTRY_FILE_INVALID', 'registry file is not valid JSON', { cause: error });
  }
  const entries = entriesOf(document);
  if (entries === undefined) {
    throw new RegistrySyncError(
      'REGISTRY_FILE_INVALID',
      'registry file must hold { "servers": [...] } (the /v0.1/servers format), an array of entries, or a server.json',
    );
  }
  const report = index.add(entries, options.registryUrl);
  return { ...report, entries: entries.length };
}

/** Writes every entry of the index in the registry's list format, to load again with {@link loadRegistryFile}. */
export async function saveRegistryFile(index: RegistryIndex, path: string): Promise<void> {
  await writeFile(path, `${JSON.stringify(index.toList(), null, 2)}\n`, 'utf8');
}

export interface SyncRegistryOptions {
  /** Base URL of the registry, e.g. `https://registry.modelcontextprotocol.io`. https, or http on a loopback address. */
  readonly url: string;
  /**
   * Ask only for entries updated since (RFC 3339). Default: the latest
   * `updatedAt` the index already holds from this registry (an incremental
   * sync); `null` asks for everything.
   */
  readonly updatedSince?: string | null | undefined;
  /** Entries per page (`limit`). Default 100. */
  readonly pageSize?: number | undefined;
  /** Most pages one sync reads. Default 500. */
  readonly maxPages?: number | undefined;
  /** Largest page body accepted, in bytes. Default 16 MiB. */
  readonly maxPageBytes?: number | undefined;
  /** Per-page timeout in milliseconds. Default 30 000. */
  readonly timeoutMs?: number | undefined;
  readonly signal?: AbortSignal | undefined;
  /** The fetch to use. Default: the global `fetch`. */
  readonly fetch?: typeof fetch | undefined;
}

export interface SyncReport extends AddReport {
  readonly pages: number;
  /** Entries received. */
  readonly received: number;
  /** The `updated_since` sent, if any. */
  readonly updatedSince: string | undefined;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

function baseUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch (error) {
    throw new RegistrySyncError('REGISTRY_URL_INVALID', 'registry url is not a URL', { cause: error });
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && LOOPBACK.has(url.hostname))) {
    throw new RegistrySyncError('REGISTRY_URL_INVALID', 'registry url must be https (http only on a loopback address)');
  }
  if (url.search !== '' || url.hash !== '')
    throw new RegistrySyncError('REGISTRY_URL_INVALID', 'registry url must have no query or fragment');
  return url;
}

/** The registry base as recorded in the index: the URL without a trailing slash. */
function originOf(url: URL): string {
  return url.href.replace(/\/+$/, '');
}

async function readBody(response: Response, maxBytes: number): Promise<string> {
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel();
    throw new RegistrySyncError(
      'REGISTRY_RESPONSE_TOO_LARGE',
      `registry page is ${declared} bytes; at most ${maxBytes} are read`,
    );
  }
  if (response.body === null) return '';
  const reader: ReadableStreamDefaultReader<Uint8Array> = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel();
      throw new RegistrySyncError('REGISTRY_RESPONSE_TOO_LARGE', `registry page is larger than ${maxBytes} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function positive(value: number | undefined, fallback: number, option: string): number {
  const resolved = value ?? fallback;
  if (!Number.isSafeInteger(resolved) || resolved < 1)
    throw new TypeError(`syncRegistry: "${option}" must be a positive integer`);
  return resolved;
}

/**
 * Fetches the registry's `GET /v0.1/servers` pages (following
 * `metadata.nextCursor`) and merges every entry into the index: deleted and
 * deprecated versions are kept as such so they stop being recommended. By
 * default only entries updated since the last sync are asked for. The
 * request carries no capability query: what a client looks for never leaves
 * the server (DISC-12). All or nothing: on any failure the index is
 * unchanged and a `RegistrySyncError` is thrown.
 */
export async function syncRegistry(index: RegistryIndex, options: SyncRegistryOptions): Promise<SyncReport> {
  const base = baseUrl(options.url);
  const origin = originOf(base);
  const pageSize = positive(options.pageSize, 100, 'pageSize');
  const maxPages = positive(options.maxPages, 500, 'maxPages');
  const maxPageBytes = positive(options.maxPageBytes, 16 * 1024 * 1024, 'maxPageBytes');
  const timeoutMs = positive(options.timeoutMs, 30_000, 'timeoutMs');
  const doFetch = options.fetch ?? fetch;
  const updatedSince = options.updatedSince === null ? undefined : (options.updatedSince ?? index.updatedUntil(origin));
  if (updatedSince !== undefined && Number.isNaN(Date.parse(updatedSince)))
    throw new TypeError('syncRegistry: "updatedSince" must be an RFC 3339 date-time');

  const received: unknown[] = [];
  const seenCursors = new Set<string>();
  let cursor: string | undefined;
  let pages = 0;
  for (;;) {
    if (pages >= maxPages)
      throw new RegistrySyncError(
        'REGISTRY_TOO_MANY_PAGES',
        `registry listed more than ${maxPages} pages; raise maxPages`,
      );
    const url = new URL('v0.1/servers', `${origin}/`);
    url.searchParams.set('limit', String(pageSize));
    if (cursor !== undefined) url.searchParams.set('cursor', cursor);
    if (updatedSince !== undefined) url.searchParams.set('updated_since', updatedSince);
    const signals = [AbortSignal.timeout(timeoutMs), ...(options.signal === undefined ? [] : [options.signal])];
    let response: Response;
    try {
      response = await doFetch(url, {
        headers: { accept: 'application/json' },
        signal: AbortSignal.any(signals),
        redirect: 'error',
      });
    } catch (error) {
      throw new RegistrySyncError('REGISTRY_UNREACHABLE', `registry at ${origin} could not be reached`, {
        cause: error,
      });
    }
    if (!response.ok) {
      await response.body?.cancel();
      throw new RegistrySyncError(
        'REGISTRY_HTTP_STATUS',
        `registry answered HTTP ${response.status} for ${url.pathname}`,
        { status: response.status },
      );
    }
    let page: unknown;
    try {
      page = JSON.parse(await readBody(response, maxPageBytes));
    } catch (error) {
      if (RegistrySyncError.isInstance(error)) throw error;
      throw new RegistrySyncError('REGISTRY_RESPONSE_INVALID', 'registry page is not JSON', { cause: error });
    }
    pages += 1;
    if (!isRecord(page) || !Array.isArray(page.servers)) {
      throw new RegistrySyncError(
        'REGISTRY_RESPONSE_INVALID',
        'registry page has no "servers" array (expected the /v0.1/servers list format)',
      );
    }
    received.push(...(page.servers as unknown[]));
    const next = isRecord(page.metadata) ? page.metadata.nextCursor : undefined;
    if (typeof next !== 'string' || next === '') break;
    // A registry that hands back a cursor twice would page forever.
    if (seenCursors.has(next))
      throw new RegistrySyncError('REGISTRY_RESPONSE_INVALID', 'registry repeated a pagination cursor');
    seenCursors.add(next);
    cursor = next;
  }
  const report = index.add(received, origin);
  return { ...report, pages, received: received.length, updatedSince };
}

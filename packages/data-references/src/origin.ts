import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readdir, rename, stat, unlink } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { isIPv6, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Transform, type TransformCallback, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { once } from 'node:events';
import { ConfigurationError, ExtensionError, consoleLogger, type JsonValue, type Logger, type Store } from '@ext/core';
import {
  byteCount,
  checkSignedRequest,
  contentRange,
  isMimeType,
  isRefId,
  parseRange,
  positiveInteger,
  secretBytes,
  signedUrl,
  type RangeDecision,
} from './logic.js';
import type { Checksum, DataReference, UploadTicket } from './schema.js';

/** Where a reference's bytes come from. */
export type ReferenceSource =
  /** A file on disk, served as it is; it must not change while the reference lives. */
  | { readonly path: string }
  /** Chunks read once: written to the spool directory while hashed, then served from there. */
  | { readonly chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array> }
  /**
   * Bytes produced on demand, never stored: `generate(offset)` yields the
   * payload from byte `offset` on (a Range request asks for a later offset).
   * Without `sizeBytes` and `checksum` the origin reads it once, hashing, when
   * the reference is created. Served only by the process that created it.
   */
  | {
      readonly generate: (offset: number) => AsyncIterable<Uint8Array> | Iterable<Uint8Array>;
      readonly sizeBytes?: number | undefined;
      readonly checksum?: Checksum | undefined;
    };

export interface CreateReferenceOptions {
  /** Media type of the bytes, e.g. `text/csv`. */
  readonly mimeType: string;
  /** Who the reference belongs to (a tool call's `ctx.principal`); only they can look it up by id. Default `"anonymous"`. */
  readonly principal?: string | undefined;
  /** Lifetime of the reference and its URL, in seconds. Default: the origin's `ttlSeconds`. */
  readonly ttlSeconds?: number | undefined;
  /** A name for people and for the `resource_link` (e.g. `export.csv`). */
  readonly name?: string | undefined;
  /** The SHA-256 of a file source when already known, to skip hashing it. */
  readonly checksum?: Checksum | undefined;
}

/** A reference this origin serves, as its metadata records it. */
export interface LocalReference {
  readonly reference: DataReference;
  readonly principal: string;
  readonly name: string | undefined;
  readonly sizeBytes: number;
  readonly sha256: string;
  readonly expiresAtMs: number;
}

export interface UploadOptions {
  /** Largest upload accepted, in bytes. Default 128 MiB. */
  readonly maxBytes?: number | undefined;
  /** Lifetime of an upload URL, in seconds. Default 300. */
  readonly ttlSeconds?: number | undefined;
  /** Lifetime of the reference an upload creates, in seconds. Default: the origin's `ttlSeconds`. */
  readonly referenceTtlSeconds?: number | undefined;
}

export interface ReferenceOriginOptions {
  /** HMAC-SHA256 key that signs the URLs: at least 32 bytes, kept secret, the same on every instance. */
  readonly secret: string | Uint8Array;
  /** Keys that signed earlier URLs and still verify them (rotation). Default none. */
  readonly previousSecrets?: readonly (string | Uint8Array)[] | undefined;
  /** Where reference metadata lives: give the server adapter's store, so every instance behind a load balancer finds it. */
  readonly store: Store;
  /** The `origin_server` of the references, e.g. the MCP server's name. */
  readonly serverName: string;
  /**
   * The public URL where {@link ReferenceOrigin.handle} is mounted, e.g.
   * `https://files.example.com/refs`; its path is the prefix `handle` serves.
   * Default: set by {@link ReferenceOrigin.listen} (`http://host:port/refs`).
   */
  readonly baseUrl?: string | undefined;
  /** Default lifetime of a reference and its URL, in seconds. Default 3600. */
  readonly ttlSeconds?: number | undefined;
  /** Where chunk sources, uploads and imports are written. Default `<os tmpdir>/mcp-ext-data-references`. */
  readonly spoolDirectory?: string | undefined;
  /** Enables the upload endpoint (raw bytes in, a reference out). Default: disabled. */
  readonly uploads?: UploadOptions | boolean | undefined;
  /** Namespace of the store keys. Default `"data-references"`. */
  readonly keyPrefix?: string | undefined;
  readonly logger?: Logger | undefined;
  /** Clock in milliseconds (tests). Default `Date.now`. */
  readonly now?: (() => number) | undefined;
}

/** Where an import or a spooled source is written before it becomes a reference. */
export interface SpoolWriter {
  readonly writable: Writable;
  /** Call once every byte was written and `writable` finished: the bytes become a reference. */
  commit(verified: { sizeBytes: number; sha256: string }): Promise<DataReference>;
  /** Discards what was written. */
  abort(): Promise<void>;
}

/** A reference origin: mints references and serves their bytes over HTTP at signed, expiring URLs. */
export interface ReferenceOrigin {
  readonly serverName: string;
  /** The public base URL (throws a `ConfigurationError` until known). */
  readonly baseUrl: string;
  readonly store: Store;
  /** Upload limits when uploads are enabled, else `undefined`. */
  readonly uploads: { readonly maxBytes: number; readonly ttlSeconds: number } | undefined;
  /**
   * Serves a request whose path is under the base URL's path (downloads:
   * `GET`/`HEAD <base>/<ref_id>`, uploads: `PUT <base>/uploads/<id>`) and
   * returns `true`; returns `false`, touching nothing, for any other path.
   */
  handle(req: IncomingMessage, res: ServerResponse): boolean;
  /** Starts a dedicated HTTP server for {@link handle}; resolves to the base URL. */
  listen(options?: { port?: number; host?: string }): Promise<string>;
  /** Creates a reference from a file, chunks or a generator. */
  createReference(source: ReferenceSource, options: CreateReferenceOptions): Promise<DataReference>;
  /** A reference's metadata, with a freshly signed URL; `undefined` when unknown, expired, or another principal's (when `principal` is given). */
  lookup(refId: string, principal?: string): Promise<LocalReference | undefined>;
  /** Reads a reference's bytes (all, or the inclusive range `start`..`end`). Throws `REFERENCE_NOT_FOUND` when it is not served here. */
  open(refId: string, range?: { start: number; end: number }): Promise<Readable>;
  /** Forgets a reference before its expiry; its URL stops working. */
  revoke(refId: string): Promise<boolean>;
  /** A single-use URL the holder can `PUT` raw bytes to (uploads must be enabled). */
  createUploadTicket(request: {
    mimeType: string;
    sizeBytes?: number | undefined;
    principal?: string | undefined;
  }): Promise<UploadTicket>;
  /** A writer whose bytes become a reference once committed (imports land here). */
  spool(options: CreateReferenceOptions): Promise<SpoolWriter>;
  /** Deletes spooled files whose reference is gone. */
  sweep(): Promise<number>;
  /** Stops the servers `listen` started and the expiry timers. Spooled files of live references stay. */
  close(): Promise<void>;
}

const DEFAULT_PATH = '/refs';
const UPLOADS = 'uploads';

interface StoredReference {
  readonly ref_id: string;
  readonly mime_type: string;
  readonly size_bytes: number;
  readonly sha256: string;
  readonly expires_at_ms: number;
  readonly principal: string;
  readonly name: string | null;
  readonly source: 'file' | 'spool' | 'live';
  readonly path: string | null;
}

interface StoredUpload {
  /** Single use: `pending` until a request claims it, then `receiving`, then `used` whatever the outcome. */
  readonly state: 'pending' | 'receiving' | 'used';
  readonly mime_type: string;
  readonly max_size_bytes: number;
  readonly principal: string;
  readonly expires_at_ms: number;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function readStoredReference(value: JsonValue | undefined): StoredReference | undefined {
  if (!isRecord(value)) return undefined;
  const { ref_id, mime_type, size_bytes, sha256, expires_at_ms, principal, name, source, path } = value;
  if (
    typeof ref_id !== 'string' ||
    typeof mime_type !== 'string' ||
    typeof sha256 !== 'string' ||
    typeof principal !== 'string'
  )
    return undefined;
  if (typeof size_bytes !== 'number' || typeof expires_at_ms !== 'number') return undefined;
  if (source !== 'file' && source !== 'spool' && source !== 'live') return undefined;
  if ((name !== null && typeof name !== 'string') || (path !== null && typeof path !== 'string')) return undefined;
  return { ref_id, mime_type, size_bytes, sha256, expires_at_ms, principal, name, source, path };
}

function readStoredUpload(value: JsonValue | undefined): StoredUpload | undefined {
  if (!isRecord(value)) return undefined;
  const { state, mime_type, max_size_bytes, principal, expires_at_ms } = value;
  if (
    (state !== 'pending' && state !== 'receiving' && state !== 'used') ||
    typeof mime_type !== 'string' ||
    typeof principal !== 'string'
  )
    return undefined;
  if (typeof max_size_bytes !== 'number' || typeof expires_at_ms !== 'number') return undefined;
  return { state, mime_type, max_size_bytes, principal, expires_at_ms };
}

/** Thrown inside a byte stream that went past its limit. */
class TooLarge extends Error {
  constructor(readonly limit: number) {
    super(`more than ${String(limit)} bytes`);
  }
}

/** Counts and hashes the bytes that pass, and fails past `limit`. */
class Meter extends Transform {
  readonly #hash = createHash('sha256');
  readonly #limit: number;
  size = 0;

  constructor(limit = Number.POSITIVE_INFINITY) {
    super();
    this.#limit = limit;
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.size += chunk.length;
    if (this.size > this.#limit) {
      callback(new TooLarge(this.#limit));
      return;
    }
    this.#hash.update(chunk);
    callback(null, chunk);
  }

  digest(): string {
    return this.#hash.digest('hex');
  }
}

/** `source` from byte `start` to `end` inclusive (generators may yield more or less per chunk). */
async function* slice(
  source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
  length: number,
): AsyncGenerator<Uint8Array> {
  let left = length;
  for await (const chunk of source) {
    if (left <= 0) break;
    if (chunk.length <= left) {
      left -= chunk.length;
      yield chunk;
    } else {
      yield chunk.subarray(0, left);
      left = 0;
    }
  }
  if (left > 0) throw new Error(`the generator ended ${String(left)} bytes early`);
}

function notFound(refId: string): ExtensionError {
  return new ExtensionError(
    'permanent',
    'REFERENCE_NOT_FOUND',
    'No such reference is served here (unknown, expired or revoked)',
    { details: { ref_id: refId } },
  );
}

function plain(res: ServerResponse, status: number, text: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store', ...headers });
  res.end(`${text}\n`);
}

/** For `.catch`: a file that is already gone is fine; any other failure is not. */
function ignoreMissing(error: unknown): undefined {
  if (isRecord(error) && error.code === 'ENOENT') return undefined;
  throw error;
}

/**
 * Destroys a file stream and waits until it is closed: one destroyed before
 * it opened would otherwise create the file after it was deleted. An error it
 * still has to emit is the failure being discarded, already reported.
 */
async function closed(stream: Writable): Promise<void> {
  if (stream.closed) return;
  await new Promise<void>((resolve) => {
    stream.on('error', () => undefined);
    stream.once('close', () => {
      resolve();
    });
    stream.destroy();
  });
}

function isPrematureClose(error: unknown): boolean {
  return (
    isRecord(error) &&
    (error.code === 'ERR_STREAM_PREMATURE_CLOSE' || error.code === 'ECONNRESET' || error.code === 'EPIPE')
  );
}

/**
 * Creates a reference origin. Validates the options at once; nothing is
 * listened on or written until used.
 */
export function createReferenceOrigin(options: ReferenceOriginOptions): ReferenceOrigin {
  const where = 'createReferenceOrigin';
  const key = secretBytes(options.secret, `${where}: secret`);
  const keys = [
    key,
    ...(options.previousSecrets ?? []).map((secret, index) =>
      secretBytes(secret, `${where}: previousSecrets[${String(index)}]`),
    ),
  ];
  if (typeof options.store !== 'object')
    throw new ConfigurationError('INVALID_OPTION', `${where}: store is required (the server adapter's store)`);
  const store = options.store;
  const serverName = options.serverName;
  if (typeof serverName !== 'string' || serverName.length === 0 || serverName.length > 256) {
    throw new ConfigurationError(
      'INVALID_OPTION',
      `${where}: serverName must be a non-empty string of at most 256 characters`,
    );
  }
  let baseUrl: string | undefined;
  let basePath = DEFAULT_PATH;
  const setBase = (value: string): void => {
    let url: URL;
    try {
      url = new URL(value);
    } catch (error) {
      throw new ConfigurationError('INVALID_OPTION', `${where}: baseUrl is not a URL (${String(error)})`);
    }
    if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.search !== '' || url.hash !== '') {
      throw new ConfigurationError(
        'INVALID_OPTION',
        `${where}: baseUrl must be an http(s) URL without query or fragment`,
      );
    }
    basePath = url.pathname.replace(/\/+$/, '');
    baseUrl = `${url.origin}${basePath}`;
  };
  if (options.baseUrl !== undefined) setBase(options.baseUrl);
  const ttlSeconds = positiveInteger(`${where}: ttlSeconds`, options.ttlSeconds, 3600);
  const spoolDirectory = options.spoolDirectory ?? join(tmpdir(), 'mcp-ext-data-references');
  const keyPrefix = options.keyPrefix ?? 'data-references';
  if (typeof keyPrefix !== 'string' || keyPrefix === '')
    throw new ConfigurationError('INVALID_OPTION', `${where}: keyPrefix must be a non-empty string`);
  const logger = options.logger ?? consoleLogger;
  const now = options.now ?? Date.now;
  const uploadOptions = options.uploads === true ? {} : options.uploads === false ? undefined : options.uploads;
  const uploads =
    uploadOptions === undefined
      ? undefined
      : {
          maxBytes: byteCount(`${where}: uploads.maxBytes`, uploadOptions.maxBytes, 128 * 1024 * 1024),
          ttlSeconds: positiveInteger(`${where}: uploads.ttlSeconds`, uploadOptions.ttlSeconds, 300),
          referenceTtlSeconds: positiveInteger(
            `${where}: uploads.referenceTtlSeconds`,
            uploadOptions.referenceTtlSeconds,
            ttlSeconds,
          ),
        };

  const generators = new Map<string, (offset: number) => AsyncIterable<Uint8Array> | Iterable<Uint8Array>>();
  const timers = new Set<NodeJS.Timeout>();
  const servers: Server[] = [];
  let spoolReady: Promise<void> | undefined;

  const refKey = (refId: string): string => `${keyPrefix}:ref:${refId}`;
  const uploadKey = (uploadId: string): string => `${keyPrefix}:upload:${uploadId}`;
  const newId = (prefix: string): string => `${prefix}${randomBytes(16).toString('base64url')}`;
  const currentBase = (): string => {
    if (baseUrl === undefined) {
      throw new ConfigurationError(
        'MISSING_BASE_URL',
        `${where}: the public URL is not known yet; pass baseUrl or call listen() first`,
      );
    }
    return baseUrl;
  };

  const ensureSpool = (): Promise<void> => {
    spoolReady ??= mkdir(spoolDirectory, { recursive: true }).then(() => undefined);
    return spoolReady;
  };

  /** Runs `task` at `atMs` without keeping the process alive. */
  const schedule = (atMs: number, task: () => Promise<unknown>): void => {
    // setTimeout's delay is a signed 32-bit number of milliseconds.
    const delay = Math.min(Math.max(0, atMs - now()), 2_147_483_647);
    const timer = setTimeout(() => {
      timers.delete(timer);
      task().catch((error: unknown) => {
        logger.warn('data-references: cleaning up an expired reference failed', { error: String(error) });
      });
    }, delay);
    timer.unref();
    timers.add(timer);
  };

  const describe = (record: StoredReference): DataReference => ({
    ref_id: record.ref_id,
    origin_server: serverName,
    mime_type: record.mime_type,
    size_bytes: record.size_bytes,
    expires_at: new Date(record.expires_at_ms).toISOString(),
    access_url: signedUrl(
      currentBase(),
      [record.ref_id],
      key,
      'download',
      record.ref_id,
      Math.floor(record.expires_at_ms / 1000),
    ),
    checksum: { algorithm: 'sha256', value: record.sha256 },
  });

  const load = async (refId: string): Promise<StoredReference | undefined> => {
    if (!isRefId(refId)) return undefined;
    const record = readStoredReference(await store.get(refKey(refId)));
    return record === undefined || record.expires_at_ms <= now() ? undefined : record;
  };

  const forget = async (record: StoredReference): Promise<void> => {
    generators.delete(record.ref_id);
    await store.delete(refKey(record.ref_id));
    if (record.source === 'spool' && record.path !== null) await unlink(record.path).catch(ignoreMissing);
  };

  const save = async (record: StoredReference): Promise<DataReference> => {
    await store.set(refKey(record.ref_id), { ...record }, { ttlMs: Math.max(1, record.expires_at_ms - now()) });
    if (record.source !== 'file') schedule(record.expires_at_ms, () => forget(record));
    return describe(record);
  };

  const expiryFor = (seconds: number | undefined): number => {
    const lifetime = positiveInteger(`${where}: ttlSeconds`, seconds, ttlSeconds);
    // Whole seconds, so expires_at and the signed URL's expiry are the same instant.
    return (Math.floor(now() / 1000) + lifetime) * 1000;
  };

  const checkMime = (mimeType: unknown): string => {
    if (!isMimeType(mimeType))
      throw new ConfigurationError(
        'INVALID_OPTION',
        `${where}: mimeType must be a media type such as text/csv, got ${JSON.stringify(mimeType)}`,
      );
    return mimeType;
  };

  const spool = async (create: CreateReferenceOptions): Promise<SpoolWriter> => {
    currentBase();
    const mimeType = checkMime(create.mimeType);
    const expiresAtMs = expiryFor(create.ttlSeconds);
    await ensureSpool();
    const refId = newId('ref-');
    const path = join(spoolDirectory, `${refId}.bin`);
    const part = `${path}.part`;
    const writable = createWriteStream(part);
    return {
      writable,
      async commit(verified) {
        await rename(part, path);
        return save({
          ref_id: refId,
          mime_type: mimeType,
          size_bytes: verified.sizeBytes,
          sha256: verified.sha256,
          expires_at_ms: expiresAtMs,
          principal: create.principal ?? 'anonymous',
          name: create.name ?? null,
          source: 'spool',
          path,
        });
      },
      async abort() {
        await closed(writable);
        await unlink(part).catch(ignoreMissing);
      },
    };
  };

  const hashOf = async (
    source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
  ): Promise<{ sizeBytes: number; sha256: string }> => {
    const hash = createHash('sha256');
    let sizeBytes = 0;
    for await (const chunk of source) {
      sizeBytes += chunk.length;
      hash.update(chunk);
    }
    return { sizeBytes, sha256: hash.digest('hex') };
  };

  const createReference = async (source: ReferenceSource, create: CreateReferenceOptions): Promise<DataReference> => {
    // Fails before any work when the public URL is not known yet.
    currentBase();
    const mimeType = checkMime(create.mimeType);
    const principal = create.principal ?? 'anonymous';
    const name = create.name ?? null;
    if ('path' in source) {
      const info = await stat(source.path);
      if (!info.isFile())
        throw new ConfigurationError('INVALID_SOURCE', `${where}: the source path is not a regular file`);
      const known = create.checksum?.algorithm === 'sha256' ? create.checksum.value.toLowerCase() : undefined;
      const sha256 = known ?? (await hashOf(createReadStream(source.path))).sha256;
      return save({
        ref_id: newId('ref-'),
        mime_type: mimeType,
        size_bytes: info.size,
        sha256,
        expires_at_ms: expiryFor(create.ttlSeconds),
        principal,
        name,
        source: 'file',
        path: source.path,
      });
    }
    if ('chunks' in source) {
      const writer = await spool(create);
      const meter = new Meter();
      try {
        await pipeline(Readable.from(source.chunks), meter, writer.writable);
      } catch (error) {
        await writer.abort();
        throw error;
      }
      return writer.commit({ sizeBytes: meter.size, sha256: meter.digest() });
    }
    const generate = source.generate;
    if (typeof generate !== 'function')
      throw new ConfigurationError('INVALID_SOURCE', `${where}: a source needs path, chunks or generate`);
    const known =
      source.checksum?.algorithm === 'sha256' && source.sizeBytes !== undefined
        ? { sizeBytes: source.sizeBytes, sha256: source.checksum.value.toLowerCase() }
        : undefined;
    const measured = known ?? (await hashOf(generate(0)));
    const refId = newId('ref-');
    generators.set(refId, generate);
    return save({
      ref_id: refId,
      mime_type: mimeType,
      size_bytes: byteCount(`${where}: sizeBytes`, measured.sizeBytes, 0),
      sha256: measured.sha256,
      expires_at_ms: expiryFor(create.ttlSeconds),
      principal,
      name,
      source: 'live',
      path: null,
    });
  };

  const lookup = async (refId: string, principal?: string): Promise<LocalReference | undefined> => {
    const record = await load(refId);
    if (record === undefined || (principal !== undefined && record.principal !== principal)) return undefined;
    return {
      reference: describe(record),
      principal: record.principal,
      name: record.name ?? undefined,
      sizeBytes: record.size_bytes,
      sha256: record.sha256,
      expiresAtMs: record.expires_at_ms,
    };
  };

  /** The bytes of a stored reference, or `undefined` when they are not available in this process. */
  const readable = async (record: StoredReference, start: number, end: number): Promise<Readable | undefined> => {
    const length = end - start + 1;
    if (record.source === 'live') {
      const generate = generators.get(record.ref_id);
      if (generate === undefined) return undefined;
      return Readable.from(slice(generate(start), Math.max(0, length)));
    }
    if (record.path === null) return undefined;
    const info = await stat(record.path).catch(ignoreMissing);
    // A file source that changed size is no longer the payload the checksum describes.
    if (info?.isFile() !== true || info.size !== record.size_bytes) return undefined;
    if (length <= 0) return Readable.from([]);
    return createReadStream(record.path, { start, end });
  };

  const open = async (refId: string, range?: { start: number; end: number }): Promise<Readable> => {
    const record = await load(refId);
    if (record === undefined) throw notFound(refId);
    const start = range?.start ?? 0;
    const end = range?.end ?? record.size_bytes - 1;
    if (
      !Number.isSafeInteger(start) ||
      !Number.isSafeInteger(end) ||
      start < 0 ||
      end >= record.size_bytes ||
      (end < start && record.size_bytes > 0)
    ) {
      throw new RangeError(
        `open: the range ${String(start)}-${String(end)} is outside 0-${String(record.size_bytes - 1)}`,
      );
    }
    const stream = await readable(record, start, end);
    if (stream === undefined) throw notFound(refId);
    return stream;
  };

  const revoke = async (refId: string): Promise<boolean> => {
    const record = await load(refId);
    if (record === undefined) return false;
    await forget(record);
    return true;
  };

  const createUploadTicket = async (request: {
    mimeType: string;
    sizeBytes?: number | undefined;
    principal?: string | undefined;
  }): Promise<UploadTicket> => {
    if (uploads === undefined) {
      throw new ExtensionError('permanent', 'UPLOADS_DISABLED', 'This server does not accept uploads', {
        suggestion: 'Send the data inline instead.',
      });
    }
    if (!isMimeType(request.mimeType)) {
      throw new ExtensionError('invalid_input', 'INVALID_INPUT', 'mime_type must be a media type such as image/png', {
        details: { field: 'mime_type', pointer: '/mime_type' },
      });
    }
    if (request.sizeBytes !== undefined && request.sizeBytes > uploads.maxBytes) {
      throw new ExtensionError(
        'invalid_input',
        'PAYLOAD_TOO_LARGE',
        `The upload is ${String(request.sizeBytes)} bytes; this server accepts at most ${String(uploads.maxBytes)}`,
        {
          userActionable: true,
          suggestion: 'Send less data, or split it.',
          details: { size_bytes: request.sizeBytes, max_size_bytes: uploads.maxBytes },
        },
      );
    }
    const uploadId = newId('up-');
    const expiresSeconds = Math.floor(now() / 1000) + uploads.ttlSeconds;
    const record: StoredUpload = {
      state: 'pending',
      mime_type: request.mimeType,
      max_size_bytes: uploads.maxBytes,
      principal: request.principal ?? 'anonymous',
      expires_at_ms: expiresSeconds * 1000,
    };
    await store.set(uploadKey(uploadId), { ...record }, { ttlMs: uploads.ttlSeconds * 1000 });
    return {
      upload_url: signedUrl(currentBase(), [UPLOADS, uploadId], key, 'upload', uploadId, expiresSeconds),
      method: 'PUT',
      expires_at: new Date(record.expires_at_ms).toISOString(),
      max_size_bytes: uploads.maxBytes,
    };
  };

  const serveDownload = async (
    req: IncomingMessage,
    res: ServerResponse,
    refId: string,
    query: URLSearchParams,
  ): Promise<void> => {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      plain(res, 405, 'Method not allowed', { allow: 'GET, HEAD' });
      return;
    }
    const check = checkSignedRequest(keys, 'download', refId, query, now());
    if (!check.ok) {
      plain(res, 403, check.reason === 'expired' ? 'Forbidden: the URL has expired' : 'Forbidden: invalid signature');
      return;
    }
    const record = await load(refId);
    if (record === undefined) {
      plain(res, 404, 'Not found');
      return;
    }
    const size = record.size_bytes;
    const etag = `"sha256-${record.sha256}"`;
    const ifRange = req.headers['if-range'];
    const decision: RangeDecision =
      ifRange !== undefined && ifRange !== etag ? { kind: 'full' } : parseRange(req.headers.range, size);
    const headers: Record<string, string> = {
      'content-type': record.mime_type,
      'accept-ranges': 'bytes',
      etag,
      'repr-digest': `sha-256=:${Buffer.from(record.sha256, 'hex').toString('base64')}:`,
      'cache-control': 'private, no-store',
      'x-content-type-options': 'nosniff',
    };
    if (decision.kind === 'unsatisfiable') {
      plain(res, 416, 'Range not satisfiable', {
        'content-range': contentRange(decision, size) ?? `bytes */${String(size)}`,
      });
      return;
    }
    const start = decision.kind === 'partial' ? decision.start : 0;
    const end = decision.kind === 'partial' ? decision.end : size - 1;
    const stream = await readable(record, start, end);
    if (stream === undefined) {
      logger.warn('data-references: the bytes of a reference are not available in this process', {
        ref_id: refId,
        source: record.source,
      });
      plain(res, 404, 'Not found');
      return;
    }
    headers['content-length'] = String(Math.max(0, end - start + 1));
    const range = contentRange(decision, size);
    if (range !== undefined) headers['content-range'] = range;
    res.writeHead(decision.kind === 'partial' ? 206 : 200, headers);
    if (req.method === 'HEAD') {
      stream.destroy();
      res.end();
      return;
    }
    // pipeline: backpressure from the socket, and the source is closed when the client goes away.
    await pipeline(stream, res);
  };

  const serveUpload = async (
    req: IncomingMessage,
    res: ServerResponse,
    uploadId: string,
    query: URLSearchParams,
  ): Promise<void> => {
    if (uploads === undefined) {
      plain(res, 404, 'Not found');
      return;
    }
    if (req.method !== 'PUT') {
      plain(res, 405, 'Method not allowed', { allow: 'PUT' });
      return;
    }
    const check = checkSignedRequest(keys, 'upload', uploadId, query, now());
    if (!check.ok) {
      plain(
        res,
        403,
        check.reason === 'expired' ? 'Forbidden: the upload URL has expired' : 'Forbidden: invalid signature',
        { connection: 'close' },
      );
      return;
    }
    const stored = await store.get(uploadKey(uploadId));
    const ticket = readStoredUpload(stored);
    if (ticket === undefined || stored === undefined) {
      plain(res, 404, 'Not found: unknown upload', { connection: 'close' });
      return;
    }
    // Single use: only the request that moves the ticket from pending to receiving may write.
    if (
      ticket.state !== 'pending' ||
      !(await store.compareAndSet(
        uploadKey(uploadId),
        stored,
        { ...ticket, state: 'receiving' },
        { ttlMs: uploads.ttlSeconds * 1000 },
      ))
    ) {
      plain(res, 409, 'Conflict: this upload URL was already used', { connection: 'close' });
      return;
    }
    const used = async (): Promise<void> => {
      await store.set(
        uploadKey(uploadId),
        { ...ticket, state: 'used' },
        { ttlMs: Math.max(1, ticket.expires_at_ms - now()) },
      );
    };
    const declared = req.headers['content-length'] === undefined ? undefined : Number(req.headers['content-length']);
    if (declared !== undefined && declared > ticket.max_size_bytes) {
      await used();
      plain(res, 413, `Payload too large: at most ${String(ticket.max_size_bytes)} bytes`, { connection: 'close' });
      return;
    }
    const writer = await spool({
      mimeType: ticket.mime_type,
      principal: ticket.principal,
      ttlSeconds: uploads.referenceTtlSeconds,
    });
    const meter = new Meter(ticket.max_size_bytes);
    // Not pipeline(req, ...): on a refusal the request must stay open long enough to carry the 413 back.
    req.once('close', () => {
      if (!req.complete) meter.destroy(new Error('the client went away during the upload'));
    });
    req.pipe(meter);
    try {
      await pipeline(meter, writer.writable);
    } catch (error) {
      req.unpipe(meter);
      await writer.abort();
      await used();
      if (error instanceof TooLarge) {
        plain(res, 413, `Payload too large: at most ${String(ticket.max_size_bytes)} bytes`, { connection: 'close' });
        return;
      }
      throw error;
    }
    const reference = await writer.commit({ sizeBytes: meter.size, sha256: meter.digest() });
    await used();
    const body = JSON.stringify(reference);
    res.writeHead(201, {
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(body)),
      'cache-control': 'no-store',
    });
    res.end(body);
  };

  const handle = (req: IncomingMessage, res: ServerResponse): boolean => {
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'http://origin.invalid');
    } catch {
      return false;
    }
    if (!url.pathname.startsWith(`${basePath}/`)) return false;
    const segments = url.pathname.slice(basePath.length + 1).split('/');
    let served: Promise<void>;
    if (segments.length === 1 && isRefId(segments[0])) served = serveDownload(req, res, segments[0], url.searchParams);
    else if (segments.length === 2 && segments[0] === UPLOADS && isRefId(segments[1]))
      served = serveUpload(req, res, segments[1], url.searchParams);
    else {
      plain(res, 404, 'Not found');
      return true;
    }
    served.catch((error: unknown) => {
      if (isPrematureClose(error)) {
        logger.debug?.('data-references: the client went away during a transfer', { path: url.pathname });
        return;
      }
      logger.warn('data-references: serving a request failed', { error: String(error) });
      if (!res.headersSent) plain(res, 500, 'Internal error');
      else res.destroy();
    });
    return true;
  };

  const listen = async (listenOptions: { port?: number; host?: string } = {}): Promise<string> => {
    const host = listenOptions.host ?? '127.0.0.1';
    const server = createServer((req, res) => {
      if (!handle(req, res)) plain(res, 404, 'Not found');
    });
    server.listen(listenOptions.port ?? 0, host);
    await once(server, 'listening');
    servers.push(server);
    if (baseUrl === undefined) {
      const { port } = server.address() as AddressInfo;
      setBase(`http://${isIPv6(host) ? `[${host}]` : host}:${String(port)}${DEFAULT_PATH}`);
    }
    return currentBase();
  };

  const sweep = async (): Promise<number> => {
    const names = (await readdir(spoolDirectory).catch(ignoreMissing)) ?? [];
    let removed = 0;
    for (const name of names) {
      const match = /^(ref-[A-Za-z0-9_-]+)\.bin$/.exec(name);
      if (match?.[1] === undefined) continue;
      if ((await load(match[1])) === undefined) {
        await unlink(join(spoolDirectory, name)).catch(ignoreMissing);
        removed += 1;
      }
    }
    return removed;
  };

  const close = async (): Promise<void> => {
    for (const timer of timers) clearTimeout(timer);
    timers.clear();
    await Promise.all(
      servers.splice(0).map(
        (server) =>
          new Promise<void>((resolve) => {
            server.closeAllConnections();
            server.close(() => {
              resolve();
            });
          }),
      ),
    );
  };

  return {
    serverName,
    get baseUrl() {
      return currentBase();
    },
    store,
    uploads: uploads === undefined ? undefined : { maxBytes: uploads.maxBytes, ttlSeconds: uploads.ttlSeconds },
    handle,
    listen,
    createReference,
    lookup,
    open,
    revoke,
    createUploadTicket,
    spool,
    sweep,
    close,
  };
}

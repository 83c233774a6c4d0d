import { createHash, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { mkdir, rename, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { Writable } from 'node:stream';
import { consoleLogger, ExtensionError, type Logger, type RequestContext } from '@ext/core';
import {
  byteCount,
  checkAccessUrl,
  checkRedirect,
  importFailure,
  msUntil,
  originCheck,
  positiveInteger,
  type OriginCheck,
  type OriginPolicy,
} from './logic.js';
import type { DataReference, ImportFromRefRequest, ImportFromRefResponse } from './schema.js';

/** Where imported bytes go. The importer writes, ends and waits for `writable` to finish before `commit`. */
export interface ImportSink {
  readonly writable: Writable;
  /** Every byte arrived and matched the checksum: make the data available and say where it is. */
  commit(verified: {
    sizeBytes: number;
    sha256: string;
  }): Promise<{ importedResourceId: string; reference?: DataReference | undefined }>;
  /** The transfer failed: discard what was written. */
  abort(reason: ExtensionError): Promise<void>;
}

/** What a sink is opened for. */
export interface ImportTarget {
  readonly request: ImportFromRefRequest;
  /** Total bytes the origin announced. */
  readonly sizeBytes: number | undefined;
  readonly principal: string;
  /** The request context when the import runs inside an MCP request. */
  readonly ctx: RequestContext | undefined;
}

export type SinkFactory = (target: ImportTarget) => ImportSink | Promise<ImportSink>;

export interface ImportPolicy {
  /** Origins the importer fetches from: URL origins (`https://files.example.com`) or a predicate. Required; an empty list imports nothing. */
  readonly allowedOrigins: OriginPolicy;
  /** Largest payload imported, in bytes (declared and actual). Default 1 GiB. */
  readonly maxBytes?: number | undefined;
  /** Redirects followed within the same origin. Default 3. */
  readonly maxRedirects?: number | undefined;
  /** Times a dropped transfer is resumed with a `Range` request. Default 3. */
  readonly maxResumes?: number | undefined;
  /**
   * Refuse data that cannot be verified: a reference without a sha256
   * checksum whose origin sends no `Repr-Digest` either. Default `true`.
   */
  readonly requireChecksum?: boolean | undefined;
  /** The fetch to use (tests, proxies). Default the global `fetch`. */
  readonly fetch?: typeof fetch | undefined;
  /** Clock in milliseconds (tests). Default `Date.now`. */
  readonly now?: (() => number) | undefined;
}

/** An import policy with defaults filled and options checked. */
export interface ResolvedImportPolicy {
  readonly allowed: OriginCheck;
  readonly maxBytes: number;
  readonly maxRedirects: number;
  readonly maxResumes: number;
  readonly requireChecksum: boolean;
  readonly fetch: typeof fetch;
  readonly now: () => number;
}

export const DEFAULT_MAX_IMPORT_BYTES = 1024 * 1024 * 1024;

/** Validates an import policy; throws a `ConfigurationError` naming the option. */
export function resolveImportPolicy(policy: ImportPolicy, where: string): ResolvedImportPolicy {
  const maxRedirects = policy.maxRedirects ?? 3;
  const maxResumes = policy.maxResumes ?? 3;
  return {
    allowed: originCheck(policy.allowedOrigins, `${where}: allowedOrigins`),
    maxBytes: byteCount(`${where}: maxBytes`, policy.maxBytes, DEFAULT_MAX_IMPORT_BYTES),
    maxRedirects: maxRedirects === 0 ? 0 : positiveInteger(`${where}: maxRedirects`, maxRedirects, 3),
    maxResumes: maxResumes === 0 ? 0 : positiveInteger(`${where}: maxResumes`, maxResumes, 3),
    requireChecksum: policy.requireChecksum ?? true,
    fetch: policy.fetch ?? fetch,
    now: policy.now ?? Date.now,
  };
}

/**
 * A sink that writes each import to its own file in `directory`
 * (`<uuid>.part`, renamed to `<uuid>` once verified); the imported resource
 * id is the file name.
 */
export function fileSink(directory: string): SinkFactory {
  return async () => {
    await mkdir(directory, { recursive: true });
    const id = randomUUID();
    const path = join(directory, id);
    const part = `${path}.part`;
    const writable = createWriteStream(part);
    return {
      writable,
      async commit() {
        await rename(part, path);
        return { importedResourceId: id };
      },
      async abort() {
        await closed(writable);
        await unlink(part).catch((error: unknown) => {
          if ((error as { code?: unknown }).code !== 'ENOENT') throw error;
        });
      },
    };
  };
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

/** Thrown out of the transfer loop to end it with a structured failure. */
class Failure extends Error {
  constructor(readonly error: ExtensionError) {
    super(error.message);
  }
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

function failed(error: ExtensionError): ImportFromRefResponse {
  return { status: 'failed', error: error.toStructured() };
}

async function discard(response: Response): Promise<void> {
  // The body of a refused answer is not read; cancelling frees the connection.
  // A body that already failed needs no cancelling, and the answer's status is what matters.
  await response.body?.cancel().catch((error: unknown) => error);
}

function statusFailure(status: number, url: URL): ExtensionError {
  if (status === 403) {
    return importFailure('permanent', 'ACCESS_DENIED', 'The origin refused the access URL (bad or expired signature)', {
      userActionable: true,
      suggestion: 'Ask the origin server for a fresh reference.',
      details: { status, origin: url.origin },
    });
  }
  if (status === 404 || status === 410) {
    return importFailure(
      'permanent',
      'REFERENCE_NOT_FOUND',
      'The origin does not know this reference (unknown, expired or revoked)',
      {
        details: { status, origin: url.origin },
      },
    );
  }
  const transient = status >= 500 || status === 429 || status === 408;
  return importFailure(
    transient ? 'transient' : 'permanent',
    'TRANSFER_FAILED',
    `The origin answered HTTP ${String(status)}`,
    {
      details: { status, origin: url.origin },
    },
  );
}

function tooLarge(size: number | undefined, max: number): ExtensionError {
  return importFailure(
    'permanent',
    'PAYLOAD_TOO_LARGE',
    `The referenced data is larger than this server imports (${String(max)} bytes)`,
    {
      userActionable: true,
      details: size === undefined ? { max_size_bytes: max } : { size_bytes: size, max_size_bytes: max },
    },
  );
}

function sizeMismatch(declared: number, actual: number): ExtensionError {
  return importFailure(
    'permanent',
    'SIZE_MISMATCH',
    `The origin sent ${String(actual)} bytes where the reference declares ${String(declared)}`,
    {
      details: { size_bytes: declared, received_bytes: actual },
    },
  );
}

function expired(): ExtensionError {
  return importFailure('permanent', 'REFERENCE_EXPIRED', 'The reference expired before the transfer completed', {
    userActionable: true,
    suggestion: 'Ask the origin server for a fresh reference and import it at once.',
  });
}

/** Total size from a 200's `Content-Length` or a 206's `Content-Range`; `undefined` when not stated. */
function announcedSize(response: Response): number | undefined {
  const range = response.headers.get('content-range');
  if (response.status === 206 && range !== null) {
    const match = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(range.trim());
    return match?.[3] === undefined ? undefined : Number(match[3]);
  }
  const length = response.headers.get('content-length');
  return length !== null && /^\d+$/.test(length) ? Number(length) : undefined;
}

/** The sha-256 of an RFC 9530 `Repr-Digest` header, as hex; `undefined` when absent or malformed. */
function reprDigest(response: Response): string | undefined {
  const match = /(?:^|,)\s*sha-256=:([A-Za-z0-9+/]{43}=):/.exec(response.headers.get('repr-digest') ?? '');
  return match?.[1] === undefined ? undefined : Buffer.from(match[1], 'base64').toString('hex');
}

function rangeStart(response: Response): number | undefined {
  const match = /^bytes (\d+)-(\d+)\/(\d+)$/.exec((response.headers.get('content-range') ?? '').trim());
  return match?.[1] === undefined ? undefined : Number(match[1]);
}

/** A short, safe word for what went wrong (an error code such as `ECONNRESET`), never a message that could hold a path. */
function reasonOf(error: unknown): string {
  if (typeof error === 'object' && error !== null) {
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    const name = (error as { name?: unknown }).name;
    if (typeof name === 'string') return name;
  }
  return 'error';
}

async function write(writable: Writable, chunk: Uint8Array): Promise<void> {
  if (writable.errored !== null) throw writable.errored;
  // Backpressure: wait for the sink to drain before reading more from the network.
  if (!writable.write(chunk)) await once(writable, 'drain');
}

async function finish(writable: Writable): Promise<void> {
  if (writable.errored !== null) throw writable.errored;
  const done = once(writable, 'finish');
  writable.end();
  await done;
}

/**
 * Imports the data behind a reference into a sink: checks the policy
 * (http(s), allowed origin, checksum algorithm, declared size, expiry)
 * before any request, streams the body with backpressure while hashing it
 * (against the reference's checksum, else the origin's `Repr-Digest`), resumes a
 * dropped transfer with `Range`, refuses redirects to another origin, stops
 * at the size limit or at `expires_at`, and commits only when size and
 * sha256 match. Never throws: every failure is a `failed` response.
 */
export async function importFromReference(
  request: ImportFromRefRequest,
  policy: ResolvedImportPolicy,
  openSink: SinkFactory,
  context: {
    principal?: string | undefined;
    ctx?: RequestContext | undefined;
    signal?: AbortSignal | undefined;
    logger?: Logger | undefined;
  } = {},
): Promise<ImportFromRefResponse> {
  const checksum = request.checksum;
  if (checksum !== undefined && checksum.algorithm !== 'sha256') {
    return failed(
      importFailure(
        'invalid_input',
        'CHECKSUM_UNSUPPORTED',
        `Checksums are verified with sha256 only, not ${checksum.algorithm}`,
        {
          details: { field: 'checksum', algorithm: checksum.algorithm },
        },
      ),
    );
  }
  const remaining = msUntil(request.expires_at, policy.now());
  if (remaining === 0) return failed(expired());
  const declared = request.size_bytes;
  if (declared !== undefined && declared > policy.maxBytes) return failed(tooLarge(declared, policy.maxBytes));
  const access = checkAccessUrl(request.access_url, policy.allowed);
  if (!access.ok) return failed(access.error);

  const controller = new AbortController();
  const deadline =
    remaining === undefined
      ? undefined
      : setTimeout(() => {
          controller.abort(new Failure(expired()));
        }, remaining);
  const outer = context.signal;
  const onOuterAbort = (): void => {
    controller.abort(new Failure(importFailure('transient', 'TRANSFER_FAILED', 'The import was cancelled')));
  };
  outer?.addEventListener('abort', onOuterAbort, { once: true });
  if (outer?.aborted === true) onOuterAbort();

  const hash = createHash('sha256');
  let received = 0;
  let total: number | undefined;
  let sink: ImportSink | undefined;
  let resumes = 0;
  /** The digest to verify: the reference's checksum, else the origin's `Repr-Digest`. */
  let expected = checksum?.value.toLowerCase();

  const open = async (sizeBytes: number | undefined): Promise<ImportSink> => {
    const opened = await openSink({
      request,
      sizeBytes,
      principal: context.principal ?? 'anonymous',
      ctx: context.ctx,
    });
    // A write error is read from `writable.errored` at the next write or at the end; without a listener it would crash the process.
    opened.writable.on('error', () => undefined);
    return opened;
  };

  const fetchOnce = async (start: number): Promise<Response> => {
    let url = access.url;
    for (let hops = 0; ; hops++) {
      const headers: Record<string, string> = { accept: '*/*' };
      if (start > 0) headers.range = `bytes=${String(start)}-`;
      const response = await policy.fetch(url, { redirect: 'manual', signal: controller.signal, headers });
      if (!REDIRECTS.has(response.status)) return response;
      await discard(response);
      const next = checkRedirect(url, response.headers.get('location'));
      if (!next.ok) throw new Failure(next.error);
      if (hops >= policy.maxRedirects) {
        throw new Failure(
          importFailure(
            'permanent',
            'TRANSFER_FAILED',
            `The origin redirected more than ${String(policy.maxRedirects)} times`,
            { details: { origin: url.origin } },
          ),
        );
      }
      url = next.url;
    }
  };

  const transfer = async (): Promise<void> => {
    for (;;) {
      let response: Response;
      try {
        response = await fetchOnce(received);
      } catch (error) {
        if (error instanceof Failure || controller.signal.aborted || resumes >= policy.maxResumes) throw error;
        resumes += 1;
        continue;
      }
      if (response.status !== 200 && response.status !== 206) {
        await discard(response);
        throw new Failure(statusFailure(response.status, access.url));
      }
      if (received > 0 && (response.status !== 206 || rangeStart(response) !== received)) {
        await discard(response);
        throw new Failure(
          importFailure(
            'transient',
            'TRANSFER_FAILED',
            'The transfer was interrupted and the origin cannot resume it',
            { details: { received_bytes: received } },
          ),
        );
      }
      total ??= announcedSize(response);
      if (total !== undefined && total > policy.maxBytes) {
        await discard(response);
        throw new Failure(tooLarge(total, policy.maxBytes));
      }
      if (declared !== undefined && total !== undefined && total !== declared) {
        await discard(response);
        throw new Failure(sizeMismatch(declared, total));
      }
      expected ??= reprDigest(response);
      if (expected === undefined && policy.requireChecksum) {
        await discard(response);
        throw new Failure(
          importFailure(
            'invalid_input',
            'CHECKSUM_MISSING',
            'Neither the reference nor the origin gives a sha256 checksum, and this server imports only verifiable data',
            {
              suggestion: 'Pass the whole DataReference, including its checksum.',
              details: { field: 'checksum' },
            },
          ),
        );
      }
      const body = response.body;
      if (body === null) throw new Failure(importFailure('transient', 'TRANSFER_FAILED', 'The origin sent no body'));
      sink ??= await open(total);
      try {
        for await (const chunk of body as AsyncIterable<Uint8Array>) {
          received += chunk.length;
          if (received > policy.maxBytes) throw new Failure(tooLarge(undefined, policy.maxBytes));
          if (declared !== undefined && received > declared) throw new Failure(sizeMismatch(declared, received));
          hash.update(chunk);
          try {
            await write(sink.writable, chunk);
          } catch (error) {
            throw new Failure(
              importFailure('transient', 'STORAGE_FAILED', 'Writing the imported data failed on this server', {
                details: { reason: reasonOf(error) },
              }),
            );
          }
        }
        return;
      } catch (error) {
        // A dropped connection is resumed from the last byte received; anything else ends the import.
        if (error instanceof Failure || controller.signal.aborted || resumes >= policy.maxResumes) throw error;
        resumes += 1;
      }
    }
  };

  try {
    await transfer();
    if (declared !== undefined && received !== declared) throw new Failure(sizeMismatch(declared, received));
    if (total !== undefined && received !== total) throw new Failure(sizeMismatch(total, received));
    const digest = hash.digest('hex');
    if (expected !== undefined && digest !== expected) {
      throw new Failure(
        importFailure('permanent', 'CHECKSUM_MISMATCH', 'The data received does not match the reference checksum', {
          details: { algorithm: 'sha256', expected, actual: digest },
        }),
      );
    }
    sink ??= await open(0);
    try {
      await finish(sink.writable);
    } catch (error) {
      throw new Failure(
        importFailure('transient', 'STORAGE_FAILED', 'Writing the imported data failed on this server', {
          details: { reason: reasonOf(error) },
        }),
      );
    }
    let committed: Awaited<ReturnType<ImportSink['commit']>>;
    try {
      committed = await sink.commit({ sizeBytes: received, sha256: digest });
    } catch (error) {
      throw new Failure(
        importFailure('transient', 'STORAGE_FAILED', 'Storing the imported data failed on this server', {
          details: { reason: reasonOf(error) },
        }),
      );
    }
    const response: ImportFromRefResponse = {
      status: 'imported',
      imported_resource_id: committed.importedResourceId,
      size_bytes: received,
    };
    if (committed.reference !== undefined) response.reference = committed.reference;
    return response;
  } catch (error) {
    const reason = controller.signal.reason instanceof Failure ? controller.signal.reason : undefined;
    const failure =
      error instanceof Failure
        ? error.error
        : reason !== undefined
          ? reason.error
          : importFailure('transient', 'TRANSFER_FAILED', 'The transfer from the origin failed', {
              details: { reason: reasonOf(error) },
            });
    if (sink !== undefined) {
      await sink.abort(failure).catch((abortError: unknown) => {
        (context.logger ?? consoleLogger).warn('data-references: discarding a failed import failed', {
          error: String(abortError),
        });
      });
    }
    return failed(failure);
  } finally {
    if (deadline !== undefined) clearTimeout(deadline);
    outer?.removeEventListener('abort', onOuterAbort);
  }
}

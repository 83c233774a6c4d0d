/**
 * The import itself: fetching a reference's bytes from its origin into a
 * sink, following same-origin redirects, resuming with `Range`, and
 * verifying size and sha256 before anything is committed.
 */
import { createHash, type Hash } from 'node:crypto';
import { consoleLogger } from '@ext/core/kit';
import { type Logger, type RequestContext } from '@ext/core';
import {
  expired,
  failed,
  Failure,
  importFailure,
  reasonOf,
  sizeMismatch,
  statusFailure,
  storageFailed,
  tooLarge,
} from './import-failures.js';
import { checkAccessUrl, checkRedirect, msUntil, type ResolvedImportPolicy } from './import-policy.js';
import type { ImportFromRefRequest, ImportFromRefResponse } from './schema.js';
import type { ImportSink, SinkFactory } from './sinks.js';
import { finish, write } from './streams.js';

/** Who an import runs for, and what may stop it. */
export interface ImportContext {
  principal?: string | undefined;
  ctx?: RequestContext | undefined;
  signal?: AbortSignal | undefined;
  logger?: Logger | undefined;
}

/** One import under way: what it was asked, and what it has received so far. */
interface Transfer {
  readonly request: ImportFromRefRequest;
  readonly policy: ResolvedImportPolicy;
  readonly openSink: SinkFactory;
  readonly context: ImportContext;
  /** The checked access URL. */
  readonly url: URL;
  /** The size the reference declares. */
  readonly declared: number | undefined;
  readonly controller: AbortController;
  readonly hash: Hash;
  received: number;
  /** The size the origin announced. */
  total: number | undefined;
  sink: ImportSink | undefined;
  resumes: number;
  /** The digest to verify: the reference's checksum, else the origin's `Repr-Digest`. */
  expected: string | undefined;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

async function discard(response: Response): Promise<void> {
  // The body of a refused answer is not read; cancelling frees the connection.
  // A body that already failed needs no cancelling, and the answer's status is what matters.
  await response.body?.cancel().catch((error: unknown) => error);
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

/** What can be refused before any request: the checksum algorithm, expiry, declared size, and the access URL. */
function preflight(
  request: ImportFromRefRequest,
  policy: ResolvedImportPolicy,
): { readonly url: URL; readonly remaining: number | undefined } | ImportFromRefResponse {
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
  return { url: access.url, remaining };
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
  context: ImportContext = {},
): Promise<ImportFromRefResponse> {
  const checked = preflight(request, policy);
  if (!('url' in checked)) return checked;
  const { url, remaining } = checked;

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

  const transfer: Transfer = {
    request,
    policy,
    openSink,
    context,
    url,
    declared: request.size_bytes,
    controller,
    hash: createHash('sha256'),
    received: 0,
    total: undefined,
    sink: undefined,
    resumes: 0,
    expected: request.checksum?.value.toLowerCase(),
  };
  try {
    await receive(transfer);
    return await complete(transfer);
  } catch (error) {
    return await fail(transfer, error);
  } finally {
    if (deadline !== undefined) clearTimeout(deadline);
    outer?.removeEventListener('abort', onOuterAbort);
  }
}

async function openSinkFor(transfer: Transfer, sizeBytes: number | undefined): Promise<ImportSink> {
  const opened = await transfer.openSink({
    request: transfer.request,
    sizeBytes,
    principal: transfer.context.principal ?? 'anonymous',
    ctx: transfer.context.ctx,
  });
  // A write error is read from `writable.errored` at the next write or at the end; without a listener it would crash the process.
  opened.writable.on('error', () => undefined);
  return opened;
}

/** One request for the bytes from `start` on, following redirects within the origin. */
async function fetchFrom(transfer: Transfer, start: number): Promise<Response> {
  const { policy } = transfer;
  let url = transfer.url;
  for (let hops = 0; ; hops++) {
    const headers: Record<string, string> = { accept: '*/*' };
    if (start > 0) headers.range = `bytes=${String(start)}-`;
    const response = await policy.fetch(url, { redirect: 'manual', signal: transfer.controller.signal, headers });
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
}

/** Refuses an answer that cannot continue the transfer; notes the size and digest the origin announced. */
async function accept(transfer: Transfer, response: Response): Promise<void> {
  const { policy, declared, received } = transfer;
  if (response.status !== 200 && response.status !== 206) {
    await discard(response);
    throw new Failure(statusFailure(response.status, transfer.url));
  }
  if (received > 0 && (response.status !== 206 || rangeStart(response) !== received)) {
    await discard(response);
    throw new Failure(
      importFailure('transient', 'TRANSFER_FAILED', 'The transfer was interrupted and the origin cannot resume it', {
        details: { received_bytes: received },
      }),
    );
  }
  transfer.total ??= announcedSize(response);
  const total = transfer.total;
  if (total !== undefined && total > policy.maxBytes) {
    await discard(response);
    throw new Failure(tooLarge(total, policy.maxBytes));
  }
  if (declared !== undefined && total !== undefined && total !== declared) {
    await discard(response);
    throw new Failure(sizeMismatch(declared, total));
  }
  transfer.expected ??= reprDigest(response);
  if (transfer.expected === undefined && policy.requireChecksum) {
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
}

/** Whether a failed attempt may be resumed: not a refusal, not aborted, and resumes left. */
function resumable(transfer: Transfer, error: unknown): boolean {
  return !(
    error instanceof Failure ||
    transfer.controller.signal.aborted ||
    transfer.resumes >= transfer.policy.maxResumes
  );
}

/** Receives every byte into the sink, hashing, resuming a dropped connection from the last byte received. */
async function receive(transfer: Transfer): Promise<void> {
  const { policy, declared } = transfer;
  for (;;) {
    let response: Response;
    try {
      response = await fetchFrom(transfer, transfer.received);
    } catch (error) {
      if (!resumable(transfer, error)) throw error;
      transfer.resumes += 1;
      continue;
    }
    await accept(transfer, response);
    const body = response.body;
    if (body === null) throw new Failure(importFailure('transient', 'TRANSFER_FAILED', 'The origin sent no body'));
    transfer.sink ??= await openSinkFor(transfer, transfer.total);
    const sink = transfer.sink;
    try {
      for await (const chunk of body as AsyncIterable<Uint8Array>) {
        transfer.received += chunk.length;
        const received = transfer.received;
        if (received > policy.maxBytes) throw new Failure(tooLarge(undefined, policy.maxBytes));
        if (declared !== undefined && received > declared) throw new Failure(sizeMismatch(declared, received));
        transfer.hash.update(chunk);
        try {
          await write(sink.writable, chunk);
        } catch (error) {
          throw new Failure(storageFailed('Writing', error));
        }
      }
      return;
    } catch (error) {
      // A dropped connection is resumed from the last byte received; anything else ends the import.
      if (!resumable(transfer, error)) throw error;
      transfer.resumes += 1;
    }
  }
}

/** Checks size and digest, finishes and commits the sink, and answers `imported`. */
async function complete(transfer: Transfer): Promise<ImportFromRefResponse> {
  const { declared, total, received, expected } = transfer;
  if (declared !== undefined && received !== declared) throw new Failure(sizeMismatch(declared, received));
  if (total !== undefined && received !== total) throw new Failure(sizeMismatch(total, received));
  const digest = transfer.hash.digest('hex');
  if (expected !== undefined && digest !== expected) {
    throw new Failure(
      importFailure('permanent', 'CHECKSUM_MISMATCH', 'The data received does not match the reference checksum', {
        details: { algorithm: 'sha256', expected, actual: digest },
      }),
    );
  }
  transfer.sink ??= await openSinkFor(transfer, 0);
  const sink = transfer.sink;
  try {
    await finish(sink.writable);
  } catch (error) {
    throw new Failure(storageFailed('Writing', error));
  }
  let committed: Awaited<ReturnType<ImportSink['commit']>>;
  try {
    committed = await sink.commit({ sizeBytes: received, sha256: digest });
  } catch (error) {
    throw new Failure(storageFailed('Storing', error));
  }
  const response: ImportFromRefResponse = {
    status: 'imported',
    imported_resource_id: committed.importedResourceId,
    size_bytes: received,
  };
  if (committed.reference !== undefined) response.reference = committed.reference;
  return response;
}

/** The `failed` answer for what ended the import, after discarding what the sink holds. */
async function fail(transfer: Transfer, error: unknown): Promise<ImportFromRefResponse> {
  const reason = transfer.controller.signal.reason instanceof Failure ? transfer.controller.signal.reason : undefined;
  const failure =
    error instanceof Failure
      ? error.error
      : reason !== undefined
        ? reason.error
        : importFailure('transient', 'TRANSFER_FAILED', 'The transfer from the origin failed', {
            details: { reason: reasonOf(error) },
          });
  if (transfer.sink !== undefined) {
    await transfer.sink.abort(failure).catch((abortError: unknown) => {
      (transfer.context.logger ?? consoleLogger).warn('data-references: discarding a failed import failed', {
        error: String(abortError),
      });
    });
  }
  return failed(failure);
}

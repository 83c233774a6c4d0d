/** Where a reference's bytes come from: minting a reference from a file, chunks or a generator, and reading them back. */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ConfigurationError, ExtensionError } from '@ext/core';
import { byteCountOption, mediaTypeOption } from './option-checks.js';
import { currentBase, ORIGIN, type OriginState } from './origin-options.js';
import type { CreateReferenceOptions, ReferenceSource } from './origin-types.js';
import { expiryFor, load, newId, save, type StoredReference } from './reference-store.js';
import type { DataReference } from './schema.js';
import { spool } from './spool.js';
import { hashOf, ignoreMissing, Meter, slice } from './streams.js';

/** Creates a reference from a file, chunks or a generator. */
export async function createReference(
  state: OriginState,
  source: ReferenceSource,
  create: CreateReferenceOptions,
): Promise<DataReference> {
  // Fails before any work when the public URL is not known yet.
  currentBase(state);
  const mimeType = mediaTypeOption(ORIGIN, 'mimeType', create.mimeType);
  const principal = create.principal ?? 'anonymous';
  const name = create.name ?? null;
  if ('path' in source) {
    const info = await stat(source.path);
    if (!info.isFile())
      throw new ConfigurationError('INVALID_SOURCE', `${ORIGIN}: the source path is not a regular file`);
    const known = create.checksum?.algorithm === 'sha256' ? create.checksum.value.toLowerCase() : undefined;
    const sha256 = known ?? (await hashOf(createReadStream(source.path))).sha256;
    return save(state, {
      ref_id: newId('ref-'),
      mime_type: mimeType,
      size_bytes: info.size,
      sha256,
      expires_at_ms: expiryFor(state, create.ttlSeconds),
      principal,
      name,
      source: 'file',
      path: source.path,
    });
  }
  if ('chunks' in source) {
    const writer = await spool(state, create);
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
    throw new ConfigurationError('INVALID_SOURCE', `${ORIGIN}: a source needs path, chunks or generate`);
  const known =
    source.checksum?.algorithm === 'sha256' && source.sizeBytes !== undefined
      ? { sizeBytes: source.sizeBytes, sha256: source.checksum.value.toLowerCase() }
      : undefined;
  const measured = known ?? (await hashOf(generate(0)));
  const refId = newId('ref-');
  state.generators.set(refId, generate);
  return save(state, {
    ref_id: refId,
    mime_type: mimeType,
    size_bytes: byteCountOption(ORIGIN, 'sizeBytes', measured.sizeBytes, 0),
    sha256: measured.sha256,
    expires_at_ms: expiryFor(state, create.ttlSeconds),
    principal,
    name,
    source: 'live',
    path: null,
  });
}

/** The bytes `start`..`end` (inclusive) of a stored reference, or `undefined` when they are not available in this process. */
export async function readable(
  state: OriginState,
  record: StoredReference,
  start: number,
  end: number,
): Promise<Readable | undefined> {
  const length = end - start + 1;
  if (record.source === 'live') {
    const generate = state.generators.get(record.ref_id);
    if (generate === undefined) return undefined;
    return Readable.from(slice(generate(start), Math.max(0, length)));
  }
  if (record.path === null) return undefined;
  const info = await stat(record.path).catch(ignoreMissing);
  // A file source that changed size is no longer the payload the checksum describes.
  if (info?.isFile() !== true || info.size !== record.size_bytes) return undefined;
  if (length <= 0) return Readable.from([]);
  return createReadStream(record.path, { start, end });
}

function notFound(refId: string): ExtensionError {
  return new ExtensionError(
    'permanent',
    'REFERENCE_NOT_FOUND',
    'No such reference is served here (unknown, expired or revoked)',
    { details: { ref_id: refId } },
  );
}

/** Reads a reference's bytes (all, or the inclusive range); throws `REFERENCE_NOT_FOUND` when it is not served here. */
export async function open(
  state: OriginState,
  refId: string,
  range?: { start: number; end: number },
): Promise<Readable> {
  const record = await load(state, refId);
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
  const stream = await readable(state, record, start, end);
  if (stream === undefined) throw notFound(refId);
  return stream;
}

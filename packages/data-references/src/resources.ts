/**
 * References read through MCP's `resources/read` (DREF-23..DREF-27), for
 * hosts that know nothing of the extension: the `resource_link`'s URL is
 * checked as a download is, the reference must be the caller's, and its
 * bytes are read from the origin as a stream up to a cap, as text or base64.
 */
import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { ExtensionError, type ExtensionResources, type RequestContext, type ResourceReadResult } from '@ext/core';
import { isTextMediaType } from './logic.js';
import type { LocalReference, ReferenceOrigin } from './origin-types.js';
import { readDenied, readExpired, readNotFound, readTooLarge } from './read-failures.js';

/** The largest reference `resources/read` answers by default, in bytes (4 MiB; base64 makes a blob a third larger). */
export const DEFAULT_RESOURCE_MAX_BYTES = 4 * 1024 * 1024;

function tooLarge(local: LocalReference, maxBytes: number): Error {
  return readTooLarge(
    { refId: local.reference.ref_id, sizeBytes: local.sizeBytes, accessUrl: local.reference.access_url },
    maxBytes,
  );
}

/** Opens the bytes; a reference whose bytes are not available in this process is not found. */
async function openBytes(origin: ReferenceOrigin, refId: string): Promise<Readable> {
  try {
    return await origin.open(refId);
  } catch (error) {
    if (ExtensionError.isInstance(error)) throw readNotFound(refId);
    throw error;
  }
}

/** Every byte of a reference, stopping past `maxBytes`; refuses bytes that are no longer the ones referenced. */
async function readBytes(
  origin: ReferenceOrigin,
  local: LocalReference,
  maxBytes: number,
  signal: AbortSignal,
): Promise<Buffer> {
  const refId = local.reference.ref_id;
  const stream = await openBytes(origin, refId);
  const chunks: Buffer[] = [];
  const hash = createHash('sha256');
  let size = 0;
  try {
    for await (const chunk of stream as AsyncIterable<Uint8Array>) {
      signal.throwIfAborted();
      size += chunk.length;
      if (size > maxBytes) throw tooLarge(local, maxBytes);
      hash.update(chunk);
      // A copy: a source may reuse its buffer for the next chunk.
      chunks.push(Buffer.from(chunk));
    }
  } finally {
    stream.destroy();
  }
  // A file changed under the reference: its bytes are not the ones the checksum names.
  if (size !== local.sizeBytes || hash.digest('hex') !== local.sha256) throw readNotFound(refId);
  return Buffer.concat(chunks, size);
}

/** The `resources/read` contents: text for UTF-8 text media types, else base64. */
function contentsOf(uri: string, mimeType: string, bytes: Buffer): ResourceReadResult['contents'][number] {
  if (isTextMediaType(mimeType)) {
    try {
      // Fatal, so bytes that are not UTF-8 after all go out as a blob instead of being mangled.
      return { uri, mimeType, text: new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes) };
    } catch {
      // Not UTF-8: the blob below carries the bytes as they are.
    }
  }
  return { uri, mimeType, blob: bytes.toString('base64') };
}

async function readReference(
  origin: ReferenceOrigin,
  maxBytes: number,
  uri: string,
  ctx: RequestContext,
): Promise<ResourceReadResult> {
  // The signature first, so the answer to a bad one never depends on whether the id exists (DREF-6).
  const check = origin.checkAccessUrl(uri);
  if (check.kind === 'denied' && check.reason === 'signature') throw readDenied();
  if (check.kind === 'denied' && check.reason === 'expired') throw readExpired();
  if (check.kind !== 'valid') throw readNotFound(undefined);
  const local = await origin.lookup(check.refId, ctx.principal);
  if (local === undefined) throw readNotFound(check.refId);
  if (local.sizeBytes > maxBytes) throw tooLarge(local, maxBytes);
  const bytes = await readBytes(origin, local, maxBytes, ctx.signal);
  return { contents: [contentsOf(uri, local.reference.mime_type, bytes)] };
}

/** The origin's references as resources: URLs under its base URL are read here, every other URI is the application's. */
export function referenceResources(origin: ReferenceOrigin, maxBytes: number): ExtensionResources {
  return {
    owns: (uri) => origin.checkAccessUrl(uri).kind !== 'foreign',
    read: (uri, ctx) => readReference(origin, maxBytes, uri, ctx),
  };
}

/** Where imported bytes go: the sink an import writes to, and the two this package offers (files, or the origin). */
import { createWriteStream } from 'node:fs';
import { mkdir, rename, unlink } from 'node:fs/promises';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { Writable } from 'node:stream';
import type { ExtensionError, RequestContext } from '@ext/core';
import { isMimeType } from './logic.js';
import type { ReferenceOrigin } from './origin-types.js';
import type { DataReference, ImportFromRefRequest } from './schema.js';
import { closed, ignoreMissing } from './streams.js';

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
        await unlink(part).catch(ignoreMissing);
      },
    };
  };
}

/** A sink that keeps each import as a reference of `origin`, owned by the importing caller. */
export function originSink(origin: ReferenceOrigin): SinkFactory {
  return async ({ request, principal }) => {
    const writer = await origin.spool({
      mimeType:
        request.mime_type !== undefined && isMimeType(request.mime_type)
          ? request.mime_type
          : 'application/octet-stream',
      principal,
      name: request.ref_id,
    });
    return {
      writable: writer.writable,
      async commit(verified) {
        const reference = await writer.commit(verified);
        return { importedResourceId: reference.ref_id, reference };
      },
      abort: () => writer.abort(),
    };
  };
}

/** What a reference origin offers its users: the sources it mints references from, and the origin itself. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Readable, Writable } from 'node:stream';
import type { Store } from '@ext/core';
import type { AccessUrlCheck } from './access-url.js';
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
  /**
   * What `url` is to this origin: `foreign` (not under its base URL),
   * `denied` (a bad or changed signature, an expired URL, or a path naming no
   * reference) or `valid` with the reference id, checked as a download is
   * (DREF-6). The reference itself may still be unknown: {@link lookup} says.
   */
  checkAccessUrl(url: string): AccessUrlCheck;
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

/**
 * Reference records in the store: reading, saving with expiry, forgetting,
 * and describing them as `DataReference`s with freshly signed URLs.
 */
import { randomBytes } from 'node:crypto';
import { unlink } from 'node:fs/promises';
import { isRecord, positiveIntegerOption, type JsonValue } from '@ext/core/kit';
import { isRefId } from './logic.js';
import { currentBase, ORIGIN, type OriginState } from './origin-options.js';
import type { LocalReference } from './origin-types.js';
import type { DataReference } from './schema.js';
import { signedUrl } from './signing.js';
import { ignoreMissing } from './streams.js';

/** A reference as its record in the store keeps it. */
export interface StoredReference {
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

function refKey(state: OriginState, refId: string): string {
  return `${state.keyPrefix}:ref:${refId}`;
}

/** A new random id (a reference's or an upload's), URL-safe, after `prefix`. */
export function newId(prefix: string): string {
  return `${prefix}${randomBytes(16).toString('base64url')}`;
}

/** When a reference created now with a lifetime of `seconds` (default: the origin's) expires, in milliseconds. */
export function expiryFor(state: OriginState, seconds: number | undefined): number {
  const lifetime = positiveIntegerOption(ORIGIN, 'ttlSeconds', seconds, state.ttlSeconds);
  // Whole seconds, so expires_at and the signed URL's expiry are the same instant.
  return (Math.floor(state.now() / 1000) + lifetime) * 1000;
}

/** Runs `task` at `atMs` without keeping the process alive. */
function schedule(state: OriginState, atMs: number, task: () => Promise<unknown>): void {
  // setTimeout's delay is a signed 32-bit number of milliseconds.
  const delay = Math.min(Math.max(0, atMs - state.now()), 2_147_483_647);
  const timer = setTimeout(() => {
    state.timers.delete(timer);
    task().catch((error: unknown) => {
      state.logger.warn('data-references: cleaning up an expired reference failed', { error: String(error) });
    });
  }, delay);
  timer.unref();
  state.timers.add(timer);
}

/** The wire `DataReference` of a record, with a URL signed now. */
function describe(state: OriginState, record: StoredReference): DataReference {
  return {
    ref_id: record.ref_id,
    origin_server: state.serverName,
    mime_type: record.mime_type,
    size_bytes: record.size_bytes,
    expires_at: new Date(record.expires_at_ms).toISOString(),
    access_url: signedUrl(
      currentBase(state),
      [record.ref_id],
      state.key,
      'download',
      record.ref_id,
      Math.floor(record.expires_at_ms / 1000),
    ),
    checksum: { algorithm: 'sha256', value: record.sha256 },
  };
}

/** A live reference's record, or `undefined` when the id is malformed, unknown or expired. */
export async function load(state: OriginState, refId: string): Promise<StoredReference | undefined> {
  if (!isRefId(refId)) return undefined;
  const record = readStoredReference(await state.store.get(refKey(state, refId)));
  return record === undefined || record.expires_at_ms <= state.now() ? undefined : record;
}

/** Drops a reference: its record, its live source, and its spooled file. */
async function forget(state: OriginState, record: StoredReference): Promise<void> {
  state.generators.delete(record.ref_id);
  await state.store.delete(refKey(state, record.ref_id));
  if (record.source === 'spool' && record.path !== null) await unlink(record.path).catch(ignoreMissing);
}

/** Stores a record until it expires (and what it holds in this process is forgotten then too). */
export async function save(state: OriginState, record: StoredReference): Promise<DataReference> {
  await state.store.set(
    refKey(state, record.ref_id),
    { ...record },
    { ttlMs: Math.max(1, record.expires_at_ms - state.now()) },
  );
  if (record.source !== 'file') schedule(state, record.expires_at_ms, () => forget(state, record));
  return describe(state, record);
}

/** A reference's metadata, with a freshly signed URL; `undefined` when unknown, expired, or another principal's. */
export async function lookup(
  state: OriginState,
  refId: string,
  principal?: string,
): Promise<LocalReference | undefined> {
  const record = await load(state, refId);
  if (record === undefined || (principal !== undefined && record.principal !== principal)) return undefined;
  return {
    reference: describe(state, record),
    principal: record.principal,
    name: record.name ?? undefined,
    sizeBytes: record.size_bytes,
    sha256: record.sha256,
    expiresAtMs: record.expires_at_ms,
  };
}

/** Forgets a reference before its expiry; `false` when there was none. */
export async function revoke(state: OriginState, refId: string): Promise<boolean> {
  const record = await load(state, refId);
  if (record === undefined) return false;
  await forget(state, record);
  return true;
}

/** Upload tickets in the store: minting single-use upload URLs, and claiming and using up a ticket. */
import { ExtensionError } from '@ext/core';
import { isRecord, type JsonValue } from '@ext/core/kit';
import { isMimeType } from './logic.js';
import { currentBase, type OriginState, type UploadLimits } from './origin-options.js';
import { newId } from './reference-store.js';
import type { UploadTicket } from './schema.js';
import { signedUrl } from './signing.js';

/** The path segment uploads are served under, below the base URL. */
export const UPLOADS = 'uploads';

/** An upload ticket as its record in the store keeps it. */
export interface StoredUpload {
  /** Single use: `pending` until a request claims it, then `receiving`, then `used` whatever the outcome. */
  readonly state: 'pending' | 'receiving' | 'used';
  readonly mime_type: string;
  readonly max_size_bytes: number;
  readonly principal: string;
  readonly expires_at_ms: number;
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

function uploadKey(state: OriginState, uploadId: string): string {
  return `${state.keyPrefix}:upload:${uploadId}`;
}

/** A single-use URL the holder can `PUT` raw bytes to; throws `UPLOADS_DISABLED`, `INVALID_INPUT` or `PAYLOAD_TOO_LARGE`. */
export async function createUploadTicket(
  state: OriginState,
  request: { mimeType: string; sizeBytes?: number | undefined; principal?: string | undefined },
): Promise<UploadTicket> {
  const uploads = state.uploads;
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
  const expiresSeconds = Math.floor(state.now() / 1000) + uploads.ttlSeconds;
  const record: StoredUpload = {
    state: 'pending',
    mime_type: request.mimeType,
    max_size_bytes: uploads.maxBytes,
    principal: request.principal ?? 'anonymous',
    expires_at_ms: expiresSeconds * 1000,
  };
  await state.store.set(uploadKey(state, uploadId), { ...record }, { ttlMs: uploads.ttlSeconds * 1000 });
  return {
    upload_url: signedUrl(currentBase(state), [UPLOADS, uploadId], state.key, 'upload', uploadId, expiresSeconds),
    method: 'PUT',
    expires_at: new Date(record.expires_at_ms).toISOString(),
    max_size_bytes: uploads.maxBytes,
  };
}

/**
 * Claims a ticket for the one request that may write to it: the ticket,
 * now `receiving`; `unknown` when there is none; `used` when it is not
 * `pending` or another request moved it first.
 */
export async function claimUpload(
  state: OriginState,
  uploads: UploadLimits,
  uploadId: string,
): Promise<StoredUpload | 'unknown' | 'used'> {
  const stored = await state.store.get(uploadKey(state, uploadId));
  const ticket = readStoredUpload(stored);
  if (ticket === undefined || stored === undefined) return 'unknown';
  if (
    ticket.state !== 'pending' ||
    !(await state.store.compareAndSet(
      uploadKey(state, uploadId),
      stored,
      { ...ticket, state: 'receiving' },
      { ttlMs: uploads.ttlSeconds * 1000 },
    ))
  ) {
    return 'used';
  }
  return ticket;
}

/** Marks a claimed ticket `used`, until it would have expired. */
export async function markUsed(state: OriginState, uploadId: string, ticket: StoredUpload): Promise<void> {
  await state.store.set(
    uploadKey(state, uploadId),
    { ...ticket, state: 'used' },
    { ttlMs: Math.max(1, ticket.expires_at_ms - state.now()) },
  );
}

/** Why an import failed, pure: the structured errors of a `failed` ImportFromRefResponse, one builder per reason. */
import { ExtensionError, type ErrorCategory } from '@ext/core';
import type { ImportFromRefResponse } from './schema.js';

/** A reason an import failed, as the structured error of an `ImportFromRefResponse`. */
export function importFailure(
  category: ErrorCategory,
  code: string,
  message: string,
  options: { suggestion?: string; details?: Record<string, unknown>; userActionable?: boolean } = {},
): ExtensionError {
  return new ExtensionError(category, code, message, {
    userActionable: options.userActionable ?? false,
    suggestion: options.suggestion,
    details: options.details,
  });
}

/**
 * Why a server without an import policy fetches nothing (DREF-12a): its
 * allow-list is empty, so every origin is refused, as `ORIGIN_NOT_ALLOWED`.
 * Uploading is suggested only to a caller that can upload here (DREF-12b).
 */
export function importsNothing(
  reference: { readonly ref_id: string; readonly origin_server: string },
  canUpload: boolean,
): ExtensionError {
  return importFailure(
    'permanent',
    'ORIGIN_NOT_ALLOWED',
    `This server imports no data from other servers, so it cannot read a reference of "${reference.origin_server}"`,
    {
      userActionable: true,
      suggestion: canUpload
        ? 'Send the data inline, or upload it to this server and pass the reference it returns.'
        : 'Send the data inline instead.',
      details: { ref_id: reference.ref_id, origin_server: reference.origin_server },
    },
  );
}

/** Thrown out of the transfer loop to end it with a structured failure. */
export class Failure extends Error {
  constructor(readonly error: ExtensionError) {
    super(error.message);
  }
}

/** The `failed` answer carrying `error`. */
export function failed(error: ExtensionError): ImportFromRefResponse {
  return { status: 'failed', error: error.toStructured() };
}

/** The origin answered an HTTP status other than 200 or 206. */
export function statusFailure(status: number, url: URL): ExtensionError {
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

export function tooLarge(size: number | undefined, max: number): ExtensionError {
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

export function sizeMismatch(declared: number, actual: number): ExtensionError {
  return importFailure(
    'permanent',
    'SIZE_MISMATCH',
    `The origin sent ${String(actual)} bytes where the reference declares ${String(declared)}`,
    {
      details: { size_bytes: declared, received_bytes: actual },
    },
  );
}

export function expired(): ExtensionError {
  return importFailure('permanent', 'REFERENCE_EXPIRED', 'The reference expired before the transfer completed', {
    userActionable: true,
    suggestion: 'Ask the origin server for a fresh reference and import it at once.',
  });
}

/** Writing to, finishing or committing the sink failed (`what` says which). */
export function storageFailed(what: 'Writing' | 'Storing', error: unknown): ExtensionError {
  return importFailure('transient', 'STORAGE_FAILED', `${what} the imported data failed on this server`, {
    details: { reason: reasonOf(error) },
  });
}

/** A short, safe word for what went wrong (an error code such as `ECONNRESET`), never a message that could hold a path. */
export function reasonOf(error: unknown): string {
  if (typeof error === 'object' && error !== null) {
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    const name = (error as { name?: unknown }).name;
    if (typeof name === 'string') return name;
  }
  return 'error';
}

/**
 * Why `resources/read` refuses a reference's URL (DREF-26), pure: each a
 * JSON-RPC `-32602` (MCP's answer to a resource that cannot be read) whose
 * `data` is the structured error.
 */
import { ErrorCodes, ExtensionError, WireError } from '@ext/core';

function refusal(error: ExtensionError): WireError {
  return new WireError(ErrorCodes.InvalidParams, error.message, error.toStructured());
}

/** A signature that does not verify: the URL was changed, or another origin signed it. */
export function readDenied(): WireError {
  return refusal(
    new ExtensionError('permanent', 'ACCESS_DENIED', "The reference URL's signature is not valid here", {
      userActionable: false,
      suggestion: 'Use the URL exactly as the tool result gave it.',
    }),
  );
}

/** A validly signed URL past its expiry. */
export function readExpired(): WireError {
  return refusal(
    new ExtensionError('permanent', 'REFERENCE_EXPIRED', 'The reference URL has expired', {
      userActionable: true,
      suggestion: 'Call the tool that produced the reference again for a fresh one.',
    }),
  );
}

/** No such reference for this caller: never issued, expired, revoked, another caller's, or its bytes are gone. */
export function readNotFound(refId: string | undefined): WireError {
  return refusal(
    new ExtensionError(
      'permanent',
      'REFERENCE_NOT_FOUND',
      'No such reference is held here for this caller (unknown, expired, revoked or not yours)',
      refId === undefined ? {} : { details: { ref_id: refId } },
    ),
  );
}

/** A reference over the size `resources/read` answers: says the cap, and how to get the bytes instead. */
export function readTooLarge(
  reference: { readonly refId: string; readonly sizeBytes: number; readonly accessUrl: string | undefined },
  maxBytes: number,
): WireError {
  return refusal(
    new ExtensionError(
      'permanent',
      'PAYLOAD_TOO_LARGE',
      `The reference holds ${String(reference.sizeBytes)} bytes, more than the ${String(maxBytes)} that resources/read answers`,
      {
        userActionable: true,
        suggestion:
          'Fetch access_url over HTTP (it serves Range requests), or pass the reference to a server that imports it (import_from_ref), which fetches the bytes itself.',
        details: {
          ref_id: reference.refId,
          size_bytes: reference.sizeBytes,
          max_size_bytes: maxBytes,
          ...(reference.accessUrl === undefined ? {} : { access_url: reference.accessUrl }),
        },
      },
    ),
  );
}

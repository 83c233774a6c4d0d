/** One `<id>/get` round trip from the client, its answer validated. */
import { ExtensionError, type ExtendedClient } from '@ext/core';
import { parseGetResult } from './parse.js';
import { MANIFEST_ID, manifestGetMethod, type ManifestGetResult } from './schema.js';

/**
 * One `<id>/get` round trip, validated: the full answer, or `not_modified`
 * when `etag` is current. `undefined` when the server does not negotiate
 * the extension. A malformed answer throws `INVALID_MANIFEST` naming the
 * JSON Pointer of the first violation.
 */
export async function fetchManifest(client: ExtendedClient, etag?: string): Promise<ManifestGetResult | undefined> {
  const negotiated = client.negotiated(MANIFEST_ID);
  if (negotiated === undefined) return undefined;
  const answer = await client.request(manifestGetMethod(negotiated.id), etag === undefined ? {} : { etag });
  const parsed = parseGetResult(answer);
  if (!parsed.ok) {
    throw new ExtensionError(
      'permanent',
      'INVALID_MANIFEST',
      `${negotiated.id}/get answered a malformed result: ${parsed.pointer || '/'} ${parsed.message}`,
      {
        userActionable: false,
        details: { pointer: parsed.pointer },
      },
    );
  }
  return parsed.value;
}

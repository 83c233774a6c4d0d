/** Where the tracker serves the bytes of its data references: report exports and image uploads. */
import type { Logger, Store } from '@ext/core';
import { createReferenceOrigin, type ReferenceOrigin } from '@ext/data-references/server';
import { MAX_ATTACHMENT_BYTES } from '../tools/tool-limits.js';
import { SERVER_INFO } from './compose.js';
import { secretFrom } from './secrets.js';

/**
 * Serves the bytes of the tracker's data references on a port of its own on
 * 127.0.0.1 (`port`: the entry points pass `TRACKER_REFS_PORT`; default a
 * free one), at signed, expiring URLs. Its secret is `TRACKER_REFS_SECRET`,
 * else random per process (URLs then die with it; said once through the logger).
 */
export async function startReferenceOrigin(
  store: Store,
  options: {
    readonly serverName?: string | undefined;
    readonly port?: number | undefined;
    readonly secret?: string | undefined;
    readonly logger?: Logger | undefined;
  } = {},
): Promise<ReferenceOrigin> {
  const origin = createReferenceOrigin({
    secret: secretFrom(options.secret, 'TRACKER_REFS_SECRET', 'data-reference URLs', options.logger),
    store,
    serverName: options.serverName ?? SERVER_INFO.name,
    uploads: { maxBytes: MAX_ATTACHMENT_BYTES },
    logger: options.logger,
  });
  await origin.listen({ host: '127.0.0.1', port: options.port ?? 0 });
  return origin;
}

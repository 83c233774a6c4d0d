/**
 * Change notices (MAN-13): a connection that fetched the manifest, and
 * negotiated the extension, is sent `notifications/<id>/changed` when a
 * tool registered later changes it.
 */
import type { ConnectionChannel, RequestContext, ServingServer } from '@ext/core';
import type { Assemble } from './assemble.js';
import { MANIFEST_ID, MANIFEST_PACKAGE, manifestChangedMethod, type ManifestChangedParams } from './schema.js';

/** What the server remembers of a connection that fetched the manifest: the last etag it was told. */
interface Watch {
  lastEtag: string;
}

/** Starts following tool registrations for the request's connection (once), or records the etag it was told. */
export type Watcher = (ctx: RequestContext, server: ServingServer, etag: string) => void;

/** The watcher of one `manifestServer()`, which rechecks the manifest with `assemble`. */
export function connectionWatcher(assemble: Assemble): Watcher {
  const watches = new WeakMap<ConnectionChannel, Watch>();
  return (ctx, server, etag) => {
    const connection = ctx.connection;
    const negotiated = ctx.negotiated(MANIFEST_ID);
    if (connection === undefined || negotiated === undefined || connection.signal.aborted) return;
    const known = watches.get(connection);
    if (known !== undefined) {
      known.lastEtag = etag;
      return;
    }
    const state: Watch = { lastEtag: etag };
    watches.set(connection, state);
    let pending = false;
    const recheck = (): void => {
      pending = false;
      if (connection.signal.aborted) return;
      const next = assemble(server, ctx.protocolVersion, ctx.identity?.source === 'anonymous', ctx.logger).etag;
      if (next === state.lastEtag) return;
      state.lastEtag = next;
      const params: ManifestChangedParams = { etag: next };
      connection.notify(manifestChangedMethod(negotiated.id), params).catch((error: unknown) => {
        ctx.logger.warn(`${MANIFEST_PACKAGE}: could not send the change notification`, { error: String(error) });
      });
    };
    const stop = server.composed.onToolRecorded(() => {
      // Registrations come in bursts (a setup registering ten tools): one recheck after the burst.
      if (pending) return;
      pending = true;
      queueMicrotask(recheck);
    });
    connection.signal.addEventListener('abort', stop, { once: true });
  };
}

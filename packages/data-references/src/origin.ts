/** `createReferenceOrigin`: an origin's parts (records, sources, spool, uploads, HTTP routes) put together over one state. */
import { checkAccessUrl } from './access-url.js';
import { originState, currentBase, type ReferenceOriginOptions } from './origin-options.js';
import type { ReferenceOrigin } from './origin-types.js';
import { lookup, revoke } from './reference-store.js';
import { close, handle, listen } from './routes.js';
import { createReference, open } from './sources.js';
import { spool, sweep } from './spool.js';
import { createUploadTicket } from './uploads.js';

/**
 * Creates a reference origin. Validates the options at once; nothing is
 * listened on or written until used.
 */
export function createReferenceOrigin(options: ReferenceOriginOptions): ReferenceOrigin {
  const state = originState(options);
  const uploads = state.uploads;
  return {
    serverName: state.serverName,
    get baseUrl() {
      return currentBase(state);
    },
    store: state.store,
    uploads: uploads === undefined ? undefined : { maxBytes: uploads.maxBytes, ttlSeconds: uploads.ttlSeconds },
    handle: (req, res) => handle(state, req, res),
    listen: (listenOptions) => listen(state, listenOptions),
    createReference: (source, create) => createReference(state, source, create),
    lookup: (refId, principal) => lookup(state, refId, principal),
    checkAccessUrl: (url) => checkAccessUrl(state.keys, state.baseUrl, url, state.now()),
    open: (refId, range) => open(state, refId, range),
    revoke: (refId) => revoke(state, refId),
    createUploadTicket: (request) => createUploadTicket(state, request),
    spool: (create) => spool(state, create),
    sweep: () => sweep(state),
    close: () => close(state),
  };
}

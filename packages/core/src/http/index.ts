/**
 * `@ext/core/http`: serving an SDK adapter's fetch-shaped handler, without
 * any SDK: listening on a port, bridging Node's `http` module, the request
 * checks every MCP endpoint needs, and the limits on sessions. The handlers
 * themselves come from `@ext/core/sdk-v2` and `@ext/core/sdk-v1`.
 */
export {
  DEFAULT_MAX_SESSIONS,
  DEFAULT_MAX_SESSIONS_PER_PRINCIPAL,
  DEFAULT_SESSION_IDLE_TIMEOUT_MS,
} from './http-sessions.js';
export type { SessionLimits } from './http-sessions.js';
export { listen } from './listen.js';
export type { ListenOptions, Listening, ServableHandler } from './listen.js';
export { nodeListener, refuseForeignRequest } from './node-listener.js';
export type { FetchHandler, FetchHandlerOptions, NodeListenerOptions, NodeRequestListener } from './node-listener.js';
export { isLoopbackAddress } from './http-origin.js';
export type { RequestSourceOptions } from './http-origin.js';
export { toFetchRequest, writeFetchResponse } from './node-http.js';
export type { FetchRequestOptions, NodeRequest } from './node-http.js';
export type { HttpIdentityOptions } from './http-identity.js';

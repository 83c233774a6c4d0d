/**
 * The adapter for the v2 SDK line (`@modelcontextprotocol/server` and
 * `@modelcontextprotocol/client`, both protocol eras). The only module of
 * this package that imports those packages.
 */
export { extendServer } from './server.js';
export { extendClient, toWireError } from './client.js';
export { createHttpHandler } from './http.js';
export { DEFAULT_MAX_REQUEST_BODY_BYTES } from './http.js';
export type { DualEraHttpHandler, HttpHandlerOptions, HttpRequestOptions, NotifyingHttpHandler } from './http.js';
export {
  DEFAULT_MAX_SESSIONS,
  DEFAULT_MAX_SESSIONS_PER_PRINCIPAL,
  DEFAULT_SESSION_IDLE_TIMEOUT_MS,
} from '../http-sessions.js';
export type { SessionLimits } from '../http-sessions.js';
export { listen } from '../listen.js';
export type { ListenOptions, Listening, ServableHandler } from '../listen.js';
export { nodeListener, refuseForeignRequest } from '../node-listener.js';
export { isLoopbackAddress } from '../http-origin.js';
export type { RequestSourceOptions } from '../http-origin.js';
export type { FetchHandler, FetchHandlerOptions, NodeListenerOptions, NodeRequestListener } from '../node-listener.js';
export { toFetchRequest, writeFetchResponse } from '../node-http.js';
export type { FetchRequestOptions, NodeRequest } from '../node-http.js';

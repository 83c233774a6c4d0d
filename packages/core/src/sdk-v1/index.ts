/** The adapter for the v1 SDK line (`@modelcontextprotocol/sdk`, the 2025 era): the only entry of this package that imports it. */
export { extendServer } from './server.js';
export { extendClient } from './client.js';
export { createHttpHandler } from './http.js';
export type { HttpHandler, HttpHandlerOptions, HttpRequestOptions } from './http.js';
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

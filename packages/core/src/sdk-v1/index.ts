/** The adapter for the v1 SDK line (`@modelcontextprotocol/sdk`, the 2025 era): the only entry of this package that imports it. */
export { extendServer } from './server.js';
export { extendClient } from './client.js';
export { createHttpHandler } from './http.js';
export type { HttpHandler, HttpHandlerOptions, HttpRequestOptions } from './http.js';
export {
  DEFAULT_MAX_SESSIONS,
  DEFAULT_MAX_SESSIONS_PER_PRINCIPAL,
  DEFAULT_SESSION_IDLE_TIMEOUT_MS,
} from '../http/http-sessions.js';
export type { SessionLimits } from '../http/http-sessions.js';
export { listen } from '../http/listen.js';
export type { ListenOptions, Listening, ServableHandler } from '../http/listen.js';
export { nodeListener, refuseForeignRequest } from '../http/node-listener.js';
export { isLoopbackAddress } from '../http/http-origin.js';
export type { RequestSourceOptions } from '../http/http-origin.js';
export type {
  FetchHandler,
  FetchHandlerOptions,
  NodeListenerOptions,
  NodeRequestListener,
} from '../http/node-listener.js';
export { toFetchRequest, writeFetchResponse } from '../http/node-http.js';
export type { FetchRequestOptions, NodeRequest } from '../http/node-http.js';

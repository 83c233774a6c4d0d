/** The adapter for the v1 SDK line (`@modelcontextprotocol/sdk`, the 2025 era): the only entry of this package that imports it. */
export { extendServer } from './server.js';
export { extendClient } from './client.js';
export { createHttpHandler } from './http.js';
export type { HttpHandler, HttpHandlerOptions, HttpRequestOptions } from './http.js';
export { DEFAULT_MAX_SESSIONS, DEFAULT_SESSION_IDLE_TIMEOUT_MS } from '../http-sessions.js';
export type { SessionLimits } from '../http-sessions.js';

export { extendServer } from './server.js';
export { extendClient } from './client.js';
export { createHttpHandler } from './http.js';
export type { HttpHandler, HttpHandlerOptions, HttpRequestOptions } from './http.js';

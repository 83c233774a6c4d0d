export { extendServer } from './server.js';
export { extendClient } from './client.js';

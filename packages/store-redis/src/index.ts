/** `@ext/store-redis`: a `Store` on Redis, shared by every instance of a server. */
export { RedisStore, createRedisStore } from './redis-store.js';
export { DEFAULT_COMMAND_TIMEOUT_MS, DEFAULT_KEY_PREFIX } from './options.js';
export type { RedisStoreOptions } from './options.js';

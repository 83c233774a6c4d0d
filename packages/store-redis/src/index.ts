export { DEFAULT_COMMAND_TIMEOUT_MS, DEFAULT_KEY_PREFIX, RedisStore, createRedisStore } from './redis-store.js';
export type { RedisStoreOptions } from './redis-store.js';

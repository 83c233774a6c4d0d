export { DEFAULT_KEY_PREFIX, RedisStore, createRedisStore } from './redis-store.js';
export type { RedisStoreOptions } from './redis-store.js';

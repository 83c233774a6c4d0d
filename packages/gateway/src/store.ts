/** The store the config names: SQLite by default, Redis when instances share the load, memory for experiments. */
import { MemoryStore, type Logger, type Store } from '@ext/core';
import { createRedisStore } from '@ext/store-redis';
import { createSqliteStore } from '@ext/store-sqlite';
import type { GatewayConfig } from './config/schema.js';

/** Where the gateway keeps its state when the config names no store. */
export const DEFAULT_SQLITE_PATH = 'gateway.db';

/** Opens the store `store` names; its outages are reported to `logger`, the gateway's own. */
export async function openStore(store: GatewayConfig['store'], logger?: Logger): Promise<Store> {
  if (store === 'memory') return new MemoryStore();
  if (store !== undefined && 'redis' in store) {
    const { redis: url, commandTimeoutMs, keyPrefix } = store;
    return createRedisStore({ url, commandTimeoutMs, keyPrefix, logger });
  }
  return createSqliteStore({ path: store?.sqlite ?? DEFAULT_SQLITE_PATH, logger });
}

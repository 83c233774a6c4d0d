/**
 * The store the config names: SQLite (by default a file beside the config
 * file, which `loadConfig` names), Redis when instances share the load,
 * memory for experiments.
 */
import { MemoryStore, type Logger, type Store } from '@ext/core';
import { createRedisStore } from '@ext/store-redis';
import { createSqliteStore } from '@ext/store-sqlite';
import type { GatewayConfig } from './config/schema.js';

/**
 * Opens the store `store` names; its outages are reported to `logger`, the
 * gateway's own. A config built in code that names none has no file to keep
 * its state beside: it is kept in memory, and `logger` is told so, rather
 * than in a file of the working directory that another gateway started there
 * would share.
 */
export async function openStore(store: GatewayConfig['store'], logger?: Logger): Promise<Store> {
  if (store === undefined)
    logger?.warn(
      'gateway: the config names no store, so its state (confirmation tokens, quotas, idempotency records, pins) is kept in memory and lost when it stops; name store.sqlite to keep it',
    );
  if (store === undefined || store === 'memory') return new MemoryStore();
  if ('redis' in store) {
    const { redis: url, commandTimeoutMs, keyPrefix } = store;
    return createRedisStore({ url, commandTimeoutMs, keyPrefix, logger });
  }
  return createSqliteStore({ path: store.sqlite, logger });
}

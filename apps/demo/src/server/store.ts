/** Where the tracker keeps its tickets and the extensions' state: Redis, SQLite, or memory. */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { MemoryStore, type Store } from '@ext/core';
import { createSqliteStore } from '@ext/store-sqlite';
import { appFile } from './app-dir.js';

/**
 * The store the entry points use: Redis when `REDIS_URL` is set (many
 * instances share it), else SQLite in `TRACKER_DB` (default
 * `apps/demo/data/tracker.db`, created on first run; `:memory:` for a
 * throwaway one).
 */
export async function openStore(env: Readonly<Record<string, string | undefined>> = process.env): Promise<Store> {
  if (env.REDIS_URL !== undefined && env.REDIS_URL !== '') {
    const { createRedisStore } = await import('@ext/store-redis');
    return createRedisStore({ url: env.REDIS_URL, keyPrefix: 'tracker-demo:' });
  }
  const path = env.TRACKER_DB ?? appFile('data', 'tracker.db');
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  return createSqliteStore({ path });
}

/** A store for tests and throwaway runs. */
export function createStore(): Store {
  return new MemoryStore();
}

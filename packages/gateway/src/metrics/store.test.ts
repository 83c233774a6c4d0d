// The gateway's store with its failures counted: what it answers is unchanged, each failure is told by its reason.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryStore, StoreUnavailableError } from '@ext/core';
import { silentLogger } from '@ext/core/kit';
import { createSqliteStore } from '@ext/store-sqlite';
import { afterEach, describe, expect, it } from 'vitest';
import { observedStore } from './store.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function counting() {
  const reasons: string[] = [];
  return { reasons, recorder: { storeError: (reason: string) => reasons.push(reason) } };
}

describe('the observed store', () => {
  it('answers as the store does, streams and channels included, and counts nothing while it serves', async () => {
    const { reasons, recorder } = counting();
    const store = observedStore(new MemoryStore(), recorder);
    await store.set('k', { a: 1 });
    expect(await store.get('k')).toEqual({ a: 1 });
    expect(await store.setIfAbsent('k', 2)).toBe(false);
    expect(await store.compareAndSet('k', { a: 1 }, 3)).toBe(true);
    expect(await store.increment('n', 2)).toBe(2);
    const cursor = await store.append('s', 'first');
    expect(await store.read('s')).toEqual([{ id: cursor, value: 'first' }]);
    const heard: unknown[] = [];
    const stop = await store.subscribe('c', (message) => heard.push(message));
    await store.publish('c', 'hello');
    await stop();
    expect(heard).toEqual(['hello']);
    expect(await store.delete('k')).toBe(true);
    expect(reasons).toEqual([]);
  });

  it('counts each failed operation by the reason the store gives, and still throws its error', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'gateway-store-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const sqlite = createSqliteStore({ path: join(dir, 'state.db'), logger: silentLogger });
    cleanups.push(() => sqlite.close());
    const { reasons, recorder } = counting();
    const store = observedStore(sqlite, recorder);
    await store.set('before', 1);
    await rm(join(dir, 'state.db'));

    const failures = await Promise.allSettled([store.set('after', 1), store.increment('n')]);
    for (const failure of failures) {
      expect(failure.status).toBe('rejected');
      expect(StoreUnavailableError.isInstance((failure as PromiseRejectedResult).reason)).toBe(true);
    }
    expect(reasons).toEqual(['file_deleted', 'file_deleted']);
    expect((await store.health?.())?.ok).toBe(false);
  });
});

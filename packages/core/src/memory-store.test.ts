import { describe, expect, it } from 'vitest';
import { MemoryStore } from './memory-store.js';
import { runStoreContract } from './testing/store-contract.js';

runStoreContract('MemoryStore', () => Promise.resolve({ store: new MemoryStore() }));

describe('MemoryStore with an injected clock', () => {
  it('expires values, counters and streams exactly at their deadline', async () => {
    let now = 1_000;
    const store = new MemoryStore({ now: () => now });
    await store.set('k', 'v', { ttlMs: 100 });
    await store.increment('c', 1, { ttlMs: 100 });
    await store.append('s', 1, { ttlMs: 100 });
    now = 1_099;
    expect(await store.get('k')).toBe('v');
    expect(await store.get('c')).toBe(1);
    expect(await store.read('s')).toHaveLength(1);
    now = 1_100;
    expect(await store.get('k')).toBeUndefined();
    expect(await store.get('c')).toBeUndefined();
    expect(await store.read('s')).toEqual([]);
    await store.close();
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MemoryStore } from './memory-store.js';
import { runStoreContract } from '../testing/store-contract.js';

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

describe('MemoryStore sweeping', () => {
  it('drops expired values and streams nobody reads again, as later writes happen', async () => {
    let now = 0;
    const store = new MemoryStore({ now: () => now });
    for (let index = 0; index < 1_000; index++) await store.set(`once:${index}`, index, { ttlMs: 10 });
    for (let index = 0; index < 100; index++) await store.append(`stream:${index}`, index, { ttlMs: 10 });
    await store.set('kept', 'forever');
    await store.set('long', 'lived', { ttlMs: 1_000_000 });
    expect(store.size).toBe(1_102);
    now = 20;
    // Writes to other keys: each looks at a few entries, so the dead ones go.
    for (let index = 0; index < 1_000; index++) await store.increment('hits');
    for (let index = 0; index < 100; index++) await store.append('log', index, { maxLength: 10 });
    expect(store.size).toBe(4);
    expect(await store.get('kept')).toBe('forever');
    expect(await store.get('long')).toBe('lived');
    expect(await store.get('hits')).toBe(1_000);
  });

  it('never drops a live entry, however the writes interleave (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.nat(30), fc.option(fc.integer({ min: 1, max: 50 }), { nil: undefined }), fc.nat(20)), {
          maxLength: 200,
        }),
        async (writes) => {
          let now = 0;
          const store = new MemoryStore({ now: () => now });
          const expected = new Map<string, { value: number; expiresAt: number | undefined }>();
          for (const [key, ttl, advance] of writes) {
            now += advance;
            await store.set(`k${key}`, key, ttl === undefined ? undefined : { ttlMs: ttl });
            expected.set(`k${key}`, { value: key, expiresAt: ttl === undefined ? undefined : now + ttl });
          }
          for (const [key, entry] of expected) {
            const live = entry.expiresAt === undefined || entry.expiresAt > now;
            expect(await store.get(key)).toBe(live ? entry.value : undefined);
          }
        },
      ),
    );
  });
});

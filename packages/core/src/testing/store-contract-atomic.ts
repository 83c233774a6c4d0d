/** The store contract on atomic updates: `setIfAbsent`, `compareAndSet` and `increment`, alone and under concurrency. */
import { describe, expect, it } from 'vitest';
import { waitFor, type ContractRun } from './store-contract-support.js';

/** `setIfAbsent` stores only when the key is absent, with one winner among concurrent callers. */
export function setIfAbsentContract({ store, timeoutMs, slow }: ContractRun): void {
  describe('setIfAbsent', () => {
    it('stores only when absent', async () => {
      expect(await store.setIfAbsent('k', { owner: 1 })).toBe(true);
      expect(await store.setIfAbsent('k', { owner: 2 })).toBe(false);
      expect(await store.get('k')).toEqual({ owner: 1 });
    });

    it('applies ttlMs to what it stores', slow, async () => {
      expect(await store.setIfAbsent('k', 'claimed', { ttlMs: 100 })).toBe(true);
      await waitFor(async () => (await store.get('k')) === undefined, timeoutMs, 'the claim to expire');
    });

    it('has exactly one winner among 50 concurrent callers', async () => {
      const results = await Promise.all(Array.from({ length: 50 }, (_, index) => store.setIfAbsent('race', { index })));
      const winners = results.flatMap((won, index) => (won ? [index] : []));
      expect(winners).toHaveLength(1);
      expect(await store.get('race')).toEqual({ index: winners[0] });
    });
  });
}

/** `compareAndSet` compares canonically and lets read-modify-write loops lose no update. */
export function compareAndSetContract({ store }: ContractRun): void {
  describe('compareAndSet', () => {
    it('expected undefined means "absent"', async () => {
      expect(await store.compareAndSet('k', undefined, 'first')).toBe(true);
      expect(await store.compareAndSet('k', undefined, 'second')).toBe(false);
      expect(await store.get('k')).toBe('first');
    });

    it('compares canonically: equal objects with a different key order match', async () => {
      await store.set('k', { b: [1, { y: 2, x: 1 }], a: 'one' });
      expect(await store.compareAndSet('k', { a: 'one', b: [1, { x: 1, y: 2 }] }, { state: 'next' })).toBe(true);
      expect(await store.get('k')).toEqual({ state: 'next' });
    });

    it('a mismatch changes nothing', async () => {
      await store.set('k', { n: 1 });
      expect(await store.compareAndSet('k', { n: 2 }, { n: 3 })).toBe(false);
      expect(await store.compareAndSet('k', { n: 1, extra: true }, { n: 3 })).toBe(false);
      expect(await store.compareAndSet('k', '{"n":1}', { n: 3 })).toBe(false);
      expect(await store.compareAndSet('missing', null, 1)).toBe(false);
      expect(await store.get('k')).toEqual({ n: 1 });
      expect(await store.get('missing')).toBeUndefined();
    });

    it('distinguishes null from absent and 1 from "1"', async () => {
      await store.set('null', null);
      await store.set('one', 1);
      expect(await store.compareAndSet('null', undefined, 'x')).toBe(false);
      expect(await store.compareAndSet('null', null, 'x')).toBe(true);
      expect(await store.compareAndSet('one', '1', 'x')).toBe(false);
      expect(await store.compareAndSet('one', 1, 'x')).toBe(true);
    });
  });
}

/** compareAndSet with a TTL and under concurrent callers. */
export function compareAndSetRaceContract({ store, timeoutMs, slow }: ContractRun): void {
  describe('compareAndSet: TTL and concurrency', () => {
    it('applies ttlMs to the new value', slow, async () => {
      await store.set('k', 'v1');
      expect(await store.compareAndSet('k', 'v1', 'v2', { ttlMs: 100 })).toBe(true);
      await waitFor(async () => (await store.get('k')) === undefined, timeoutMs, 'the new value to expire');
    });

    it('has exactly one winner among 50 concurrent callers with the same expectation', async () => {
      await store.set('k', { version: 0 });
      const results = await Promise.all(
        Array.from({ length: 50 }, (_, index) => store.compareAndSet('k', { version: 0 }, { version: 1, by: index })),
      );
      const winners = results.flatMap((won, index) => (won ? [index] : []));
      expect(winners).toHaveLength(1);
      expect(await store.get('k')).toEqual({ version: 1, by: winners[0] });
    });

    it('supports lost-update-free read-modify-write loops under concurrency', async () => {
      await store.set('counter', { n: 0 });
      // Bounded, so a broken store fails the test instead of spinning forever.
      const worker = async (): Promise<void> => {
        for (let attempt = 0; attempt < 1000; attempt += 1) {
          const current = (await store.get('counter')) as { n: number };
          if (await store.compareAndSet('counter', current, { n: current.n + 1 })) return;
        }
        throw new Error('compareAndSet never succeeded in 1000 attempts');
      };
      await Promise.all(Array.from({ length: 20 }, worker));
      expect(await store.get('counter')).toEqual({ n: 20 });
    });
  });
}

/** `increment` keeps an integer counter atomically. */
export function incrementContract({ store, timeoutMs, slow }: ContractRun): void {
  describe('increment', () => {
    it('creates the counter at 0 and adds `by` (default 1)', async () => {
      expect(await store.increment('c')).toBe(1);
      expect(await store.increment('c', 5)).toBe(6);
      expect(await store.increment('c', -10)).toBe(-4);
      expect(await store.get('c')).toBe(-4);
      expect(await store.increment('fresh', 7)).toBe(7);
    });

    it('continues from a number written by set', async () => {
      await store.set('c', 41);
      expect(await store.increment('c')).toBe(42);
    });

    it('is atomic under 100 concurrent increments', async () => {
      const results = await Promise.all(Array.from({ length: 100 }, () => store.increment('c')));
      expect([...results].sort((a, b) => a - b)).toEqual(Array.from({ length: 100 }, (_, index) => index + 1));
      expect(await store.get('c')).toBe(100);
    });

    it('applies ttlMs when it creates the counter, and later increments do not extend it', slow, async () => {
      expect(await store.increment('c', 1, { ttlMs: 150 })).toBe(1);
      expect(await store.increment('c', 1, { ttlMs: 60_000 })).toBe(2);
      await waitFor(async () => (await store.get('c')) === undefined, timeoutMs, 'the counter to expire');
      expect(await store.increment('c')).toBe(1);
    });

    it('rejects a value that is not a number, leaving it unchanged', async () => {
      await store.set('text', 'abc');
      await store.set('object', { n: 1 });
      await store.set('numeric string', '5');
      await expect(store.increment('text')).rejects.toThrow();
      await expect(store.increment('object')).rejects.toThrow();
      await expect(store.increment('numeric string')).rejects.toThrow();
      expect(await store.get('text')).toBe('abc');
      expect(await store.get('object')).toEqual({ n: 1 });
      expect(await store.get('numeric string')).toBe('5');
    });

    it('rejects a `by` that is not a safe integer', async () => {
      await expect(store.increment('c', 1.5)).rejects.toThrow();
      await expect(store.increment('c', Number.NaN)).rejects.toThrow();
      expect(await store.get('c')).toBeUndefined();
    });
  });
}

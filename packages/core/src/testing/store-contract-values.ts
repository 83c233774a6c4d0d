/** The store contract on single values: get, set and delete of every kind of JSON value, and expiry. */
import { describe, expect, it } from 'vitest';
import { canonicalJson, type JsonValue } from '../kit/canonical.js';
import { modelContract } from './store-contract-model.js';
import { same, waitFor, type ContractRun } from './store-contract-support.js';

/** Every kind of JSON value a store must round-trip, with edge cases that naive encodings lose. */
const JSON_KINDS: readonly (readonly [string, JsonValue])[] = [
  ['null', null],
  ['true', true],
  ['false', false],
  ['zero', 0],
  ['negative fraction', -1.5],
  ['largest safe integer', Number.MAX_SAFE_INTEGER],
  ['tiny exponent', 1.5e-300],
  ['huge exponent', 1e300],
  ['empty string', ''],
  ['unicode string', 'héllo ✓ 𝄞 ключ'],
  ['string with control characters', 'line\nbreak\ttab\u0000nul "quoted" \\ back'],
  ['numeric-looking string', '42'],
  ['empty array', []],
  ['mixed array', [1, 'two', null, true, [3], { four: 4 }]],
  ['empty object', {}],
  ['nested object', { a: { b: { c: [1, { d: 'e' }] } }, 'key with spaces': null, ü: false }],
];

/** `get`, `set` and `delete`, checked case by case and against a model. */
export function getSetDeleteContract({ store }: ContractRun): void {
  describe('get / set / delete', () => {
    it('returns undefined for a key never set', async () => {
      expect(await store.get('missing')).toBeUndefined();
    });

    it.each(JSON_KINDS)('round-trips %s', async (_label, value) => {
      await store.set('kind', value);
      const read = await store.get('kind');
      expect(read).toEqual(value);
      expect(same(read, value)).toBe(true);
    });

    it('round-trips an own "__proto__" member', async () => {
      const value = JSON.parse('{"__proto__":{"polluted":true},"x":1}') as JsonValue;
      await store.set('proto', value);
      const read = await store.get('proto');
      expect(read === undefined ? undefined : canonicalJson(read)).toBe(canonicalJson(value));
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    });

    it('keeps keys apart, whatever characters they hold', async () => {
      const keys = ['a', 'A', 'a:b', 'a:b:c', 'with space', 'ключ', '𝄞', 'a*', 'a?', '[a]'];
      for (const [index, key] of keys.entries()) await store.set(key, index);
      for (const [index, key] of keys.entries()) expect(await store.get(key)).toBe(index);
    });

    it('overwrites on set', async () => {
      await store.set('k', { v: 1 });
      await store.set('k', 'second');
      expect(await store.get('k')).toBe('second');
    });
  });
}

/** delete, copies in and out, and refused TTLs. */
export function deleteAndCopiesContract({ store, propertyRuns }: ContractRun): void {
  describe('get / set / delete: removal, copies and bad TTLs', () => {
    it('delete reports whether something was removed', async () => {
      await store.set('k', 1);
      expect(await store.delete('k')).toBe(true);
      expect(await store.get('k')).toBeUndefined();
      expect(await store.delete('k')).toBe(false);
      expect(await store.delete('never')).toBe(false);
    });

    it('returns copies: mutating an argument or a result never changes the store', async () => {
      const original = { list: [1, 2], nested: { flag: true } };
      await store.set('k', original);
      original.list.push(3);
      original.nested.flag = false;
      const first = (await store.get('k')) as { list: number[]; nested: { flag: boolean } };
      expect(first).toEqual({ list: [1, 2], nested: { flag: true } });
      first.list.push(99);
      first.nested.flag = false;
      expect(await store.get('k')).toEqual({ list: [1, 2], nested: { flag: true } });
    });

    it('rejects a non-positive or non-finite ttlMs', async () => {
      await expect(store.set('k', 1, { ttlMs: 0 })).rejects.toThrow();
      await expect(store.set('k', 1, { ttlMs: -5 })).rejects.toThrow();
      await expect(store.set('k', 1, { ttlMs: Number.NaN })).rejects.toThrow();
      await expect(store.setIfAbsent('k', 1, { ttlMs: 0 })).rejects.toThrow();
      await expect(store.compareAndSet('k', undefined, 1, { ttlMs: -1 })).rejects.toThrow();
      await expect(store.increment('k', 1, { ttlMs: 0 })).rejects.toThrow();
      expect(await store.get('k')).toBeUndefined();
    });

    modelContract(store, propertyRuns);
  });
}

/** Values expire after their `ttlMs`, and an expired key counts as absent everywhere. */
export function ttlContract({ store, timeoutMs, slow }: ContractRun): void {
  describe('TTL', () => {
    it('a value disappears after its ttlMs, and a long TTL keeps it', slow, async () => {
      await store.set('short', 'soon gone', { ttlMs: 100 });
      await store.set('long', 'stays', { ttlMs: 60_000 });
      await waitFor(async () => (await store.get('short')) === undefined, timeoutMs, 'the short TTL to expire');
      expect(await store.get('long')).toBe('stays');
    });

    it('set without ttlMs removes an earlier TTL', slow, async () => {
      await store.set('k', 1, { ttlMs: 100 });
      await store.set('k', 2);
      await store.set('probe', 0, { ttlMs: 100 });
      await waitFor(async () => (await store.get('probe')) === undefined, timeoutMs, 'the probe to expire');
      expect(await store.get('k')).toBe(2);
    });

    it('an expired key counts as absent for setIfAbsent, compareAndSet and delete', slow, async () => {
      await store.set('a', 'old', { ttlMs: 80 });
      await store.set('b', 'old', { ttlMs: 80 });
      await store.set('c', 'old', { ttlMs: 80 });
      await waitFor(async () => (await store.get('c')) === undefined, timeoutMs, 'the keys to expire');
      expect(await store.setIfAbsent('a', 'new')).toBe(true);
      expect(await store.compareAndSet('b', 'old', 'new')).toBe(false);
      expect(await store.compareAndSet('b', undefined, 'new')).toBe(true);
      expect(await store.delete('c')).toBe(false);
      expect(await store.get('a')).toBe('new');
      expect(await store.get('b')).toBe('new');
    });
  });
}

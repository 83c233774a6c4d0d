import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { canonicalJson, type JsonValue } from '../canonical.js';
import type { Store } from '../store.js';

/** What a contract factory returns: a fresh, empty store and how to dispose of what it left behind. */
export interface StoreContractHandle {
  readonly store: Store;
  /** Runs after the store is closed (drop files, delete keys). */
  readonly cleanup?: (() => Promise<void>) | undefined;
}

export interface StoreContractOptions {
  /** How long a condition that takes real time (expiry, delivery) may take. Default 3000 ms. */
  readonly timeoutMs?: number | undefined;
  /** Runs of each property-based test. Default 40. */
  readonly propertyRuns?: number | undefined;
}

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

/** Polls `check` until it holds; no fixed sleeps, so slow machines only take longer. */
async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

function same(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return canonicalJson(a) === canonicalJson(b);
}

type ModelOp =
  | { readonly kind: 'get'; readonly key: string }
  | { readonly kind: 'delete'; readonly key: string }
  | { readonly kind: 'set'; readonly key: string; readonly value: JsonValue }
  | { readonly kind: 'setIfAbsent'; readonly key: string; readonly value: JsonValue }
  | {
      readonly kind: 'compareAndSet';
      readonly key: string;
      /** `current` uses the model's value as `expected`, so both outcomes are exercised. */
      readonly expected:
        { readonly current: true } | { readonly current: false; readonly value: JsonValue | undefined };
      readonly value: JsonValue;
    };

function modelOps(): fc.Arbitrary<ModelOp[]> {
  const key = fc.constantFrom('a', 'b', 'c');
  const value = fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<JsonValue>;
  const op: fc.Arbitrary<ModelOp> = fc.oneof(
    fc.record({ kind: fc.constant('get' as const), key }),
    fc.record({ kind: fc.constant('delete' as const), key }),
    fc.record({ kind: fc.constant('set' as const), key, value }),
    fc.record({ kind: fc.constant('setIfAbsent' as const), key, value }),
    fc.record({
      kind: fc.constant('compareAndSet' as const),
      key,
      expected: fc.oneof(
        fc.constant({ current: true as const }),
        fc.record({ current: fc.constant(false as const), value: fc.option(value, { nil: undefined }) }),
      ),
      value,
    }),
  );
  return fc.array(op, { maxLength: 30 });
}

/**
 * The behaviour every `Store` must have (docs/ARCHITECTURE.md, 'State and the Store'), as a vitest suite.
 * Call it at the top level of a test file; `factory` is called before each
 * test and must return an empty store (or one whose keys cannot collide with
 * earlier tests, e.g. under a fresh prefix).
 *
 * ```ts
 * runStoreContract('MemoryStore', async () => ({ store: new MemoryStore() }));
 * ```
 */
export function runStoreContract(
  name: string,
  factory: () => Promise<StoreContractHandle>,
  options: StoreContractOptions = {},
): void {
  const timeoutMs = options.timeoutMs ?? 3000;
  const propertyRuns = options.propertyRuns ?? 40;
  // Tests that wait on real time get room for the wait plus the store's own latency.
  const slow = { timeout: timeoutMs * 2 + 5000 };

  describe(`Store contract: ${name}`, () => {
    let handle: StoreContractHandle | undefined;
    let store: Store;

    beforeEach(async () => {
      handle = await factory();
      store = handle.store;
    });

    afterEach(async () => {
      const current = handle;
      handle = undefined;
      if (!current) return;
      await current.store.close();
      await current.cleanup?.();
    });

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

      it(
        'agrees with a Map model over random get / set / delete / setIfAbsent / compareAndSet sequences',
        { timeout: 60_000 },
        async () => {
          let run = 0;
          await fc.assert(
            fc.asyncProperty(modelOps(), async (ops) => {
              run += 1;
              // A fresh namespace per run keeps runs independent on the one store of this test.
              const prefix = `model:${run}:`;
              const model = new Map<string, JsonValue>();
              for (const op of ops) {
                const key = prefix + op.key;
                const current = model.get(op.key);
                switch (op.kind) {
                  case 'get':
                    expect(same(await store.get(key), current)).toBe(true);
                    break;
                  case 'delete':
                    expect(await store.delete(key)).toBe(current !== undefined);
                    model.delete(op.key);
                    break;
                  case 'set':
                    await store.set(key, op.value);
                    model.set(op.key, op.value);
                    break;
                  case 'setIfAbsent': {
                    const stored = await store.setIfAbsent(key, op.value);
                    expect(stored).toBe(current === undefined);
                    if (stored) model.set(op.key, op.value);
                    break;
                  }
                  case 'compareAndSet': {
                    const expected = op.expected.current ? current : op.expected.value;
                    const replaced = await store.compareAndSet(key, expected, op.value);
                    expect(replaced).toBe(same(expected, current));
                    if (replaced) model.set(op.key, op.value);
                    break;
                  }
                }
              }
              for (const key of ['a', 'b', 'c']) expect(same(await store.get(prefix + key), model.get(key))).toBe(true);
            }),
            { numRuns: propertyRuns },
          );
        },
      );
    });

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
        const results = await Promise.all(
          Array.from({ length: 50 }, (_, index) => store.setIfAbsent('race', { index })),
        );
        const winners = results.flatMap((won, index) => (won ? [index] : []));
        expect(winners).toHaveLength(1);
        expect(await store.get('race')).toEqual({ index: winners[0] });
      });
    });

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

    describe('streams', () => {
      it('reads an unknown stream as empty', async () => {
        expect(await store.read('nothing')).toEqual([]);
      });

      it('reads entries back in append order with the cursors append returned', async () => {
        const values: JsonValue[] = [{ n: 1 }, 'two', 3, null, [4]];
        const ids: string[] = [];
        for (const value of values) ids.push(await store.append('s', value));
        expect(new Set(ids).size).toBe(values.length);
        const entries = await store.read('s');
        expect(entries.map((entry) => entry.id)).toEqual(ids);
        expect(entries.map((entry) => entry.value)).toEqual(values);
      });

      it('`after` returns only entries strictly after the cursor', async () => {
        const ids: string[] = [];
        for (let index = 0; index < 6; index += 1) ids.push(await store.append('s', index));
        expect((await store.read('s', { after: ids[2] })).map((entry) => entry.value)).toEqual([3, 4, 5]);
        expect(await store.read('s', { after: ids[5] })).toEqual([]);
      });

      it('`limit` caps a page, and paging by cursor visits every entry once', async () => {
        for (let index = 0; index < 7; index += 1) await store.append('s', index);
        const seen: JsonValue[] = [];
        let after: string | undefined;
        // Bounded, so a store whose cursor does not advance fails instead of looping.
        for (let pages = 0; pages < 10; pages += 1) {
          const page = await store.read('s', { after, limit: 3 });
          if (page.length === 0) break;
          expect(page.length).toBeLessThanOrEqual(3);
          seen.push(...page.map((entry) => entry.value));
          after = page.at(-1)!.id;
        }
        expect(seen).toEqual([0, 1, 2, 3, 4, 5, 6]);
      });

      it('returns at most 100 entries by default', async () => {
        await Promise.all(Array.from({ length: 120 }, (_, index) => store.append('s', index)));
        expect(await store.read('s')).toHaveLength(100);
      });

      it('`maxLength` trims the oldest entries, and older cursors still page', async () => {
        const ids: string[] = [];
        for (let index = 0; index < 10; index += 1) ids.push(await store.append('s', index, { maxLength: 3 }));
        expect((await store.read('s')).map((entry) => entry.value)).toEqual([7, 8, 9]);
        expect((await store.read('s', { after: ids[1] })).map((entry) => entry.value)).toEqual([7, 8, 9]);
        expect((await store.read('s', { after: ids[7] })).map((entry) => entry.value)).toEqual([8, 9]);
      });

      it('keeps streams apart', async () => {
        await store.append('one', 'a');
        await store.append('two', 'b');
        expect((await store.read('one')).map((entry) => entry.value)).toEqual(['a']);
        expect((await store.read('two')).map((entry) => entry.value)).toEqual(['b']);
      });

      it('gives 50 concurrent appends distinct cursors, read back in cursor order', async () => {
        const ids = await Promise.all(Array.from({ length: 50 }, (_, index) => store.append('s', index)));
        expect(new Set(ids).size).toBe(50);
        const entries = await store.read('s');
        expect(new Set(entries.map((entry) => entry.id))).toEqual(new Set(ids));
        for (const [position, entry] of entries.entries()) {
          const rest = await store.read('s', { after: entry.id });
          expect(rest.map((later) => later.id)).toEqual(entries.slice(position + 1).map((later) => later.id));
        }
      });

      it('returns copies of entries', async () => {
        const value = { list: [1] };
        await store.append('s', value);
        value.list.push(2);
        const [entry] = await store.read('s');
        (entry!.value as { list: number[] }).list.push(3);
        expect((await store.read('s'))[0]!.value).toEqual({ list: [1] });
      });

      it('expires the whole stream ttlMs after the last append', slow, async () => {
        await store.append('s', 1, { ttlMs: 100 });
        await store.append('kept', 1);
        await waitFor(async () => (await store.read('s')).length === 0, timeoutMs, 'the stream to expire');
        expect(await store.read('kept')).toHaveLength(1);
        // An expired stream starts afresh.
        await store.append('s', 2);
        expect((await store.read('s')).map((entry) => entry.value)).toEqual([2]);
      });

      it('delete removes a stream', async () => {
        await store.append('s', 1);
        expect(await store.delete('s')).toBe(true);
        expect(await store.read('s')).toEqual([]);
      });
    });

    describe('publish / subscribe', () => {
      it('delivers to every subscriber of the channel, in publish order, and to no other channel', slow, async () => {
        const first: JsonValue[] = [];
        const second: JsonValue[] = [];
        const other: JsonValue[] = [];
        await store.subscribe('news', (message) => first.push(message));
        await store.subscribe('news', (message) => second.push(message));
        await store.subscribe('other', (message) => other.push(message));
        const sent: JsonValue[] = [{ n: 1 }, 'two', 3, null, [true]];
        for (const message of sent) await store.publish('news', message);
        await waitFor(() => first.length === sent.length && second.length === sent.length, timeoutMs, 'delivery');
        expect(first).toEqual(sent);
        expect(second).toEqual(sent);
        expect(other).toEqual([]);
      });

      it('publishing with no subscriber is fine', async () => {
        await expect(store.publish('empty', 'nobody listens')).resolves.toBeUndefined();
      });

      it('stops delivering after unsubscribe', slow, async () => {
        const dropped: JsonValue[] = [];
        const kept: JsonValue[] = [];
        const unsubscribe = await store.subscribe('c', (message) => dropped.push(message));
        await store.subscribe('c', (message) => kept.push(message));
        await store.publish('c', 'before');
        await waitFor(() => dropped.length === 1 && kept.length === 1, timeoutMs, 'the first message');
        await unsubscribe();
        await unsubscribe();
        await store.publish('c', 'after');
        // The subscriber still listening sees "after"; anything the dropped one would get arrives no later.
        await waitFor(() => kept.length === 2, timeoutMs, 'the second message');
        await store.publish('c', 'flush');
        await waitFor(() => kept.length === 3, timeoutMs, 'the third message');
        expect(dropped).toEqual(['before']);
        expect(kept).toEqual(['before', 'after', 'flush']);
      });

      it('gives each subscriber its own copy of a message', slow, async () => {
        const received: JsonValue[] = [];
        await store.subscribe('c', (message) => {
          (message as { list: number[] }).list.push(99);
          received.push(message);
        });
        await store.subscribe('c', (message) => received.push(message));
        const message = { list: [1] };
        await store.publish('c', message);
        message.list.push(2);
        await waitFor(() => received.length === 2, timeoutMs, 'delivery');
        expect(received).toContainEqual({ list: [1] });
        expect(received).toContainEqual({ list: [1, 99] });
      });
    });

    describe('close', () => {
      it('is idempotent, and operations after it reject', async () => {
        await store.set('k', 1);
        await store.close();
        await store.close();
        await expect(store.get('k')).rejects.toThrow();
        await expect(store.set('k', 2)).rejects.toThrow();
      });
    });
  });
}

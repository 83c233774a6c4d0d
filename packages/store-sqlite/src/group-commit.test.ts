/**
 * Group commit (SQLITE-17): the queue on its own, with a recording commit,
 * then `SqliteStore` on a real file: writes issued in one turn share a
 * transaction, a failing write is rolled back alone, reads see every write
 * issued before them, and random interleavings of un-awaited operations
 * answer exactly as the in-memory store does.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MemoryStore, StoreUnavailableError, type Store } from '@ext/core';
import { type JsonValue } from '@ext/core/kit';
import { GroupCommit, MAX_GROUP, type Outcome } from './group-commit.js';
import { createSqliteStore, type SqliteStore } from './index.js';

/** A commit that runs each work, records the size of each group, and fails whole groups on demand. */
function recordingCommit(failGroup = false): {
  groups: number[];
  commit: (works: readonly (() => unknown)[]) => Outcome[];
} {
  const groups: number[] = [];
  return {
    groups,
    commit: (works) => {
      groups.push(works.length);
      if (failGroup) throw new Error('the group failed');
      return works.map((work) => {
        try {
          return { ok: true, value: work() };
        } catch (error) {
          return { ok: false, error };
        }
      });
    },
  };
}

describe('GroupCommit [SQLITE-17]', () => {
  it('commits the writes of one turn together, at the end of the turn, and a later turn apart', async () => {
    const { groups, commit } = recordingCommit();
    const queue = new GroupCommit(commit);
    const first = [queue.enqueue(() => 1), queue.enqueue(() => 2), queue.enqueue(() => 3)];
    expect(groups).toEqual([]);
    expect(await Promise.all(first)).toEqual([1, 2, 3]);
    expect(await queue.enqueue(() => 4)).toBe(4);
    expect(groups).toEqual([3, 1]);
  });

  it('settles each write with its own outcome: one that throws rejects alone', async () => {
    const queue = new GroupCommit(recordingCommit().commit);
    const results = await Promise.allSettled([
      queue.enqueue(() => 'a'),
      queue.enqueue(() => {
        throw new TypeError('bad');
      }),
      queue.enqueue(() => 'c'),
    ]);
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(results[1]).toMatchObject({ reason: new TypeError('bad') });
  });

  it('rejects every write of a group that failed as a whole', async () => {
    const queue = new GroupCommit(recordingCommit(true).commit);
    const results = await Promise.allSettled([queue.enqueue(() => 1), queue.enqueue(() => 2)]);
    expect(results).toEqual([
      { status: 'rejected', reason: new Error('the group failed') },
      { status: 'rejected', reason: new Error('the group failed') },
    ]);
  });

  it('commits even while a test fakes the timers', async () => {
    vi.useFakeTimers();
    try {
      const queue = new GroupCommit(recordingCommit().commit);
      expect(await queue.enqueue(() => 'written')).toBe('written');
    } finally {
      vi.useRealTimers();
    }
  });

  it('flush() commits what is queued now, and a longer queue as several groups in order', async () => {
    const { groups, commit } = recordingCommit();
    const queue = new GroupCommit(commit);
    const order: number[] = [];
    const writes = Array.from({ length: MAX_GROUP + 10 }, (_, index) => queue.enqueue(() => order.push(index)));
    queue.flush();
    expect(groups).toEqual([MAX_GROUP, 10]);
    expect(order).toEqual(Array.from({ length: MAX_GROUP + 10 }, (_, index) => index));
    await Promise.all(writes);
    expect(groups).toEqual([MAX_GROUP, 10]);
  });
});

describe('SqliteStore group commit [SQLITE-17]', () => {
  let dir: string;
  let path: string;
  const open: SqliteStore[] = [];

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'store-sqlite-group-'));
    path = join(dir, 'state.db');
  });

  afterEach(async () => {
    for (const store of open.splice(0)) await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  function openStore(maxSizeBytes?: number): SqliteStore {
    const store = createSqliteStore({ path, sweepIntervalMs: 0, logger: { warn: () => undefined }, maxSizeBytes });
    open.push(store);
    return store;
  }

  it('a write that fails in a group is rolled back alone; the others land', async () => {
    const store = openStore();
    await store.set('text', 'not a number');
    const results = await Promise.allSettled([
      store.set('a', 1),
      store.increment('text'),
      store.increment('n', 5),
      store.set('b', { ttl: true }, { ttlMs: -1 }),
    ]);
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'rejected']);
    expect(results[1]).toMatchObject({ reason: expect.any(TypeError) as unknown });
    expect(results[3]).toMatchObject({ reason: expect.any(RangeError) as unknown });
    expect([await store.get('a'), await store.get('text'), await store.get('n'), await store.get('b')]).toEqual([
      1,
      'not a number',
      5,
      undefined,
    ]);
  });

  it('a read sees every write issued before it, awaited or not', async () => {
    const store = openStore();
    const written = store.set('k', 'v');
    const counted = store.increment('n');
    expect(await store.get('k')).toBe('v');
    expect(await store.get('n')).toBe(1);
    await Promise.all([written, counted]);
  });

  it('close() commits the writes still queued: they are there after a restart', async () => {
    const store = openStore();
    const writes = [store.set('queued', true), store.increment('count', 3)];
    await store.close();
    await Promise.all(writes);
    const reopened = openStore();
    expect([await reopened.get('queued'), await reopened.get('count')]).toEqual([true, 3]);
    await expect(store.set('late', 1)).rejects.toThrow(/closed/);
  });

  it('a group that fills the file: every write is either acknowledged and kept, or refused as full', async () => {
    const store = openStore(64 * 1024);
    const keys = Array.from({ length: 120 }, (_, index) => `big-${String(index)}`);
    const results = await Promise.allSettled(keys.map((key) => store.set(key, 'x'.repeat(1500))));
    const refused = results.filter((result) => result.status === 'rejected');
    expect(refused.length).toBeGreaterThan(0);
    for (const result of refused)
      expect(StoreUnavailableError.isInstance(result.reason) && result.reason.reason === 'full').toBe(true);
    await store.close();
    const reopened = openStore();
    for (const [index, key] of keys.entries())
      expect({ key, kept: (await reopened.get(key)) !== undefined }).toEqual({
        key,
        kept: results[index]?.status === 'fulfilled',
      });
  });
});

/** One store operation, as data: issued without waiting for the ones before it. */
type Operation =
  | { readonly kind: 'set'; readonly key: string; readonly value: JsonValue }
  | { readonly kind: 'setIfAbsent'; readonly key: string; readonly value: JsonValue }
  | { readonly kind: 'compareAndSet'; readonly key: string; readonly expected: JsonValue; readonly value: JsonValue }
  | { readonly kind: 'increment'; readonly key: string; readonly by: number }
  | { readonly kind: 'delete'; readonly key: string }
  | { readonly kind: 'get'; readonly key: string }
  | { readonly kind: 'await' };

const keyArb = fc.constantFrom('a', 'b', 'c');
const valueArb: fc.Arbitrary<JsonValue> = fc.oneof(fc.integer({ min: -3, max: 3 }), fc.constantFrom('x', 'y'));
const operationArb: fc.Arbitrary<Operation> = fc.oneof(
  fc.record({ kind: fc.constant('set' as const), key: keyArb, value: valueArb }),
  fc.record({ kind: fc.constant('setIfAbsent' as const), key: keyArb, value: valueArb }),
  fc.record({ kind: fc.constant('compareAndSet' as const), key: keyArb, expected: valueArb, value: valueArb }),
  fc.record({ kind: fc.constant('increment' as const), key: keyArb, by: fc.integer({ min: -2, max: 2 }) }),
  fc.record({ kind: fc.constant('delete' as const), key: keyArb }),
  fc.record({ kind: fc.constant('get' as const), key: keyArb }),
  fc.constant({ kind: 'await' as const }),
);

function issue(store: Store, operation: Exclude<Operation, { kind: 'await' }>): Promise<unknown> {
  switch (operation.kind) {
    case 'set':
      return store.set(operation.key, operation.value);
    case 'setIfAbsent':
      return store.setIfAbsent(operation.key, operation.value);
    case 'compareAndSet':
      return store.compareAndSet(operation.key, operation.expected, operation.value);
    case 'increment':
      return store.increment(operation.key, operation.by);
    case 'delete':
      return store.delete(operation.key);
    case 'get':
      return store.get(operation.key);
  }
}

/** Issues `operations` without awaiting (but at each `await`); each one's outcome, an error by its class name. */
async function outcomes(store: Store, operations: readonly Operation[]): Promise<unknown[]> {
  const issued: Promise<unknown>[] = [];
  for (const operation of operations) {
    if (operation.kind === 'await') await Promise.allSettled(issued);
    else issued.push(issue(store, operation));
  }
  const settled = await Promise.allSettled(issued);
  return settled.map((result) =>
    result.status === 'fulfilled' ? result.value : (result.reason as Error).constructor.name,
  );
}

describe('SqliteStore group commit, model-based [SQLITE-17]', () => {
  it('any interleaving of un-awaited operations answers exactly as the in-memory store does', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'store-sqlite-model-'));
    let run = 0;
    try {
      await fc.assert(
        fc.asyncProperty(fc.array(operationArb, { maxLength: 40 }), async (operations) => {
          run += 1;
          const sqlite = createSqliteStore({ path: join(dir, `model-${String(run)}.db`), sweepIntervalMs: 0 });
          const memory = new MemoryStore();
          try {
            expect(await outcomes(sqlite, operations)).toEqual(await outcomes(memory, operations));
            for (const key of ['a', 'b', 'c']) expect(await sqlite.get(key)).toEqual(await memory.get(key));
          } finally {
            await sqlite.close();
            await memory.close();
          }
        }),
        { numRuns: 60 },
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

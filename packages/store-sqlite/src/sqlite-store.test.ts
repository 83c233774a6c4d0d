import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runStoreContract } from '@ext/core/testing';
import type { JsonValue } from '@ext/core/kit';
import { openDatabase } from './driver.js';
import { SCHEMA_VERSION, createSqliteStore, type SqliteStore } from './index.js';
import { childModule, removeChildModule, runNode } from './test-support/child-store.js';

async function tempDir(): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'store-sqlite-'));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

runStoreContract('SqliteStore (file) [SQLITE-8, SQLITE-10, SQLITE-11]', async () => {
  const { dir, cleanup } = await tempDir();
  return { store: createSqliteStore({ path: join(dir, 'state.db') }), cleanup };
});

runStoreContract('SqliteStore (file, pubsub: poll) [SQLITE-3, SQLITE-8]', async () => {
  const { dir, cleanup } = await tempDir();
  return { store: createSqliteStore({ path: join(dir, 'state.db'), pubsub: 'poll', pollIntervalMs: 10 }), cleanup };
});

runStoreContract('SqliteStore (:memory:) [SQLITE-8]', () =>
  Promise.resolve({ store: createSqliteStore({ path: ':memory:' }) }),
);

afterAll(async () => {
  await removeChildModule();
});

// argv: module URL, database path, mode. Prints one JSON line.
const CHILD = `
const [moduleUrl, path, mode] = process.argv.slice(1);
const { createSqliteStore } = await import(moduleUrl);
const store = createSqliteStore({ path, pubsub: 'poll', sweepIntervalMs: 0 });
let out = null;
if (mode === 'read') {
  out = { value: await store.get('shared'), entries: await store.read('log') };
  await store.set('from-child', { pid: process.pid });
} else if (mode === 'publish') {
  await store.publish('events', { from: 'child' });
} else if (mode === 'race') {
  let claims = 0;
  for (let i = 0; i < 200; i += 1) {
    await store.increment('hits');
    if (await store.setIfAbsent('claim:' + (i % 50), 'child')) claims += 1;
    for (;;) {
      const current = await store.get('doc');
      if (await store.compareAndSet('doc', current, { n: current.n + 1 })) break;
    }
  }
  out = { claims };
}
await store.close();
process.stdout.write(JSON.stringify(out));
`;

describe('SqliteStore durability', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  const open: SqliteStore[] = [];

  beforeEach(async () => {
    ({ dir, cleanup } = await tempDir());
  });

  afterEach(async () => {
    for (const store of open.splice(0)) await store.close();
    await cleanup();
  });

  function openStore(options: Partial<Parameters<typeof createSqliteStore>[0]> = {}): SqliteStore {
    const store = createSqliteStore({ path: join(dir, 'state.db'), ...options });
    open.push(store);
    return store;
  }

  it('SQLITE-1: data survives closing and reopening the same file (a restart)', async () => {
    const before = openStore();
    await before.set('k', { kept: true });
    await before.set('ttl', 'long', { ttlMs: 60_000 });
    await before.increment('counter', 41);
    const ids = [await before.append('log', 'one'), await before.append('log', 'two')];
    await before.close();

    const after = openStore();
    expect(await after.get('k')).toEqual({ kept: true });
    expect(await after.get('ttl')).toBe('long');
    expect(await after.increment('counter')).toBe(42);
    const entries = await after.read('log');
    expect(entries.map((entry) => entry.id)).toEqual(ids);
    // Cursors keep increasing across a restart, so a reader's saved cursor stays valid.
    const third = await after.append('log', 'three');
    expect((await after.read('log', { after: ids[1] })).map((entry) => entry.id)).toEqual([third]);
    expect(Number(third)).toBeGreaterThan(Number(ids[1]));
  });

  it('SQLITE-2: a second process running SqliteStore sees the same data, and this process sees its writes', async () => {
    const store = openStore();
    await store.set('shared', { from: 'parent', list: [1, 2] });
    const cursor = await store.append('log', 'entry');
    const read = await runNode(CHILD, [await childModule(), join(dir, 'state.db'), 'read']);
    expect(read.stderr).toBe('');
    expect(read.code).toBe(0);
    expect(JSON.parse(read.stdout)).toEqual({
      value: { from: 'parent', list: [1, 2] },
      entries: [{ id: cursor, value: 'entry' }],
    });
    expect(await store.get('from-child')).toEqual({ pid: expect.any(Number) as number });
  });

  it(
    'SQLITE-9: setIfAbsent, increment and compareAndSet stay atomic with a second process writing the same keys',
    { timeout: 60_000 },
    async () => {
      const store = openStore();
      await store.set('doc', { n: 0 });
      const progress = { childDone: false };
      const child = runNode(CHILD, [await childModule(), join(dir, 'state.db'), 'race']).finally(() => {
        progress.childDone = true;
      });
      let claims = 0;
      let rounds = 0;
      // Keep writing for as long as the child runs, so the two really overlap.
      for (let i = 0; i < 200 || !progress.childDone; i += 1) {
        rounds += 1;
        await store.increment('hits');
        if (await store.setIfAbsent(`claim:${i % 50}`, 'parent')) claims += 1;
        for (;;) {
          const current = (await store.get('doc')) as { n: number };
          if (await store.compareAndSet('doc', current, { n: current.n + 1 })) break;
        }
        // Yield to I/O so the child's transactions interleave with ours.
        await new Promise((resolve) => setImmediate(resolve));
      }
      const result = await child;
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      const { claims: childClaims } = JSON.parse(result.stdout) as { claims: number };
      expect(await store.get('hits')).toBe(rounds + 200);
      expect(claims + childClaims).toBe(50);
      expect(await store.get('doc')).toEqual({ n: rounds + 200 });
    },
  );

  it('SQLITE-3: with pubsub "poll", a message published by another process reaches a subscriber', async () => {
    const store = openStore({ pubsub: 'poll', pollIntervalMs: 10 });
    const received: JsonValue[] = [];
    await store.subscribe('events', (message) => received.push(message));
    const publish = await runNode(CHILD, [await childModule(), join(dir, 'state.db'), 'publish']);
    expect(publish.stderr).toBe('');
    expect(publish.code).toBe(0);
    await expect.poll(() => received, { timeout: 5000 }).toEqual([{ from: 'child' }]);
  });

  it('SQLITE-3: two stores on one file exchange messages with pubsub "poll", not with "process"', async () => {
    const a = openStore({ pubsub: 'poll', pollIntervalMs: 10 });
    const b = openStore({ pubsub: 'poll', pollIntervalMs: 10 });
    const local = openStore();
    const viaPoll: JsonValue[] = [];
    const viaProcess: JsonValue[] = [];
    await b.subscribe('c', (message) => viaPoll.push(message));
    await local.subscribe('c', (message) => viaProcess.push(message));
    await a.publish('c', 'hello');
    await expect.poll(() => viaPoll, { timeout: 5000 }).toEqual(['hello']);
    expect(viaProcess).toEqual([]);
  });

  it('SQLITE-4, SQLITE-10: uses WAL mode, records its schema version and stores canonical JSON', async () => {
    const store = openStore();
    await store.set('k', { b: [2, { d: 1, c: 0 }], a: 'x' });
    await store.close();
    const db = openDatabase(join(dir, 'state.db'));
    try {
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(db.prepare('SELECT version FROM store_schema').all()).toEqual([{ version: SCHEMA_VERSION }]);
      expect(db.prepare('SELECT value FROM store_kv WHERE key = ?').get('k')).toEqual({
        value: '{"a":"x","b":[2,{"c":0,"d":1}]}',
      });
    } finally {
      db.close();
    }
  });

  it('SQLITE-5: refuses a file written by a newer schema version', () => {
    const db = openDatabase(join(dir, 'state.db'));
    db.exec('CREATE TABLE store_schema (version INTEGER NOT NULL)');
    db.prepare('INSERT INTO store_schema (version) VALUES (?)').run(SCHEMA_VERSION + 1);
    db.close();
    expect(() => openStore()).toThrow(/newer than this package supports/);
  });

  it('SQLITE-6: the sweep deletes expired rows that were never read again', async () => {
    let now = 1_000_000;
    const store = openStore({ now: () => now, sweepIntervalMs: 0 });
    await store.set('gone', 1, { ttlMs: 100 });
    await store.set('kept', 1);
    await store.append('stream', 1, { ttlMs: 100 });
    await store.append('stream', 2, { ttlMs: 100 });
    now += 100;
    expect(store.sweep()).toBe(4);
    expect(store.sweep()).toBe(0);
    expect(await store.get('kept')).toBe(1);
    const db = openDatabase(join(dir, 'state.db'));
    try {
      expect(db.prepare('SELECT key FROM store_kv').all()).toEqual([{ key: 'kept' }]);
      expect(db.prepare('SELECT COUNT(*) AS n FROM store_stream_entries').get()).toEqual({ n: 0 });
    } finally {
      db.close();
    }
  });

  it('SQLITE-7: rejects a cursor it did not issue', async () => {
    const store = openStore();
    await expect(store.read('s', { after: 'not-a-cursor' })).rejects.toThrow(RangeError);
  });

  it('validates options when the store is created', () => {
    expect(() => createSqliteStore({ path: '' })).toThrow(/path/);
    expect(() => createSqliteStore({ path: ':memory:', sweepIntervalMs: -1 })).toThrow(/sweepIntervalMs/);
    expect(() => createSqliteStore({ path: ':memory:', pubsub: 'cluster' as 'poll' })).toThrow(/pubsub/);
  });
});

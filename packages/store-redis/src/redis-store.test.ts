import { randomUUID } from 'node:crypto';
import { createClient } from 'redis';
import { afterEach, describe, expect, it } from 'vitest';
import { runStoreContract } from '@ext/core/testing';
import { silentLogger, type JsonValue } from '@ext/core/kit';
import { createRedisStore, type RedisStore } from './index.js';

// These tests are about atomicity and sharing, not the default per-command timeout, which a loaded test
// machine can exceed under a burst of concurrent calls (the outage tests cover the timeout).
const LOADED_MACHINE_TIMEOUT_MS = 10_000;

// CI always sets REDIS_URL, and then an unreachable server fails every test
// (the factory rejects); only a run without it skips, and says so.
const REDIS_URL = process.env.REDIS_URL;

// A side connection for inspection and cleanup; it never retries, so a dead server fails at once.
async function adminClient(url: string) {
  const admin = createClient({ url, socket: { connectTimeout: 2000, reconnectStrategy: false } });
  admin.on('error', (error: unknown) => {
    console.error('redis admin connection:', String(error));
  });
  await admin.connect();
  return admin;
}

/**
 * Checked once per run: when REDIS_URL is set but nothing answers there, every
 * test fails at once with this reason instead of each waiting for a timeout.
 */
async function probe(url: string): Promise<Error | undefined> {
  try {
    const admin = await adminClient(url);
    await admin.close();
    return undefined;
  } catch (error) {
    // Host and port only: the URL may carry a password.
    const { host } = new URL(url);
    return new Error(`REDIS_URL is set (host ${host}) but no Redis server answers there`, { cause: error });
  }
}

/** Deletes every key under `prefix` with a client of its own (the store may be closed by then). */
async function dropPrefix(url: string, prefix: string): Promise<void> {
  const admin = await adminClient(url);
  try {
    for await (const keys of admin.scanIterator({ MATCH: `${prefix}*`, COUNT: 500 })) {
      if (keys.length > 0) await admin.del(keys);
    }
  } finally {
    await admin.close();
  }
}

async function keysUnder(url: string, prefix: string): Promise<string[]> {
  const admin = await adminClient(url);
  try {
    const found: string[] = [];
    for await (const keys of admin.scanIterator({ MATCH: `${prefix}*`, COUNT: 500 })) found.push(...keys);
    return found.sort();
  } finally {
    await admin.close();
  }
}

if (REDIS_URL === undefined) {
  describe.skip('RedisStore: skipped because REDIS_URL is not set (e.g. REDIS_URL=redis://127.0.0.1:6390)', () => {
    it('runs the store contract and the multi-instance tests against a real redis-server', () => undefined);
  });
} else {
  const url = REDIS_URL;
  const unreachable = await probe(url);

  runStoreContract('RedisStore [REDIS-8, REDIS-9, REDIS-10]', async () => {
    if (unreachable) throw unreachable;
    const keyPrefix = `test:${randomUUID()}:`;
    const store = await createRedisStore({
      url,
      keyPrefix,
      connectTimeoutMs: 2000,
      commandTimeoutMs: LOADED_MACHINE_TIMEOUT_MS,
    });
    return { store, cleanup: () => dropPrefix(url, keyPrefix) };
  });

  describe('RedisStore across instances', () => {
    const opened: RedisStore[] = [];
    const prefixes: string[] = [];

    async function open(keyPrefix: string): Promise<RedisStore> {
      if (unreachable) throw unreachable;
      const store = await createRedisStore({
        url,
        keyPrefix,
        connectTimeoutMs: 2000,
        commandTimeoutMs: LOADED_MACHINE_TIMEOUT_MS,
        logger: silentLogger,
      });
      opened.push(store);
      return store;
    }

    function freshPrefix(): string {
      const prefix = `test:${randomUUID()}:`;
      prefixes.push(prefix);
      return prefix;
    }

    afterEach(async () => {
      for (const store of opened.splice(0)) await store.close();
      const dropped = prefixes.splice(0);
      if (!unreachable) for (const prefix of dropped) await dropPrefix(url, prefix);
    });

    it('REDIS-1: two instances with one prefix see each other’s writes, counters and streams', async () => {
      const prefix = freshPrefix();
      const a = await open(prefix);
      const b = await open(prefix);
      await a.set('k', { from: 'a' });
      expect(await b.get('k')).toEqual({ from: 'a' });
      expect(await b.compareAndSet('k', { from: 'a' }, { from: 'b' })).toBe(true);
      expect(await a.get('k')).toEqual({ from: 'b' });
      const counts = await Promise.all(
        Array.from({ length: 100 }, (_, index) => (index % 2 === 0 ? a : b).increment('hits')),
      );
      expect(new Set(counts).size).toBe(100);
      expect(await a.get('hits')).toBe(100);
      const first = await a.append('log', 'from a');
      await b.append('log', 'from b');
      expect((await b.read('log', { after: first })).map((entry) => entry.value)).toEqual(['from b']);
    });

    it('REDIS-1: exactly one of two instances wins setIfAbsent and compareAndSet races', async () => {
      const prefix = freshPrefix();
      const a = await open(prefix);
      const b = await open(prefix);
      const claims = await Promise.all(
        Array.from({ length: 50 }, (_, index) => (index % 2 === 0 ? a : b).setIfAbsent('lock', index)),
      );
      expect(claims.filter(Boolean)).toHaveLength(1);
      await a.set('version', 0);
      const swaps = await Promise.all(
        Array.from({ length: 50 }, (_, index) => (index % 2 === 0 ? a : b).compareAndSet('version', 0, index + 1)),
      );
      expect(swaps.filter(Boolean)).toHaveLength(1);
    });

    it('REDIS-2: a message published by one instance reaches subscribers of the other', async () => {
      const prefix = freshPrefix();
      const a = await open(prefix);
      const b = await open(prefix);
      const atB: JsonValue[] = [];
      const atA: JsonValue[] = [];
      await b.subscribe('events', (message) => atB.push(message));
      await a.subscribe('events', (message) => atA.push(message));
      await a.publish('events', { n: 1 });
      await b.publish('events', { n: 2 });
      await expect.poll(() => atB, { timeout: 5000 }).toEqual([{ n: 1 }, { n: 2 }]);
      await expect.poll(() => atA, { timeout: 5000 }).toEqual([{ n: 1 }, { n: 2 }]);
    });

    it('REDIS-3: different key prefixes share nothing: keys, streams or channels', async () => {
      const tenantA = await open(freshPrefix());
      const tenantB = await open(freshPrefix());
      await tenantA.set('k', 'a');
      await tenantA.append('log', 'a');
      expect(await tenantB.get('k')).toBeUndefined();
      expect(await tenantB.read('log')).toEqual([]);
      expect(await tenantB.setIfAbsent('k', 'b')).toBe(true);
      expect(await tenantA.get('k')).toBe('a');

      const heardByB: JsonValue[] = [];
      const heardByA: JsonValue[] = [];
      await tenantB.subscribe('c', (message) => heardByB.push(message));
      await tenantA.subscribe('c', (message) => heardByA.push(message));
      await tenantA.publish('c', 'for a only');
      await tenantB.publish('c', 'for b only');
      await expect.poll(() => heardByB, { timeout: 5000 }).toEqual(['for b only']);
      await expect.poll(() => heardByA, { timeout: 5000 }).toEqual(['for a only']);
    });

    it('REDIS-4: stores values as canonical JSON under <prefix>v:, streams under <prefix>s:', async () => {
      const prefix = freshPrefix();
      const store = await open(prefix);
      await store.set('doc', { b: 1, a: [true, null] });
      await store.append('log', 1);
      await store.increment('n', 3);
      expect(await keysUnder(url, prefix)).toEqual([`${prefix}s:log`, `${prefix}v:doc`, `${prefix}v:n`].sort());
      const admin = await adminClient(url);
      try {
        expect(await admin.get(`${prefix}v:doc`)).toBe('{"a":[true,null],"b":1}');
        expect(await admin.get(`${prefix}v:n`)).toBe('3');
        expect(await admin.type(`${prefix}s:log`)).toBe('stream');
      } finally {
        await admin.close();
      }
    });

    it('REDIS-5: compareAndSet keeps working after the server forgets its scripts', async () => {
      const store = await open(freshPrefix());
      await store.set('k', 1);
      expect(await store.compareAndSet('k', 1, 2)).toBe(true);
      const admin = await adminClient(url);
      try {
        await admin.scriptFlush();
      } finally {
        await admin.close();
      }
      expect(await store.compareAndSet('k', 2, 3)).toBe(true);
      expect(await store.increment('n')).toBe(1);
    });

    it('REDIS-10: increment rejects a stored number that is not an integer, with TypeError', async () => {
      const store = await open(freshPrefix());
      await store.set('n', 1.5);
      await expect(store.increment('n')).rejects.toThrow(TypeError);
      expect(await store.get('n')).toBe(1.5);
    });

    it('REDIS-6: rejects a cursor that is not a stream id', async () => {
      const store = await open(freshPrefix());
      await expect(store.read('log', { after: 'nope' })).rejects.toThrow(RangeError);
    });

    it('REDIS-7: createRedisStore rejects, not hangs, when the server cannot be reached', async () => {
      const unreachable = 'redis://127.0.0.1:1';
      await expect(
        createRedisStore({ url: unreachable, connectTimeoutMs: 300, logger: silentLogger }),
      ).rejects.toThrow();
    });

    it('a listener that throws does not stop delivery to the others', async () => {
      const store = await open(freshPrefix());
      const received: JsonValue[] = [];
      await store.subscribe('c', () => {
        throw new Error('listener failure');
      });
      await store.subscribe('c', (message) => received.push(message));
      await store.publish('c', 1);
      await store.publish('c', 2);
      await expect.poll(() => received, { timeout: 5000 }).toEqual([1, 2]);
    });
  });
}

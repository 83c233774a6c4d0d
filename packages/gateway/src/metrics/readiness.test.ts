// When the gateway is ready (GW-38), and how its store's answer is asked for.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryStore } from '@ext/core';
import { silentLogger } from '@ext/core/kit';
import { redisServerUnavailable, startRedisServer } from '@ext/core/testing';
import { createRedisStore } from '@ext/store-redis';
import { createSqliteStore } from '@ext/store-sqlite';
import { afterEach, describe, expect, it } from 'vitest';
import { readiness, storeAnswers } from './readiness.js';
import { UpstreamStates } from './upstream-states.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function states(entries: Readonly<Record<string, { up: boolean; open?: boolean }>>): UpstreamStates {
  const known = new UpstreamStates();
  for (const [name, { up, open }] of Object.entries(entries)) {
    known.setUp(name, up);
    if (open === true) known.setBreaker(name, 'open');
  }
  return known;
}

describe('readiness', () => {
  it('is ready with the store answering and at least one upstream up, and names every upstream’s state', () => {
    const facts = {
      storeOk: true,
      upstreams: ['files', 'web'],
      states: states({ files: { up: true }, web: { up: false } }),
    };
    expect(readiness(facts)).toEqual({
      status: 'ready',
      checks: {
        config: 'loaded',
        store: 'ok',
        upstreams: { files: { state: 'up', breaker: 'closed' }, web: { state: 'down', breaker: 'closed' } },
      },
    });
  });

  it('is not ready when the store does not answer', () => {
    const body = readiness({ storeOk: false, upstreams: ['files'], states: states({ files: { up: true } }) });
    expect(body).toMatchObject({ status: 'not_ready', checks: { store: 'unavailable' } });
  });

  it('is not ready when no upstream can be reached: down, never heard of, or behind an open breaker', () => {
    const known = states({ files: { up: false }, web: { up: true, open: true } });
    const body = readiness({ storeOk: true, upstreams: ['files', 'web', 'new'], states: known });
    expect(body).toEqual({
      status: 'not_ready',
      checks: {
        config: 'loaded',
        store: 'ok',
        upstreams: {
          files: { state: 'down', breaker: 'closed' },
          web: { state: 'down', breaker: 'open' },
          new: { state: 'down', breaker: 'closed' },
        },
      },
    });
  });
});

describe('whether the store answers', () => {
  it('a store without health() is read', async () => {
    expect(await storeAnswers(new MemoryStore())).toBe(true);
  });

  it('a SQLite store whose file was deleted under it does not answer', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'gateway-readiness-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const store = createSqliteStore({ path: join(dir, 'state.db'), logger: silentLogger });
    cleanups.push(() => store.close());
    expect(await storeAnswers(store)).toBe(true);
    await rm(join(dir, 'state.db'));
    expect(await storeAnswers(store)).toBe(false);
  });

  const missing = redisServerUnavailable();
  it.skipIf(missing !== undefined)(
    `a Redis that stopped answering counts as unreachable once the probe's time is up${missing === undefined ? '' : ` (skipped: ${missing})`}`,
    async () => {
      const redis = await startRedisServer();
      cleanups.push(() => redis.close());
      // Its own bound is far longer than the probe's: the probe's time is what ends the wait.
      const store = await createRedisStore({ url: redis.url, commandTimeoutMs: 120_000, logger: silentLogger });
      cleanups.push(() => store.close());
      expect(await storeAnswers(store, 30_000)).toBe(true);
      redis.freeze();
      cleanups.push(() => {
        redis.thaw();
        return Promise.resolve();
      });
      expect(await storeAnswers(store, 1_000)).toBe(false);
      redis.thaw();
      expect(await storeAnswers(store, 30_000)).toBe(true);
    },
  );
});

/**
 * COST-6, COST-9 and COST-20 under load: 100 calls at once never get more
 * successes than the quota allows, and refused calls leave nothing counted,
 * on every store the project ships, for sliding and fixed windows alike. The Redis case runs whenever REDIS_URL is set,
 * e.g. `redis://127.0.0.1:6390`.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryStore, type Store, type ToolResult } from '@ext/core';
import { silentLogger } from '@ext/core/kit';
import { createTestPair, TEST_LINES, type TestLine, type TestPair } from '@ext/core/testing';
import { errorsClient, getStructuredError } from '@ext/errors/client';
import { errorsServer } from '@ext/errors/server';
import { createRedisStore } from '@ext/store-redis';
import { createSqliteStore } from '@ext/store-sqlite';
import { afterEach, describe, expect, it } from 'vitest';
import { costClient, getCostStatus } from './client.js';
import { QUOTA_WINDOW_MODES } from './schema.js';
import { costServer } from './server.js';
import { Clock, quotaTool } from './test-fixtures.js';

// These tests are about atomicity and sharing, not the default per-command timeout, which a loaded test
// machine can exceed under a burst of concurrent calls (the outage tests cover the timeout).
const LOADED_MACHINE_TIMEOUT_MS = 10_000;

const REDIS_URL = process.env.REDIS_URL;

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

/** Opens one store of a kind; `shared` gives a second handle on the same state (another server instance). */
interface StoreKind {
  readonly name: string;
  open(): Promise<{ first: Store; second: Store }>;
}

const memory: StoreKind = {
  name: 'memory',
  open() {
    const store = new MemoryStore();
    return Promise.resolve({ first: store, second: store });
  },
};

const sqlite: StoreKind = {
  name: 'SQLite',
  async open() {
    const dir = await mkdtemp(join(tmpdir(), 'cost-test-'));
    const path = join(dir, 'state.db');
    // Two connections to one file, as two server processes would have.
    const first = createSqliteStore({ path, sweepIntervalMs: 0 });
    const second = createSqliteStore({ path, sweepIntervalMs: 0 });
    cleanup.push(async () => {
      await first.close();
      await second.close();
      await rm(dir, { recursive: true, force: true });
    });
    return { first, second };
  },
};

const redis: StoreKind = {
  name: 'Redis',
  async open() {
    // Every counter expires a little after its one-minute window: nothing outlives the run for long.
    const keyPrefix = `cost-test:${randomUUID()}:`;
    const first = await createRedisStore({
      url: REDIS_URL,
      keyPrefix,
      connectTimeoutMs: 2000,
      commandTimeoutMs: LOADED_MACHINE_TIMEOUT_MS,
    });
    cleanup.push(() => first.close());
    const second = await createRedisStore({
      url: REDIS_URL,
      keyPrefix,
      connectTimeoutMs: 2000,
      commandTimeoutMs: LOADED_MACHINE_TIMEOUT_MS,
    });
    cleanup.push(() => second.close());
    return { first, second };
  },
};

async function instance(
  line: TestLine,
  store: Store,
  clock: Clock,
  setup: Parameters<typeof createTestPair>[0]['setup'],
): Promise<TestPair> {
  const pair = await createTestPair({
    line,
    serverExtensions: [errorsServer(), costServer({ now: clock.read })],
    clientExtensions: [errorsClient(), costClient()],
    setup,
    serverOptions: { store, logger: silentLogger },
    clientOptions: { logger: silentLogger },
    authInfo: { clientId: 'alice' },
  });
  cleanup.push(() => pair.close());
  return pair;
}

function tally(results: readonly ToolResult[]): { ok: number; exhausted: number; other: number } {
  const counts = { ok: 0, exhausted: 0, other: 0 };
  for (const result of results) {
    if (result.isError !== true) counts.ok += 1;
    else if (getStructuredError(result)?.code === 'QUOTA_EXHAUSTED') counts.exhausted += 1;
    else counts.other += 1;
  }
  return counts;
}

const LINES_AND_WINDOWS = TEST_LINES.flatMap((line) => QUOTA_WINDOW_MODES.map((window) => ({ line, window }) as const));

function suite(kind: StoreKind): void {
  describe.each(LINES_AND_WINDOWS)(
    `quotas on the ${kind.name} store under 100 concurrent calls ($line, $window window)`,
    ({ line, window }) => {
      it('COST-6 COST-9: exactly the quota succeeds; the refused calls leave the counter at what the successes used', async () => {
        const { first } = await kind.open();
        const runs = { count: 0 };
        const { client } = await instance(line, first, new Clock(), quotaTool('burst', 10, 1, runs, undefined, window));
        const results = await Promise.all(Array.from({ length: 100 }, (_, n) => client.callTool('burst', { n })));
        expect(tally(results)).toEqual({ ok: 10, exhausted: 90, other: 0 });
        expect(runs.count).toBe(10);
        expect((await getCostStatus(client, ['burst']))?.tools[0]?.quota).toMatchObject({
          limit: 10,
          used: 10,
          remaining: 0,
        });
      });

      it('COST-6: a charge of 3 units against 10 admits 3 calls, never a 4th', async () => {
        const { first } = await kind.open();
        const runs = { count: 0 };
        const { client } = await instance(
          line,
          first,
          new Clock(),
          quotaTool('chunky', 10, 3, runs, undefined, window),
        );
        const results = await Promise.all(Array.from({ length: 100 }, (_, n) => client.callTool('chunky', { n })));
        expect(tally(results).ok).toBe(3);
        expect(runs.count).toBe(3);
        expect((await getCostStatus(client, ['chunky']))?.tools[0]?.quota).toMatchObject({ used: 9, remaining: 1 });
      });

      it('COST-6 COST-9: two server instances on one store admit the quota once between them', async () => {
        const { first, second } = await kind.open();
        const runs = { count: 0 };
        const clock = new Clock();
        const one = await instance(line, first, clock, quotaTool('shared', 10, 1, runs, undefined, window));
        const two = await instance(line, second, clock, quotaTool('shared', 10, 1, runs, undefined, window));
        const results = await Promise.all(
          Array.from({ length: 100 }, (_, n) => (n % 2 === 0 ? one : two).client.callTool('shared', { n })),
        );
        expect(tally(results).ok).toBe(10);
        expect(runs.count).toBe(10);
        expect((await getCostStatus(two.client, ['shared']))?.tools[0]?.quota).toMatchObject({ used: 10 });
      });

      it('COST-9 COST-11: with failures given back during the burst, successes never pass the quota and the counter matches them', async () => {
        const { first } = await kind.open();
        const runs = { count: 0 };
        const { client } = await instance(line, first, new Clock(), quotaTool('flaky', 10, 1, runs, 3, window));
        const results = await Promise.all(Array.from({ length: 100 }, (_, n) => client.callTool('flaky', { n })));
        const successes = results.filter((result) => result.isError !== true).length;
        expect(successes).toBeGreaterThan(0);
        expect(successes).toBeLessThanOrEqual(10);
        expect((await getCostStatus(client, ['flaky']))?.tools[0]?.quota?.used).toBe(successes);
      });
    },
  );
}

suite(memory);
suite(sqlite);
if (REDIS_URL === undefined) {
  describe.skip('quotas on the Redis store: skipped because REDIS_URL is not set (e.g. REDIS_URL=redis://127.0.0.1:6390)', () => {
    it('runs the concurrency tests against a real redis-server', () => undefined);
  });
} else {
  suite(redis);
}

/**
 * Outages of the Redis under a running store, against a real redis-server
 * of the test's own (never the shared one: it is stopped and frozen here).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StoreUnavailableError, type Logger } from '@ext/core';
import { type JsonValue } from '@ext/core/kit';
import { redisServerUnavailable, startRedisServer, type RedisServerProcess } from '@ext/core/testing';
import { createRedisStore, type RedisStore } from './index.js';

const BOUND_MS = 300;
// What the machine may add to the bound: a loaded CI runner, a timer firing late.
const SLACK_MS = 400;

interface Logged {
  readonly message: string;
  readonly details: Record<string, unknown> | undefined;
}

function capture(): { logger: Logger; lines: Logged[] } {
  const lines: Logged[] = [];
  return { lines, logger: { warn: (message, details) => lines.push({ message, details }) } };
}

/** Runs `operation`, expecting a StoreUnavailableError; returns it and how long it took. */
async function failure(operation: () => Promise<unknown>): Promise<{ error: StoreUnavailableError; ms: number }> {
  const started = performance.now();
  const outcome = await operation().then(
    (value: unknown) => ({ value }),
    (error: unknown) => ({ error }),
  );
  const ms = performance.now() - started;
  if (!('error' in outcome)) throw new Error(`expected a failure, got ${JSON.stringify(outcome.value)}`);
  if (!StoreUnavailableError.isInstance(outcome.error))
    throw new Error(`expected StoreUnavailableError, got ${String(outcome.error)}`);
  return { error: outcome.error, ms };
}

/** Every operation of the store, as thunks. */
function everyOperation(store: RedisStore): [string, () => Promise<unknown>][] {
  return [
    ['get', () => store.get('k')],
    ['set', () => store.set('k', 2)],
    ['setIfAbsent', () => store.setIfAbsent('fresh', 1)],
    ['compareAndSet', () => store.compareAndSet('k', 1, 3)],
    ['delete', () => store.delete('k')],
    ['increment', () => store.increment('n')],
    ['append', () => store.append('log', 'x')],
    ['read', () => store.read('log')],
    ['publish', () => store.publish('c', 'x')],
    ['subscribe', () => store.subscribe('c2', () => undefined)],
  ];
}

/** Expects every operation to fail as a transient store outage within the bound. */
async function expectAllFailFast(store: RedisStore, reasons: readonly string[]): Promise<number> {
  let slowest = 0;
  for (const [name, operation] of everyOperation(store)) {
    const { error, ms } = await failure(operation);
    slowest = Math.max(slowest, ms);
    expect({ name, structured: error.toStructured() }).toMatchObject({
      name,
      structured: { code: 'SERVICE_UNAVAILABLE', category: 'transient', retry_after_seconds: 1 },
    });
    expect(reasons).toContain(error.reason);
    expect(ms, `${name} took ${Math.round(ms)} ms`).toBeLessThan(BOUND_MS + SLACK_MS);
  }
  return slowest;
}

/** Waits until the store serves again; returns how long that took. */
async function recovery(store: RedisStore): Promise<number> {
  const started = performance.now();
  await expect
    .poll(
      () =>
        store.set('back', true).then(
          () => true,
          () => false,
        ),
      { timeout: 10_000, interval: 25 },
    )
    .toBe(true);
  return performance.now() - started;
}

/** Keeps this process's event loop busy for `ms`, as a burst of CPU-bound work would. */
function busyFor(ms: number): void {
  const until = performance.now() + ms;
  let spins = 0;
  while (performance.now() < until) spins += 1;
  expect(spins).toBeGreaterThan(0);
}

function outageLines(lines: readonly Logged[]): string[] {
  return lines.map((line) => line.message).filter((message) => /store (unavailable|available again)/.test(message));
}

const missing = redisServerUnavailable();

if (missing !== undefined) {
  describe.skip(`RedisStore outages: skipped because ${missing} (these tests start their own redis-server)`, () => {
    it('stops, restarts, freezes and thaws a private redis-server under a running store', () => undefined);
  });
} else {
  describe('RedisStore outages against a private redis-server', () => {
    let server: RedisServerProcess;
    let store: RedisStore;
    let lines: Logged[];

    beforeEach(async () => {
      server = await startRedisServer();
      const captured = capture();
      lines = captured.lines;
      store = await createRedisStore({
        url: server.url,
        keyPrefix: 'outage:',
        commandTimeoutMs: BOUND_MS,
        logger: captured.logger,
      });
    });

    afterEach(async () => {
      await store.close();
      await server.close();
    });

    it('REDIS-11, REDIS-13: Redis stopped, every operation fails fast as a transient outage; it serves again once Redis is back, no restart', async () => {
      await store.set('k', 1);
      await server.stop();
      const slowest = await expectAllFailFast(store, ['unreachable', 'timeout']);
      await server.start();
      const recovered = await recovery(store);
      expect(await store.get('back')).toBe(true);
      expect(outageLines(lines)).toEqual(['RedisStore: store unavailable', 'RedisStore: store available again']);
      console.info(
        `redis stopped: slowest failure ${Math.round(slowest)} ms (bound ${BOUND_MS} ms); back ${Math.round(recovered)} ms after restart`,
      );
    });

    it('REDIS-13: after a longer outage it serves again within the reconnection backoff cap (2 s) and the bound', async () => {
      await server.stop();
      await failure(() => store.get('k'));
      // Long enough for the reconnection backoff to reach its cap.
      await new Promise((resolve) => setTimeout(resolve, 4000));
      await server.start();
      const recovered = await recovery(store);
      expect(recovered).toBeLessThan(2000 + BOUND_MS + SLACK_MS);
      expect(outageLines(lines)).toEqual(['RedisStore: store unavailable', 'RedisStore: store available again']);
      console.info(`redis stopped 4 s: back ${Math.round(recovered)} ms after restart`);
    });

    it('REDIS-12, REDIS-13: Redis frozen (SIGSTOP), operations fail within the bound instead of hanging; it serves again after SIGCONT', async () => {
      await store.set('k', 1);
      server.freeze();
      const slowest = await expectAllFailFast(store, ['timeout']);
      // Still frozen: the store keeps failing fast rather than queueing behind the stalled server.
      const again = await failure(() => store.get('k'));
      expect(again.ms).toBeLessThan(BOUND_MS + SLACK_MS);
      server.thaw();
      const recovered = await recovery(store);
      expect(await store.get('k')).not.toBeUndefined();
      expect(outageLines(lines)).toEqual(['RedisStore: store unavailable', 'RedisStore: store available again']);
      console.info(
        `redis frozen: slowest failure ${Math.round(slowest)} ms (bound ${BOUND_MS} ms); back ${Math.round(recovered)} ms after SIGCONT`,
      );
    });

    it('REDIS-14: health() answers within the bound: ok while Redis answers, not ok while it is stopped or frozen', async () => {
      expect(await store.health()).toMatchObject({ ok: true });
      server.freeze();
      const started = performance.now();
      expect(await store.health()).toMatchObject({
        ok: false,
        detail: expect.stringMatching(/did not answer/) as string,
      });
      expect(performance.now() - started).toBeLessThan(BOUND_MS + SLACK_MS);
      server.thaw();
      await expect.poll(async () => (await store.health()).ok, { timeout: 10_000, interval: 25 }).toBe(true);
      await server.stop();
      expect(await store.health()).toMatchObject({ ok: false });
      // The details name no address: a readiness endpoint may be public.
      expect(JSON.stringify(await store.health())).not.toContain(String(server.port));
    });

    it('REDIS-2, REDIS-11: a subscription made before an outage delivers again after it', async () => {
      const received: JsonValue[] = [];
      await store.subscribe('events', (message) => received.push(message));
      await server.stop();
      await failure(() => store.publish('events', 'lost'));
      await server.start();
      await recovery(store);
      // node-redis subscribes again on reconnect; poll, since that may land just after the first publish.
      await expect
        .poll(
          async () => {
            await store.publish('events', 'after');
            return received.includes('after');
          },
          { timeout: 10_000, interval: 100 },
        )
        .toBe(true);
      expect(received).not.toContain('lost');
    });

    it('REDIS-12: a healthy Redis is not called down while this process is too busy to read its answers', async () => {
      const keys = Array.from({ length: 200 }, (_, index) => `busy:${String(index % 7)}`);
      // Blocked before the commands are even written, then after they were written and answered.
      const beforeWrite = Promise.allSettled(keys.map((key) => store.increment(key)));
      busyFor(3 * BOUND_MS);
      const unwritten = await beforeWrite;
      const afterWrite = Promise.allSettled(keys.map((key) => store.increment(key)));
      await new Promise((resolve) => setImmediate(resolve));
      busyFor(3 * BOUND_MS);
      const unread = await afterWrite;
      const refused = [...unwritten, ...unread].filter((outcome) => outcome.status === 'rejected');
      expect(refused.map((outcome) => String(outcome.reason))).toEqual([]);
      expect(await store.get('busy:0')).toBe(2 * keys.filter((key) => key === 'busy:0').length);
      expect(outageLines(lines)).toEqual([]);
    });

    it('REDIS-12: a frozen Redis still fails within the bound of the moment the process can look, however busy it was', async () => {
      await store.set('k', 1);
      server.freeze();
      const started = performance.now();
      const pending = failure(() => store.get('k'));
      busyFor(3 * BOUND_MS);
      const free = performance.now();
      const { error } = await pending;
      expect(error.reason).toBe('timeout');
      expect(performance.now() - free).toBeLessThan(BOUND_MS + SLACK_MS);
      expect(free - started).toBeGreaterThanOrEqual(3 * BOUND_MS);
      server.thaw();
    });

    it('REDIS-13: close() returns within the bound while Redis is frozen', async () => {
      await store.subscribe('c', () => undefined);
      server.freeze();
      await failure(() => store.get('k'));
      const started = performance.now();
      await store.close();
      expect(performance.now() - started).toBeLessThan(2 * BOUND_MS + SLACK_MS);
      server.thaw();
    });
  });

  describe('RedisStore options', () => {
    it('REDIS-12: commandTimeoutMs must be a positive number; the error names it', async () => {
      for (const bad of [0, -1, Number.NaN, Number.POSITIVE_INFINITY, '500' as unknown as number]) {
        await expect(createRedisStore({ url: 'redis://127.0.0.1:1', commandTimeoutMs: bad })).rejects.toThrow(
          /commandTimeoutMs/,
        );
      }
    });
  });
}

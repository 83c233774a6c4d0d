/**
 * Faults in the tracker's store, through real MCP tool calls over HTTP: the
 * client must be told what happened (a transient SERVICE_UNAVAILABLE with a
 * wait, never a permanent internal error), within a bound, and the server
 * must serve again by itself once the store is back. The Redis cases run a
 * redis-server of their own (never the shared one), stopped and frozen.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Logger, Store, ToolResult } from '@ext/core';
import { redisServerUnavailable, startRedisServer, type RedisServerProcess } from '@ext/core/testing';
import { getStructuredError } from '@ext/errors/client';
import { createRedisStore } from '@ext/store-redis';
import { createSqliteStore } from '@ext/store-sqlite';
import { afterEach, describe, expect, it } from 'vitest';
import { connect, type Connection } from '../client/connect.js';
import { startHttpServer, type RunningHttpServer } from '../server/node-http.js';

const BOUND_MS = 300;
const SLACK_MS = 700;

interface Deployment {
  readonly server: RunningHttpServer;
  readonly connection: Connection;
  readonly lines: string[];
}

const opened: { close(): Promise<void> }[] = [];

afterEach(async () => {
  for (const item of opened.splice(0).reverse()) await item.close();
});

function capture(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  return { lines, logger: { warn: (message) => lines.push(message) } };
}

async function deploy(store: Store, lines: string[], logger: Logger): Promise<Deployment> {
  const server = await startHttpServer({ port: 0, store, logger, references: false });
  opened.push(server);
  const connection = await connect(server.as('alice'), { era: 'modern' });
  opened.push(connection);
  return { server, connection, lines };
}

async function createTicket(deployment: Deployment, title: string): Promise<{ result: ToolResult; ms: number }> {
  const { extended } = deployment.connection;
  if (extended === undefined) throw new Error('the client has no extensions attached');
  const started = performance.now();
  const result = await extended.callTool('create_ticket', { title });
  return { result, ms: performance.now() - started };
}

/** The call failed as a store outage: transient, SERVICE_UNAVAILABLE, with a wait; returns the reason. */
function expectOutage(result: ToolResult): string {
  expect(result.isError).toBe(true);
  const error = getStructuredError(result);
  expect(error).toMatchObject({ code: 'SERVICE_UNAVAILABLE', category: 'transient' });
  expect(error?.retry_after_seconds).toBeGreaterThanOrEqual(1);
  return String(error?.details?.reason);
}

async function recovers(deployment: Deployment): Promise<number> {
  const started = performance.now();
  await expect
    .poll(async () => (await createTicket(deployment, 'after the outage')).result.isError !== true, {
      timeout: 10_000,
      interval: 50,
    })
    .toBe(true);
  return performance.now() - started;
}

function outageLines(lines: readonly string[]): string[] {
  return lines.filter((line) => /store (unavailable|available again)/.test(line));
}

const missing = redisServerUnavailable();

describe.skipIf(missing !== undefined)(
  `the tracker on Redis, through tool calls${missing === undefined ? '' : ` (skipped: ${missing})`}`,
  () => {
    let redis: RedisServerProcess;

    async function deployOnRedis(): Promise<Deployment> {
      redis = await startRedisServer();
      opened.push(redis);
      const { logger, lines } = capture();
      const store = await createRedisStore({
        url: redis.url,
        keyPrefix: 'tracker-outage:',
        commandTimeoutMs: BOUND_MS,
        logger,
      });
      return deploy(store, lines, logger);
    }

    it('Redis stopped: create_ticket fails fast as transient SERVICE_UNAVAILABLE with a wait, then works again once Redis is back', async () => {
      const deployment = await deployOnRedis();
      expect((await createTicket(deployment, 'before')).result.isError).not.toBe(true);
      await redis.stop();
      for (let attempt = 0; attempt < 3; attempt++) {
        const { result, ms } = await createTicket(deployment, `during ${attempt}`);
        expect(['unreachable', 'timeout']).toContain(expectOutage(result));
        expect(ms).toBeLessThan(BOUND_MS + SLACK_MS);
      }
      await redis.start();
      await recovers(deployment);
      expect(outageLines(deployment.lines)).toEqual([
        'RedisStore: store unavailable',
        'RedisStore: store available again',
      ]);
    });

    it('Redis frozen (SIGSTOP): create_ticket fails within the bound instead of hanging, then works again after SIGCONT', async () => {
      const deployment = await deployOnRedis();
      expect((await createTicket(deployment, 'before')).result.isError).not.toBe(true);
      redis.freeze();
      for (let attempt = 0; attempt < 3; attempt++) {
        const { result, ms } = await createTicket(deployment, `during ${attempt}`);
        expect(expectOutage(result)).toBe('timeout');
        expect(ms).toBeLessThan(BOUND_MS + SLACK_MS);
      }
      redis.thaw();
      await recovers(deployment);
      expect(outageLines(deployment.lines)).toEqual([
        'RedisStore: store unavailable',
        'RedisStore: store available again',
      ]);
    });
  },
);

describe('the tracker on SQLite, through tool calls', () => {
  it('the database file deleted under the running server: every create_ticket is refused, none is acknowledged and then lost at restart', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tracker-outage-'));
    opened.push({ close: () => rm(dir, { recursive: true, force: true }) });
    const path = join(dir, 'tracker.db');
    const { logger, lines } = capture();
    const deployment = await deploy(createSqliteStore({ path, logger }), lines, logger);
    expect((await createTicket(deployment, 'before')).result.isError).not.toBe(true);
    await rm(path);
    const acknowledged: string[] = [];
    for (let attempt = 0; attempt < 5; attempt++) {
      const title = `while deleted ${attempt}`;
      const { result } = await createTicket(deployment, title);
      if (result.isError === true) expect(expectOutage(result)).toBe('file_deleted');
      else acknowledged.push(title);
    }
    expect(acknowledged).toEqual([]);
    expect(outageLines(lines)).toEqual(['SqliteStore: store unavailable']);
    expect(await deployment.server.store.health?.()).toMatchObject({ ok: false });
  });
});

/**
 * Two gateway instances, each built from the same config naming one real
 * Redis (a redis-server this file starts), in front of ONE upstream that
 * counts what it executes: duplicates of a write spread over both
 * instances run once upstream, and a quota holds across both.
 */
import { randomUUID } from 'node:crypto';
import { silentLogger } from '@ext/core/kit';
import { listen } from '@ext/core/sdk-v2/server';
import { redisServerUnavailable, startRedisServer } from '@ext/core/testing';
import { costClient } from '@ext/cost/client';
import { errorsClient } from '@ext/errors/client';
import { getReplayInfo, idempotencyClient, idempotencyMeta } from '@ext/idempotency/client';
import { McpServer, createMcpHandler } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import {
  closeAfter,
  closeAfterEach,
  connectClient,
  errorOf,
  gatewayConfig,
  serveGateway,
  type ConnectedClient,
  type Era,
  type ServedGateway,
} from './support.js';

closeAfterEach();

const API_KEY = 'alice-key-0123456789abcdef';

/** An SDK v2 server (2026-07-28) whose `write` tool counts its executions. */
async function countingUpstream(): Promise<{ readonly url: string; executions(): number }> {
  let executions = 0;
  const build = () => {
    const server = new McpServer({ name: 'counter', version: '1.0.0' });
    server.registerTool(
      'write',
      { description: 'Writes a record.', inputSchema: z.object({ record: z.string() }) },
      ({ record }) => {
        executions += 1;
        const receipt = `${record}#${executions}`;
        return { content: [{ type: 'text', text: `wrote ${receipt}` }], structuredContent: { receipt } };
      },
    );
    return server;
  };
  const listening = await listen(createMcpHandler(build, { legacy: 'reject' }), { port: 0, logger: silentLogger });
  closeAfter(() => listening.close());
  return { url: String(listening.url), executions: () => executions };
}

/** Two gateways from one config: the counting upstream, the Redis at `redisUrl`, `policy` for `write`. */
async function twoGateways(
  upstreamUrl: string,
  redisUrl: string,
  policy: Record<string, unknown> = {},
): Promise<[ServedGateway, ServedGateway]> {
  const config = gatewayConfig({
    upstreams: { counter: { url: upstreamUrl, protocol: '2026-07-28' } },
    policy: { write: policy },
    // Two loaded cores may stall a command past the 500 ms default; this test is about duplicates, not outages.
    store: { redis: redisUrl, commandTimeoutMs: 10_000 },
    identity: { apiKeys: { [API_KEY]: 'alice' } },
  });
  return [await serveGateway(config, { store: 'config' }), await serveGateway(config, { store: 'config' })];
}

/** A client of each instance, as alice, on `era`. */
async function clientsOf(instances: readonly ServedGateway[], era: Era): Promise<ConnectedClient[]> {
  const headers = { authorization: `Bearer ${API_KEY}` };
  return Promise.all(
    instances.map((served) =>
      connectClient(served.url, { era, headers, extensions: [errorsClient(), idempotencyClient(), costClient()] }),
    ),
  );
}

const missing = redisServerUnavailable();
const CALLS = 200;
const QUOTA = 7;

describe.skipIf(missing !== undefined)(
  `two gateway instances sharing one Redis${missing === undefined ? '' : ` (skipped: ${missing})`}`,
  () => {
    it.each<Era>(['modern', 'legacy'])(
      `${CALLS} concurrent duplicates of a write over both instances (%s) run once upstream`,
      async (era) => {
        const redis = await startRedisServer();
        closeAfter(() => redis.close());
        const upstream = await countingUpstream();
        const clients = await clientsOf(await twoGateways(upstream.url, redis.url), era);
        const meta = idempotencyMeta(`order-${randomUUID()}`);

        const results = await Promise.all(
          Array.from({ length: CALLS }, (_, index) =>
            clients[index % clients.length]!.client.callTool('write', { record: 'order-1' }, { meta }),
          ),
        );
        expect(upstream.executions()).toBe(1);
        expect(results.filter((result) => result.isError === true)).toEqual([]);
        expect(new Set(results.map((result) => JSON.stringify(result.structuredContent)))).toEqual(
          new Set([JSON.stringify({ receipt: 'order-1#1' })]),
        );
        const replays = results.filter((result) => getReplayInfo(result)?.was_replay === true);
        expect(replays).toHaveLength(CALLS - 1);
      },
    );

    it(`a quota of ${QUOTA} holds across both instances: exactly ${QUOTA} of ${QUOTA + 5} calls pass`, async () => {
      const redis = await startRedisServer();
      closeAfter(() => redis.close());
      const upstream = await countingUpstream();
      const instances = await twoGateways(upstream.url, redis.url, {
        cost: { unit: 'writes', quota: { limit: QUOTA, windowSeconds: 3600 } },
      });
      const clients = await clientsOf(instances, 'modern');
      // Each instance gets 6 calls, fewer than the quota: only a limit both share refuses any.

      const results = await Promise.all(
        Array.from({ length: QUOTA + 5 }, (_, index) =>
          clients[index % clients.length]!.client.callTool('write', { record: `r${index}` }),
        ),
      );
      const passed = results.filter((result) => result.isError !== true);
      expect(passed).toHaveLength(QUOTA);
      expect(upstream.executions()).toBe(QUOTA);
      for (const refused of results.filter((result) => result.isError === true)) {
        expect(errorOf(refused)).toMatchObject({ category: 'rate_limited' });
        expect(errorOf(refused).retry_after_seconds).toBeGreaterThan(0);
      }
    });
  },
);

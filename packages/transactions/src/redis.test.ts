/**
 * Two server instances behind one Redis (a load-balanced deployment): runs
 * whenever REDIS_URL is set, e.g. `redis://127.0.0.1:6390`.
 */
import { randomUUID } from 'node:crypto';
import type { Store } from '@ext/core';
import { createTestPair, TEST_LINES, type TestLine, type TestPair } from '@ext/core/testing';
import { errorsClient } from '@ext/errors/client';
import { errorsServer } from '@ext/errors/server';
import { idempotencyClient } from '@ext/idempotency/client';
import { idempotencyServer } from '@ext/idempotency/server';
import { createRedisStore } from '@ext/store-redis';
import { afterEach, describe, expect, it } from 'vitest';
import { beginTransaction, runSaga, transactionsClient } from './client.js';
import { transactionsServer, type TransactionsServerExtension } from './server.js';
import { createWorld, registerWorldTools, worldCompensations, type World } from './test-fixtures/world.js';

// These tests are about atomicity and sharing, not the default per-command timeout, which a loaded test
// machine can exceed under a burst of concurrent calls (the outage tests cover the timeout).
const LOADED_MACHINE_TIMEOUT_MS = 10_000;

const url = process.env.REDIS_URL;

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

interface Instance {
  pair: TestPair;
  tx: TransactionsServerExtension;
  store: Store;
}

/** One server instance with its own Redis connection, on a key space shared with its siblings. */
async function instance(line: TestLine, world: World, keyPrefix: string, clock: { now: number }): Promise<Instance> {
  const store = await createRedisStore({ url, keyPrefix, commandTimeoutMs: LOADED_MACHINE_TIMEOUT_MS });
  cleanup.push(() => store.close());
  const tx = transactionsServer({ compensations: worldCompensations(world), sweepIntervalMs: 0, now: () => clock.now });
  cleanup.push(() => {
    tx.stop();
    return Promise.resolve();
  });
  const pair = await createTestPair({
    line,
    serverExtensions: [errorsServer(), idempotencyServer(), tx],
    clientExtensions: [errorsClient(), idempotencyClient(), transactionsClient()],
    serverOptions: { store },
    authInfo: { clientId: 'alice' },
    setup: (server) => {
      registerWorldTools(server, world);
    },
  });
  cleanup.push(() => pair.close());
  return { pair, tx, store };
}

describe.skipIf(url === undefined || url === '').each(TEST_LINES)(
  '@ext/transactions on a shared Redis store (%s)',
  (line) => {
    it('TXN-20: the saga across two instances with a failing third step rolls back the first two', async () => {
      const world = createWorld();
      const prefix = `txn-test:${randomUUID()}:`;
      const clock = { now: Date.now() };
      const one = await instance(line, world, prefix, clock);
      const two = await instance(line, world, prefix, clock);
      const outcome = await runSaga([
        { client: one.pair.client, server: 'one', tool: 'create_ticket', arguments: { title: 'A' } },
        { client: two.pair.client, server: 'two', tool: 'link_doc', arguments: { ticket_id: 'T-1', doc: 'a.md' } },
        { client: two.pair.client, server: 'two', tool: 'post_message', arguments: { text: 'x', fail: true } },
      ]);
      expect(outcome.status).toBe('rolled_back');
      expect(outcome.participants.map((participant) => [participant.server, participant.status])).toEqual([
        ['one', 'rolled_back'],
        ['two', 'rolled_back'],
      ]);
      expect(world.undone).toEqual(['link_doc:a.md', 'create_ticket:T-1']);
      expect(world.tickets.size).toBe(0);
    });

    it('TXN-18: one transaction spans both instances; either can roll it back, and racing sweepers compensate once', async () => {
      const world = createWorld();
      const prefix = `txn-test:${randomUUID()}:`;
      const clock = { now: Date.now() };
      const one = await instance(line, world, prefix, clock);
      const two = await instance(line, world, prefix, clock);
      const onOne = await beginTransaction(one.pair.client, { transactionId: 'tx-spanning', timeoutSeconds: 30 });
      await onOne.callTool('create_ticket', { title: 'A' });
      // The same caller reaches the other instance with the same transaction.
      const onTwo = await two.pair.client.callTool(
        'create_ticket',
        { title: 'B' },
        { meta: { 'io.github.mcp-ext/transactions': { transaction_id: 'tx-spanning' } } },
      );
      expect(onTwo.isError).not.toBe(true);
      const status = await two.pair.client.request('io.github.mcp-ext/transactions/status', {
        transaction_id: 'tx-spanning',
      });
      expect(status).toMatchObject({ status: 'active', steps: [{ step_id: 'step-1' }, { step_id: 'step-2' }] });

      clock.now += 31_000;
      const [first, second] = await Promise.all([one.tx.sweep(one.store), two.tx.sweep(two.store)]);
      expect([...first.rolledBack, ...second.rolledBack]).toEqual([
        expect.objectContaining({ transactionId: 'tx-spanning', status: 'rolled_back' }),
      ]);
      expect(world.undone).toEqual(['create_ticket:T-2', 'create_ticket:T-1']);
      const after = await onOne.status();
      expect(after.status).toBe('rolled_back');

      const explicit = await beginTransaction(two.pair.client, { transactionId: 'tx-explicit' });
      await explicit.callTool('post_message', { text: 'hi' });
      const fromOne = await one.pair.client.request('io.github.mcp-ext/transactions/rollback', {
        transaction_id: 'tx-explicit',
      });
      expect(fromOne).toMatchObject({
        status: 'rolled_back',
        steps_compensated: [{ step_id: 'step-1', status: 'compensated' }],
      });
      expect(world.messages).toEqual([]);
    });
  },
);

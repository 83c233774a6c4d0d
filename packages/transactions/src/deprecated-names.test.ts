import { MemoryStore, type Store } from '@ext/core';
import { silentLogger } from '@ext/core/kit';
import { createTestPair, type TestPair } from '@ext/core/testing';
import { errorsClient } from '@ext/errors/client';
import { errorsServer } from '@ext/errors/server';
import { idempotencyClient } from '@ext/idempotency/client';
import { idempotencyServer } from '@ext/idempotency/server';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { beginTransaction, runSaga, transactionsClient } from './client.js';
import { transactionsServer, type TransactionsServerExtension } from './server.js';
import { createWorld, registerWorldTools, worldCompensations, type World } from './test-fixtures/world.js';

// The snake_case spellings of 0.1 keep working until the next major and warn once per process (VERSIONING.md section 4).
/* eslint-disable @typescript-eslint/no-deprecated -- this file exercises the deprecated spellings on purpose */

const open: TestPair[] = [];
const extensions: TransactionsServerExtension[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  for (const extension of extensions.splice(0)) extension.stop();
  await Promise.all(open.splice(0).map((pair) => pair.close()));
});

async function rig(world: World, clock: { now: number }, store: Store = new MemoryStore()) {
  const tx = transactionsServer({ compensations: worldCompensations(world), sweepIntervalMs: 0, now: () => clock.now });
  extensions.push(tx);
  const pair = await createTestPair({
    line: 'v1',
    serverExtensions: [errorsServer(), idempotencyServer(), tx],
    clientExtensions: [errorsClient(), idempotencyClient(), transactionsClient()],
    serverOptions: { store, logger: silentLogger },
    setup: (server) => {
      registerWorldTools(server, world);
    },
  });
  open.push(pair);
  return { pair, tx, store };
}

function warned(spy: { mock: { calls: unknown[][] } }): string[] {
  return spy.mock.calls.flatMap(([message]) => {
    const name = /"(\w+)" is deprecated/.exec(String(message))?.[1];
    return name === undefined ? [] : [name];
  });
}

describe('deprecated snake_case spellings (0.1)', () => {
  it('TXN-16: sweep report entries still answer transaction_id, warning once', async () => {
    const emitted = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    const clock = { now: Date.parse('2026-03-15T10:00:00Z') };
    const { pair, tx, store } = await rig(createWorld(), clock);
    for (const id of ['tx-a', 'tx-b']) {
      const transaction = await beginTransaction(pair.client, { transactionId: id, timeoutSeconds: 30 });
      await transaction.callTool('create_ticket', { title: id });
    }
    clock.now += 31_000;
    const report = await tx.sweep(store);
    expect(report.rolledBack.map((entry) => [entry.transactionId, entry.transaction_id])).toEqual([
      ['tx-a', 'tx-a'],
      ['tx-b', 'tx-b'],
    ]);
    expect(warned(emitted)).toEqual(['transaction_id']);
  });

  it('TXN-20: saga participants still answer transaction_id and steps_compensated, warning once each', async () => {
    const emitted = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    const world = createWorld();
    const clock = { now: Date.parse('2026-03-15T10:00:00Z') };
    const a = await rig(world, clock);
    const b = await rig(world, clock);
    const outcome = await runSaga(
      [
        { client: a.pair.client, tool: 'create_ticket', arguments: { title: 'A' } },
        { client: b.pair.client, tool: 'post_message', arguments: { text: 'x', fail: true } },
      ],
      { idPrefix: 'saga-old' },
    );
    expect(outcome.status).toBe('rolled_back');
    const first = outcome.participants[0];
    expect(first?.transaction_id).toBe(first?.transactionId);
    expect(first?.transactionId).toMatch(/^saga-old/);
    expect(first?.steps_compensated).toBe(first?.stepsCompensated);
    expect(first?.stepsCompensated?.map((step) => step.status)).toEqual(['compensated']);
    expect(Object.keys(first ?? {})).not.toContain('transaction_id');
    expect(warned(emitted).sort()).toEqual(['steps_compensated', 'transaction_id']);
  });
});

/**
 * Recovery at startup (TXN-22): a saga left active past its timeout in a real
 * SQLite file is rolled back by the next server started on that file as soon
 * as the server is extended, before any client sends anything.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StoreUnavailableError, type Logger, type Store } from '@ext/core';
import { extendServer } from '@ext/core/sdk-v1';
import { createTestPair } from '@ext/core/testing';
import { errorsClient } from '@ext/errors/client';
import { errorsServer } from '@ext/errors/server';
import { idempotencyClient } from '@ext/idempotency/client';
import { idempotencyServer } from '@ext/idempotency/server';
import { createSqliteStore } from '@ext/store-sqlite';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { beginTransaction, transactionsClient } from './client.js';
import { transactionsServer, type TransactionsServerExtension } from './server.js';
import { createWorld, registerWorldTools, worldCompensations, type World } from './test-fixtures/world.js';

const HOUR_MS = 3_600_000;

describe('@ext/transactions recovery at startup', () => {
  let dir: string;
  const started: TransactionsServerExtension[] = [];
  const closing: { close(): Promise<void> }[] = [];

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'transactions-startup-'));
  });

  afterEach(async () => {
    for (const extension of started.splice(0)) extension.stop();
    for (const item of closing.splice(0).reverse()) await item.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** A first run of the server that begins a saga with one step, then stops without settling it. */
  async function leaveSagaActive(path: string, world: World): Promise<void> {
    const store = createSqliteStore({ path, sweepIntervalMs: 0 });
    const tx = transactionsServer({ compensations: worldCompensations(world), sweepIntervalMs: 0 });
    const pair = await createTestPair({
      line: 'v1',
      serverExtensions: [errorsServer(), idempotencyServer(), tx],
      clientExtensions: [errorsClient(), idempotencyClient(), transactionsClient()],
      serverOptions: { store },
      setup: (server) => {
        registerWorldTools(server, world);
      },
    });
    const transaction = await beginTransaction(pair.client, { transactionId: 'tx-left-behind', timeoutSeconds: 60 });
    await transaction.callTool('create_ticket', { title: 'A' });
    await pair.close();
    await store.close();
  }

  it('TXN-22: a new server on the file rolls back the timed-out saga when it is extended, with no request', async () => {
    const path = join(dir, 'state.db');
    const world = createWorld();
    await leaveSagaActive(path, world);
    expect(world.tickets.size).toBe(1);
    expect(world.undone).toEqual([]);

    // The second run starts an hour later: past the saga's timeout.
    const store = createSqliteStore({ path, sweepIntervalMs: 0 });
    closing.push(store);
    const warnings: string[] = [];
    const logger: Logger = { warn: (message) => warnings.push(message) };
    const tx = transactionsServer({ compensations: worldCompensations(world), now: () => Date.now() + HOUR_MS });
    started.push(tx);
    const server = new McpServer({ name: 'restarted', version: '0.0.0' });
    extendServer(server, [errorsServer(), idempotencyServer(), tx], { store, logger });
    // No client connects: the compensation must run on its own.
    await vi.waitFor(
      () => {
        expect(world.undone).toEqual(['create_ticket:T-1']);
      },
      { timeout: 5000, interval: 20 },
    );
    expect(world.tickets.size).toBe(0);
    expect(warnings).toEqual([]);
    // Nothing is left to recover: the record says rolled back.
    expect(await tx.sweep(store)).toEqual({ rolledBack: [], resumed: [], failed: [] });
  });

  it('TXN-22: with sweepIntervalMs 0 nothing runs by itself (the operator calls start or sweep)', async () => {
    const path = join(dir, 'state.db');
    const world = createWorld();
    await leaveSagaActive(path, world);
    const store = createSqliteStore({ path, sweepIntervalMs: 0 });
    closing.push(store);
    const tx = transactionsServer({
      compensations: worldCompensations(world),
      sweepIntervalMs: 0,
      now: () => Date.now() + HOUR_MS,
    });
    extendServer(new McpServer({ name: 'restarted', version: '0.0.0' }), [errorsServer(), idempotencyServer(), tx], {
      store,
    });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(world.undone).toEqual([]);
    const report = await tx.start(store);
    expect(report.rolledBack).toEqual([
      expect.objectContaining({ transactionId: 'tx-left-behind', status: 'rolled_back' }),
    ]);
    expect(world.undone).toEqual(['create_ticket:T-1']);
  });

  it('TXN-22: a store outage at startup is left to the store to log, not repeated by every sweeper pass', async () => {
    // Every operation fails as a store in an outage does.
    const outage = (): Promise<never> => Promise.reject(new StoreUnavailableError({ reason: 'unreachable' }));
    const down: Store = {
      get: outage,
      set: outage,
      setIfAbsent: outage,
      compareAndSet: outage,
      delete: outage,
      increment: outage,
      append: outage,
      read: outage,
      publish: outage,
      subscribe: outage,
      close: () => Promise.resolve(),
    };
    const warnings: string[] = [];
    const debug: string[] = [];
    const logger: Logger = { warn: (message) => warnings.push(message), debug: (message) => debug.push(message) };
    const tx = transactionsServer({ compensations: worldCompensations(createWorld()), sweepIntervalMs: 20 });
    started.push(tx);
    extendServer(new McpServer({ name: 'restarted', version: '0.0.0' }), [errorsServer(), idempotencyServer(), tx], {
      store: down,
      logger,
    });
    await vi.waitFor(() => {
      expect(debug.length).toBeGreaterThan(2);
    });
    expect(warnings).toEqual([]);
  });
});

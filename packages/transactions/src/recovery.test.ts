/**
 * Durability across a crash (TXN-18): a real server process on a SQLite file
 * is killed with SIGKILL, a new process is started on the same file, and the
 * log is finished without applying anything twice.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ExtendedClient } from '@ext/core';
import { extendClient } from '@ext/core/sdk-v1';
import { errorsClient } from '@ext/errors/client';
import { idempotencyClient } from '@ext/idempotency/client';
import { createSqliteStore } from '@ext/store-sqlite';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { build } from 'esbuild';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { beginTransaction, transactionsClient } from './client.js';

const here = dirname(fileURLToPath(import.meta.url));
// Inside the package so the bundle's bare imports resolve from its node_modules.
const bundle = join(here, '..', 'node_modules', '.cache', 'transactions-tests', 'crash-server.mjs');
let workdir: string;

beforeAll(async () => {
  await build({
    entryPoints: [join(here, 'test-fixtures', 'crash-server.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    outfile: bundle,
    logLevel: 'silent',
  });
  workdir = mkdtempSync(join(tmpdir(), 'transactions-recovery-'));
}, 60_000);

afterAll(() => {
  rmSync(workdir, { recursive: true, force: true });
});

interface Running {
  client: ExtendedClient;
  pid: number;
  /** Resolves with the first stderr line starting with `prefix`. */
  line(prefix: string): Promise<string>;
  kill(): Promise<void>;
  close(): Promise<void>;
}

const running: Running[] = [];

afterEach(async () => {
  for (const server of running.splice(0)) await server.close();
});

async function startServer(db: string, env: Record<string, string> = {}): Promise<Running> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [bundle],
    env: { PATH: process.env.PATH ?? '', TXN_DB: db, ...env },
    stderr: 'pipe',
  });
  let buffer = '';
  const waiters: { prefix: string; resolve: (line: string) => void }[] = [];
  const check = (): void => {
    for (const line of buffer.split('\n')) {
      for (const waiter of [...waiters]) {
        if (line.startsWith(waiter.prefix)) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve(line.slice(waiter.prefix.length).trim());
        }
      }
    }
  };
  transport.stderr?.on('data', (chunk: Buffer) => {
    buffer += chunk.toString('utf8');
    check();
  });
  const sdk = new Client({ name: 'recovery-test', version: '0.0.0' });
  const client = extendClient(sdk, [errorsClient(), idempotencyClient(), transactionsClient()]);
  await sdk.connect(transport);
  const pid = transport.pid;
  if (pid === null) throw new Error('the server process did not start');
  let exited = false;
  const server: Running = {
    client,
    pid,
    line: (prefix) =>
      new Promise((resolve) => {
        waiters.push({ prefix, resolve });
        check();
      }),
    kill: async () => {
      process.kill(pid, 'SIGKILL');
      exited = true;
      await sdk.close();
    },
    close: async () => {
      if (!exited) await sdk.close();
    },
  };
  running.push(server);
  return server;
}

function inspect(db: string): {
  runs: (step: string) => Promise<number>;
  effects: (step: string) => Promise<number>;
  ticket: (id: string) => Promise<unknown>;
  undone: () => Promise<unknown[]>;
  close: () => Promise<void>;
} {
  const store = createSqliteStore({ path: db, sweepIntervalMs: 0 });
  const count = async (key: string): Promise<number> => {
    const value = await store.get(key);
    return typeof value === 'number' ? value : 0;
  };
  return {
    runs: (step) => count(`world:runs:${step}`),
    effects: (step) => count(`world:effects:${step}`),
    ticket: (id) => store.get(`world:ticket:${id}`),
    undone: async () => (await store.read('world:undone')).map((entry) => entry.value),
    close: () => store.close(),
  };
}

const LATER = String(10 * 60 * 1000);

describe('recovery after a crash (real process, SQLite file)', () => {
  it('TXN-18: a transaction left active by a killed server is rolled back by the restarted one, once', async () => {
    const db = join(workdir, 'idle.db');
    const first = await startServer(db);
    expect(await first.line('RECOVERY')).toBe(JSON.stringify({ rolledBack: [], resumed: [], failed: [] }));
    const transaction = await beginTransaction(first.client, { transactionId: 'tx-crash', timeoutSeconds: 60 });
    await transaction.callTool('create_ticket', { title: 'one' });
    await transaction.callTool('create_ticket', { title: 'two' });
    await first.kill();

    const before = inspect(db);
    expect(await before.ticket('T-1')).toBe('one');
    expect(await before.ticket('T-2')).toBe('two');
    await before.close();

    // Restarted ten minutes later: the transaction has timed out and recovery rolls it back.
    const second = await startServer(db, { TXN_CLOCK_OFFSET_MS: LATER });
    const report = JSON.parse(await second.line('RECOVERY')) as {
      rolledBack: { transactionId: string; status: string }[];
    };
    expect(report.rolledBack).toEqual([{ principal: 'local', transactionId: 'tx-crash', status: 'rolled_back' }]);
    const status = await second.client.request('io.github.mcp-ext/transactions/status', { transaction_id: 'tx-crash' });
    expect(status).toMatchObject({
      status: 'rolled_back',
      steps: [
        { step_id: 'step-1', status: 'compensated' },
        { step_id: 'step-2', status: 'compensated' },
      ],
    });
    await second.close();

    // A third start finds nothing left to do.
    const third = await startServer(db, { TXN_CLOCK_OFFSET_MS: String(20 * 60 * 1000) });
    expect(JSON.parse(await third.line('RECOVERY'))).toMatchObject({ rolledBack: [], resumed: [] });
    await third.close();

    const after = inspect(db);
    expect(await after.undone()).toEqual(['T-2', 'T-1']);
    for (const step of ['step-1', 'step-2']) {
      expect(await after.runs(step)).toBe(1);
      expect(await after.effects(step)).toBe(1);
    }
    expect(await after.ticket('T-1')).toBeUndefined();
    await after.close();
  }, 60_000);

  it('TXN-14/TXN-18: a rollback killed mid-compensation is finished after restart; nothing is applied twice', async () => {
    const db = join(workdir, 'mid-rollback.db');
    const first = await startServer(db, { TXN_HANG_ON: 'two' });
    await first.line('READY');
    const transaction = await beginTransaction(first.client, { transactionId: 'tx-mid' });
    await transaction.callTool('create_ticket', { title: 'one' });
    await transaction.callTool('create_ticket', { title: 'two' });
    await transaction.callTool('create_ticket', { title: 'three' });
    // The rollback compensates step-3, then hangs inside step-2's compensation after its effect.
    const pending = transaction.rollback().catch((error: unknown) => error);
    expect(await first.line('HANGING')).toBe('step-2');
    await first.kill();
    await pending;

    const mid = inspect(db);
    expect(await mid.runs('step-3')).toBe(1);
    expect(await mid.runs('step-2')).toBe(1);
    expect(await mid.runs('step-1')).toBe(0);
    await mid.close();

    // Past the dead run's lease, the restarted server takes the rollback over.
    const second = await startServer(db, { TXN_CLOCK_OFFSET_MS: LATER });
    const report = JSON.parse(await second.line('RECOVERY')) as {
      resumed: { transactionId: string; status: string }[];
    };
    expect(report.resumed).toEqual([{ principal: 'local', transactionId: 'tx-mid', status: 'rolled_back' }]);
    const status = await second.client.request('io.github.mcp-ext/transactions/status', { transaction_id: 'tx-mid' });
    expect(status).toMatchObject({ status: 'rolled_back' });
    await second.close();

    const after = inspect(db);
    // step-3 finished before the crash and is not run again; step-2 is re-run under the same key, with no second effect.
    expect(await after.runs('step-3')).toBe(1);
    expect(await after.runs('step-2')).toBe(2);
    expect(await after.effects('step-2')).toBe(1);
    expect(await after.runs('step-1')).toBe(1);
    expect(await after.undone()).toEqual(['T-3', 'T-2', 'T-1']);
    await after.close();
  }, 60_000);
});

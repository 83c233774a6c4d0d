/**
 * Tasks kept in a real SQLite file outlive the server that ran them: a
 * server closed (store included) and a new one opened on the same file
 * answer for them alike, and their TTL still counts from their creation.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Store } from '@ext/core';
import { createSqliteStore } from '@ext/store-sqlite';
import { afterEach, describe, expect, it } from 'vitest';
import { getTask, pollTask } from './client.js';
import type { TasksServerOptions } from './options.js';
import { createTask, rpcClient, rpcError, serveTasks, sleep, storedRecord, type Served } from './test-support.js';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

/** A fresh database file in a temporary directory of its own, removed after the test. */
async function databaseFile(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'tasks-sqlite-'));
  cleanup.push(() => rm(dir, { recursive: true, force: true }));
  return join(dir, 'tasks.db');
}

interface Restartable extends Served {
  readonly store: Store;
  stop(): Promise<void>;
}

/** A server over the file at `path`; `stop()` closes the server, then its store (a restart's first half). */
async function open(path: string, options: TasksServerOptions = {}): Promise<Restartable> {
  const store = createSqliteStore({ path });
  const served = await serveTasks(store, options);
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await served.close();
    await store.close();
  };
  cleanup.push(stop);
  return { ...served, store, stop };
}

describe('tasks in a SQLite file, across a server restart', () => {
  it('TASK-6 TASK-8: a completed task reads the same, result included, on a new server over the same file', async () => {
    const path = await databaseFile();
    const first = await open(path);
    const task = await createTask(rpcClient(first.url, 'alice'), 'slow_compute', { ms: 10 });
    const before = await pollTask(rpcClient(first.url, 'alice'), task.taskId);
    expect(before.result).toEqual({ resultType: 'complete', content: [{ type: 'text', text: 'computed in 10 ms' }] });
    await first.stop();

    const second = await open(path);
    expect(await getTask(rpcClient(second.url, 'alice'), task.taskId)).toEqual(before);
    const stranger = await rpcError(getTask(rpcClient(second.url, 'mallory'), task.taskId));
    expect(stranger.code).toBe(-32602);
  });

  it('TASK-7: the TTL still counts from creation after a restart: readable before it runs out, gone after', async () => {
    const path = await databaseFile();
    const ttlMs = 2000;
    const first = await open(path, { ttlMs });
    const task = await createTask(rpcClient(first.url, 'alice'), 'slow_compute', { ms: 10 });
    expect((await pollTask(rpcClient(first.url, 'alice'), task.taskId)).status).toBe('completed');
    await first.stop();

    // Restarted halfway through the TTL: a TTL counted from the restart would keep the task past its end.
    const createdAt = Date.parse(task.createdAt);
    await sleep(createdAt + ttlMs / 2 - Date.now());
    const second = await open(path, { ttlMs });
    const alice = rpcClient(second.url, 'alice');
    expect(await getTask(alice, task.taskId)).toMatchObject({ status: 'completed', ttlMs });
    expect(await storedRecord(second.store, task.taskId)).toBeDefined();

    await sleep(createdAt + ttlMs + 50 - Date.now());
    expect((await rpcError(getTask(alice, task.taskId))).code).toBe(-32602);
    expect(await storedRecord(second.store, task.taskId)).toBeUndefined();
  });
});

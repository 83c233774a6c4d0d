/**
 * Two server instances (two HTTP servers, each its own composition and its
 * own connection) sharing one real Redis, started by this file: a task
 * created on one is read, answered, cancelled and expired through the other.
 */
import { randomUUID } from 'node:crypto';
import type { Store } from '@ext/core';
import { redisServerUnavailable, startRedisServer, type RedisServerProcess } from '@ext/core/testing';
import { createRedisStore } from '@ext/store-redis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cancelTask, getTask, pollTask, updateTask, type DetailedTask } from './client.js';
import type { TasksServerOptions } from './options.js';
import {
  createTask,
  rpcClient,
  rpcError,
  serveTasks,
  sleep,
  storedRecord,
  waitFor,
  type Served,
} from './test-support.js';

interface Instances {
  readonly a: Served;
  readonly b: Served;
  /** Instance A's own connection to the Redis. */
  readonly storeA: Store;
}

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

/** A connection of an instance's own; instances given the same prefix share their state. */
async function connect(url: string, keyPrefix: string): Promise<Store> {
  const store = await createRedisStore({ url, keyPrefix, connectTimeoutMs: 2000, commandTimeoutMs: 10_000 });
  cleanup.push(() => store.close());
  return store;
}

async function instance(store: Store, options: TasksServerOptions): Promise<Served> {
  const served = await serveTasks(store, options);
  cleanup.push(async () => {
    served.held.releaseAll();
    await served.close();
  });
  return served;
}

/** Instances A and B on the Redis at `url`, under a key prefix of this test's own. */
async function twoInstances(url: string, options: TasksServerOptions = {}): Promise<Instances> {
  const keyPrefix = `tasks-e2e:${randomUUID()}:`;
  const storeA = await connect(url, keyPrefix);
  const storeB = await connect(url, keyPrefix);
  return { a: await instance(storeA, options), b: await instance(storeB, options), storeA };
}

const missing = redisServerUnavailable();

if (missing !== undefined) {
  describe.skip(`tasks on Redis: skipped because ${missing} (these tests start their own redis-server)`, () => {
    it('proves tasks across two server instances sharing one Redis', () => undefined);
  });
} else {
  describe('tasks shared by two server instances through one Redis', () => {
    let redis: RedisServerProcess;
    beforeAll(async () => {
      redis = await startRedisServer();
    });
    afterAll(() => redis.close());

    it('TASK-4 TASK-6: a task created on A is read on B, and polled on B to completed with its result inlined', async () => {
      const { a, b } = await twoInstances(redis.url);
      const task = await createTask(rpcClient(a.url, 'alice'), 'held', { label: 'report' });
      const viaB = rpcClient(b.url, 'alice');
      expect(await getTask(viaB, task.taskId)).toMatchObject({ taskId: task.taskId, status: 'working' });
      await waitFor(() => a.held.log.includes('report:started'));
      a.held.release('report');
      const done = await pollTask(viaB, task.taskId);
      expect(done).toMatchObject({ status: 'completed', createdAt: task.createdAt });
      expect(done.result).toEqual({ resultType: 'complete', content: [{ type: 'text', text: 'released report' }] });
      expect(await getTask(rpcClient(a.url, 'alice'), task.taskId)).toEqual(done);
    });

    it('TASK-9: input_required raised by the handler on A is answered with tasks/update on B, and A resumes', async () => {
      const { a, b } = await twoInstances(redis.url);
      const task = await createTask(rpcClient(a.url, 'alice'), 'confirm');
      const viaB = rpcClient(b.url, 'alice');
      let asked: DetailedTask | undefined;
      await waitFor(async () => (asked = await getTask(viaB, task.taskId)).status === 'input_required');
      expect(Object.keys(asked?.inputRequests ?? {}).sort()).toEqual(['why', 'yes']);
      await updateTask(viaB, task.taskId, { yes: { action: 'accept' }, why: { action: 'decline' } });
      const done = await pollTask(viaB, task.taskId);
      expect(done.status).toBe('completed');
      expect(JSON.parse((done.result?.content as { text: string }[])[0]?.text ?? '')).toEqual({
        yes: { action: 'accept' },
        why: { action: 'decline' },
      });
    });

    it('TASK-5 TASK-16: tasks/cancel on B aborts the handler on A; its late result leaves the task cancelled', async () => {
      const { a, b } = await twoInstances(redis.url);
      const task = await createTask(rpcClient(a.url, 'alice'), 'held', { label: 'late' });
      await waitFor(() => a.held.log.includes('late:started'));
      const viaA = rpcClient(a.url, 'alice');
      const viaB = rpcClient(b.url, 'alice');
      await cancelTask(viaB, task.taskId);
      await waitFor(() => a.held.log.includes('late:aborted'));
      const cancelled = await getTask(viaB, task.taskId);
      expect(cancelled.status).toBe('cancelled');

      a.held.release('late');
      await waitFor(() => a.held.log.includes('late:returned'));
      // The late outcome is recorded (or not) right after the return: several polls on each side must
      // all still see the cancelled task exactly as it was.
      for (let poll = 0; poll < 5; poll++) {
        expect(await getTask(viaA, task.taskId)).toEqual(cancelled);
        expect(await getTask(viaB, task.taskId)).toEqual(cancelled);
        await sleep(cancelled.pollIntervalMs ?? 20);
      }
    });

    it('TASK-8: another principal gets -32602 for get, update and cancel on either instance', async () => {
      const { a, b } = await twoInstances(redis.url);
      const task = await createTask(rpcClient(a.url, 'alice'), 'held', { label: 'private' });
      for (const served of [a, b]) {
        const mallory = rpcClient(served.url, 'mallory');
        for (const attempt of [
          getTask(mallory, task.taskId),
          updateTask(mallory, task.taskId, { yes: { action: 'accept' } }),
          cancelTask(mallory, task.taskId),
        ]) {
          const error = await rpcError(attempt);
          expect(error.code).toBe(-32602);
          expect(error.message).toBe(`Unknown task: ${task.taskId}`);
        }
      }
      const viaB = rpcClient(b.url, 'alice');
      expect((await getTask(viaB, task.taskId)).status).toBe('working');
      expect(a.held.log).not.toContain('private:aborted');
      a.held.release('private');
      expect((await pollTask(viaB, task.taskId)).status).toBe('completed');
    });

    it('TASK-7: a short-TTL task is readable on both instances until its TTL, then gone on both and in Redis', async () => {
      const ttlMs = 1500;
      const { a, b, storeA } = await twoInstances(redis.url, { ttlMs });
      const task = await createTask(rpcClient(a.url, 'alice'), 'slow_compute', { ms: 10 });
      expect(task.ttlMs).toBe(ttlMs);
      expect((await pollTask(rpcClient(b.url, 'alice'), task.taskId)).status).toBe('completed');
      expect((await getTask(rpcClient(a.url, 'alice'), task.taskId)).status).toBe('completed');
      expect(await storedRecord(storeA, task.taskId)).toBeDefined();

      await sleep(Date.parse(task.createdAt) + ttlMs + 50 - Date.now());
      for (const served of [a, b]) {
        const error = await rpcError(getTask(rpcClient(served.url, 'alice'), task.taskId));
        expect(error.code).toBe(-32602);
      }
      expect(await storedRecord(storeA, task.taskId)).toBeUndefined();
    });
  });
}

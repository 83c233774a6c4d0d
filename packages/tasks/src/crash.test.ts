/**
 * A server killed with SIGKILL while a task runs, and a new server started
 * on the same SQLite file: by the tool's `onInterrupt` policy the task is
 * taken up again from its last streaming checkpoint, or failed as
 * interrupted; a task that finished before the crash is left as it was.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryStore } from '@ext/core';
import { silentLogger } from '@ext/core/kit';
import { createSqliteStore } from '@ext/store-sqlite';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { getTask, pollTask, type DetailedTask } from './client.js';
import { newTaskRecord, type TaskRecord } from './logic.js';
import { resolveOptions, type InterruptPolicy } from './options.js';
import { fixtureProgram, removeCompiled, startChild, type ChildServer } from './process-support.js';
import { createRecord, loadRecord, taskKey } from './records.js';
import { recoverIfOrphaned, type RunTool } from './recovery.js';
import { TASKS_ALIAS_ID } from './schema.js';
import { createTask, rpcClient, waitFor } from './test-support.js';

const LEASE_MS = 600;
const STEPS = 40;
const STEP_MS = 50;

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});
afterAll(removeCompiled);

async function databaseFile(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'tasks-crash-'));
  cleanup.push(() => rm(dir, { recursive: true, force: true }));
  return join(dir, 'tasks.db');
}

/** A crash-server process on the file at `path`, killed after the test. */
async function server(path: string, onInterrupt: InterruptPolicy, admitOnce = false): Promise<ChildServer> {
  const child = await startChild(await fixtureProgram('crash-server'), {
    path,
    onInterrupt,
    leaseMs: LEASE_MS,
    admitOnce,
  });
  cleanup.push(() => child.kill());
  return child;
}

/** The steps the task reported done so far (`tasks/get` `_meta`), 0 before the first. */
function stepsDone(task: DetailedTask): number {
  const progress = task._meta?.[TASKS_ALIAS_ID] as { done?: number } | undefined;
  return progress?.done ?? 0;
}

/** The task as the SQLite file holds it, read from this process. */
async function storedTask(path: string, taskId: string): Promise<TaskRecord> {
  const store = createSqliteStore({ path });
  try {
    return (await store.get(taskKey({ store, keyPrefix: 'tasks', now: Date.now }, taskId))) as unknown as TaskRecord;
  } finally {
    await store.close();
  }
}

function textOf(task: DetailedTask): string {
  return (task.result?.content as { text: string }[] | undefined)?.[0]?.text ?? '';
}

/** Runs a quick task to completion, then starts the slow one and kills the server once it saved `atLeast` steps. */
async function crashMidTask(first: ChildServer, atLeast: number) {
  const alice = rpcClient(first.url, 'alice');
  const finished = await pollTask(alice, (await createTask(alice, 'quick')).taskId);
  const task = await createTask(alice, 'count', { steps: STEPS, stepMs: STEP_MS });
  let seen = 0;
  await waitFor(async () => (seen = stepsDone(await getTask(alice, task.taskId))) >= atLeast);
  await first.kill();
  return { finished, taskId: task.taskId, seen };
}

describe('a task whose server was killed (SIGKILL), on a SQLite file', () => {
  it('TASK-19 TASK-20: "resume": a new server takes it up once, from its last checkpoint, and completes it', async () => {
    const path = await databaseFile();
    const first = await server(path, 'resume');
    const { finished, taskId, seen } = await crashMidTask(first, 3);
    expect(first.events.filter((event) => event.event === 'start')).toEqual([{ event: 'start', from: 0 }]);

    const second = await server(path, 'resume');
    const alice = rpcClient(second.url, 'alice');
    const done = await pollTask(alice, taskId);
    expect(done.status).toBe('completed');
    const report = JSON.parse(textOf(done)) as { from: number; steps: number; resumed: boolean; pid: number };
    // Started from the checkpoint saved before the kill (the step it had reached, or later), not from zero.
    expect(report.from).toBeGreaterThanOrEqual(seen);
    expect(report.from).toBeLessThan(STEPS);
    expect(report).toMatchObject({ steps: STEPS, resumed: true, pid: second.pid });
    // One execution after the restart: one handler start on the new server, two executions in all.
    expect(second.events.filter((event) => event.event === 'start')).toEqual([{ event: 'start', from: report.from }]);
    expect(await storedTask(path, taskId)).toMatchObject({ executions: 2, checkpoint: { next: STEPS } });
    // The task that had finished before the crash reads as it did.
    expect(await getTask(alice, finished.taskId)).toEqual(finished);
  });

  it('TASK-20: a resumption that a stage outside the tasks stage refuses fails the task, never leaves it working', async () => {
    const path = await databaseFile();
    const first = await server(path, 'resume', true);
    const { taskId } = await crashMidTask(first, 1);

    const second = await server(path, 'resume', true);
    const alice = rpcClient(second.url, 'alice');
    const failed = await pollTask(alice, taskId);
    expect(failed.status).toBe('failed');
    expect(failed.error).toMatchObject({ code: -32603, data: { reason: 'refused_on_resume', taskId } });
    expect(failed.error?.message).toContain('count runs once per caller');
    expect(second.events.filter((event) => event.event === 'start')).toEqual([]);
    expect(await storedTask(path, taskId)).toMatchObject({ status: 'failed', executions: 2 });
  });

  it('TASK-19: "fail": the new server fails it as interrupted; a task finished before the crash stays completed', async () => {
    const path = await databaseFile();
    const first = await server(path, 'fail');
    const { finished, taskId } = await crashMidTask(first, 1);

    const second = await server(path, 'fail');
    const alice = rpcClient(second.url, 'alice');
    const failed = await pollTask(alice, taskId);
    expect(failed.status).toBe('failed');
    expect(failed.error).toMatchObject({ code: -32603, data: { reason: 'interrupted', taskId } });
    expect(failed).not.toHaveProperty('result');
    expect(second.events.filter((event) => event.event === 'start')).toEqual([]);
    expect(finished).toMatchObject({
      status: 'completed',
      result: { content: [{ type: 'text', text: 'done at once' }] },
    });
    expect(await getTask(alice, finished.taskId)).toEqual(finished);
  });
});

describe('taking up an interrupted task on one instance', () => {
  it('TASK-20: two readers at once (the startup scan and a tasks/get, say) run it again once, not twice', async () => {
    const config = resolveOptions({ onInterrupt: { count: 'resume' }, leaseMs: LEASE_MS });
    const scope = { store: new MemoryStore(), keyPrefix: 'tasks', now: Date.now };
    const now = Date.now();
    const fields = { taskId: 't1', principal: 'alice', tool: 'count', now, ttlMs: 60_000, pollIntervalMs: 20 };
    await createRecord(scope, {
      ...newTaskRecord(fields),
      call: { arguments: { steps: 3 }, source: 'custom' },
      lease: { owner: 'a stopped instance', until: now - 1 },
      executions: 1,
    });
    const runs: string[] = [];
    const runTool: RunTool = (call) => {
      runs.push(call.name);
      return new Promise(() => undefined);
    };
    const orphan = (await loadRecord(scope, 't1'))!;
    await Promise.all([
      recoverIfOrphaned(config, scope, orphan, runTool, silentLogger),
      recoverIfOrphaned(config, scope, orphan, runTool, silentLogger),
    ]);
    expect(runs).toEqual(['count']);
    expect(await loadRecord(scope, 't1')).toMatchObject({ executions: 2, lease: { owner: config.instance } });
  });
});

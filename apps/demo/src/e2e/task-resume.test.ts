/**
 * An export running as a task when its server is killed (SIGKILL) and started
 * again on the same SQLite file and port: the restarted server takes the task
 * up from its last checkpoint without charging the caller's quota a second
 * time, and completes it, even when the quota is spent to its last unit.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import {
  freshTrackerOptions,
  startRestartableTracker,
  type ChildTrackerOptions,
  type RestartableTracker,
} from '../server/child-tracker.js';
import { taskLink, TaskLinkError, type TaskLink } from '../client/task-link.js';
import { EXPORT_QUOTA } from '../tools/tool-limits.js';

const TICKETS = 12;
const PACE_MS = 150;
/** How long a task may take to end before a test gives up on it. */
const POLL_LIMIT_MS = 45_000;

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

/** A tracker on a SQLite file of its own, stopped after the test, that `restart` kills and starts again. */
async function trackerOnFile(): Promise<{ tracker: RestartableTracker; options: ChildTrackerOptions }> {
  const dir = mkdtempSync(join(tmpdir(), 'task-resume-'));
  cleanup.push(() => {
    rmSync(dir, { recursive: true, force: true });
  });
  const options = freshTrackerOptions(new URL('../../dist/http.js', import.meta.url), join(dir, 'tracker.db'), PACE_MS);
  const tracker = await startRestartableTracker(options);
  cleanup.push(() => tracker.stop());
  return { tracker, options };
}

type Task = Record<string, unknown> & { readonly status?: string };

async function startExport(link: TaskLink): Promise<string> {
  const created = await link.request('tools/call', { name: 'export_report', arguments: {} });
  expect(created).toMatchObject({ resultType: 'task', status: 'working' });
  return String(created.taskId);
}

function rowsDone(task: Task): number {
  const meta = (task._meta as Record<string, { done?: number }> | undefined)?.['io.github.mcp-ext/tasks'];
  return meta?.done ?? 0;
}

/** Polls `tasks/get` until the task ends; a server that is down meanwhile is asked again. */
async function settled(link: TaskLink, taskId: string): Promise<Task> {
  const deadline = Date.now() + POLL_LIMIT_MS;
  let last: Task | undefined;
  while (Date.now() < deadline) {
    try {
      last = await link.request('tasks/get', { taskId });
      if (last.status !== 'working' && last.status !== 'input_required') return last;
    } catch (error) {
      if (error instanceof TaskLinkError) throw error;
    }
    await sleep(100);
  }
  throw new Error(`task ${taskId} did not end within ${String(POLL_LIMIT_MS)} ms; last seen ${JSON.stringify(last)}`);
}

/** Kills the tracker once the task wrote a few rows, starts it again, and polls the task to its end. */
async function crashAndSettle(tracker: RestartableTracker, link: TaskLink, taskId: string) {
  const deadline = Date.now() + POLL_LIMIT_MS;
  while (rowsDone(await link.request('tasks/get', { taskId })) < 3) {
    if (Date.now() > deadline) throw new Error('the export made no progress');
    await sleep(50);
  }
  await tracker.restart();
  return settled(link, taskId);
}

/** The caller's quota standing for export_report, read without spending any. */
async function quotaUsed(link: TaskLink): Promise<number> {
  const status = await link.request('io.github.mcp-ext/cost/status', { tools: ['export_report'] });
  const tools = status.tools as { quota?: { used?: number } }[];
  return tools[0]?.quota?.used ?? Number.NaN;
}

async function seedTickets(link: TaskLink): Promise<void> {
  for (let index = 1; index <= TICKETS; index += 1)
    await link.request('tools/call', { name: 'create_ticket', arguments: { title: `Chore ${String(index)}` } });
}

describe('an export task taken up again after its server was killed (SIGKILL) and restarted on its SQLite file', () => {
  it('is charged once: one export, one unit of the quota', async () => {
    const { tracker, options } = await trackerOnFile();
    const bob = () => taskLink({ url: tracker.current.url, token: options.tokens.bob });
    await seedTickets(bob());
    const taskId = await startExport(bob());
    const done = await crashAndSettle(tracker, bob(), taskId);
    expect(done).toMatchObject({ status: 'completed' });
    expect(JSON.stringify(done.result)).toContain(`"rows":${String(TICKETS)}`);
    expect(await quotaUsed(bob())).toBe(1);
  });

  it('completes with the quota spent to its last unit, which the task itself had paid', async () => {
    const { tracker, options } = await trackerOnFile();
    const bob = () => taskLink({ url: tracker.current.url, token: options.tokens.bob });
    await seedTickets(bob());
    const earlier = await Promise.all(Array.from({ length: EXPORT_QUOTA - 1 }, () => startExport(bob())));
    for (const taskId of earlier) expect(await settled(bob(), taskId)).toMatchObject({ status: 'completed' });
    const taskId = await startExport(bob());
    const done = await crashAndSettle(tracker, bob(), taskId);
    expect(done).toMatchObject({ status: 'completed' });
    expect(await quotaUsed(bob())).toBe(EXPORT_QUOTA);
    // The quota really is spent: the next export is refused, not run.
    const refused = await bob().request('tools/call', { name: 'export_report', arguments: {} });
    expect(refused).toMatchObject({ isError: true });
    expect(JSON.stringify(refused.content)).toContain(`exhausted: ${String(EXPORT_QUOTA)} of ${String(EXPORT_QUOTA)}`);
  });
});

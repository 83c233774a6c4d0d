/**
 * Step 19 of the tour: export_report as an official MCP task
 * (`io.modelcontextprotocol/tasks`): polled to its inlined result, cancelled,
 * and taken up again from its last checkpoint by a server restarted after a
 * SIGKILL, on a tracker of its own in a child process over a SQLite file.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ExtendedClient } from '@ext/core';
import { TASKS_ALIAS_ID, TASKS_ID } from '@ext/tasks';
import {
  callTool,
  cancelTask,
  getTask,
  pollTask,
  tasksClient,
  type CreateTaskResult,
  type DetailedTask,
} from '@ext/tasks/client';
import { freshTrackerOptions, startRestartableTracker, type RestartableTracker } from '../server/child-tracker.js';
import { connect } from '../client/connect.js';
import { compact, dig } from './explain.js';
import { taskLink, type TaskLink } from '../client/task-link.js';
import { expect, ok, print, row, style, UnexpectedOutcome } from './output.js';
import type { TourTarget } from './target.js';

/** Pause between exported rows on this step's tracker: 16 rows take about three seconds. */
const PACE_MS = 200;
const TICKETS = 16;
/** How long a task may take to end before the step gives up on it. */
const POLL_LIMIT_MS = 60_000;

/** What the step talks through: the SDK client (Tasks declared) for tasks/get and tasks/cancel, the link for tools/call. */
interface TaskClients {
  readonly extended: ExtendedClient;
  readonly link: TaskLink;
}

/** The progress `_meta` of a `tasks/get` answer (working tasks only). */
function progressOf(task: DetailedTask): Record<string, unknown> | undefined {
  const meta = dig(task, '_meta', TASKS_ALIAS_ID);
  return typeof meta === 'object' && meta !== null ? (meta as Record<string, unknown>) : undefined;
}

/** One `tasks/get` answer on one line: status, status message, progress `_meta`, and what the step notes of it. */
function showPoll(task: DetailedTask, note = ''): void {
  const message = task.statusMessage === undefined ? '' : ` "${task.statusMessage}"`;
  const meta = progressOf(task);
  row('tasks/get', `${task.status}${message}${meta === undefined ? '' : ` ${compact(meta)}`}${note}`);
}

/** Calls export_report through the link, declaring Tasks; the server answers with a task at once. */
async function startExport(clients: TaskClients): Promise<CreateTaskResult> {
  const outcome = await callTool(clients.link, 'export_report', {});
  expect(outcome.kind === 'task', `export_report answered without a task: ${compact(outcome)}`);
  const { resultType, taskId, status, pollIntervalMs } = outcome.task;
  row('server -> client', compact({ resultType, taskId, status, pollIntervalMs }));
  return outcome.task;
}

/** The report a completed export task carries, in a line. */
function reportLine(task: DetailedTask): string {
  const report = dig(task.result, 'structuredContent', 'report');
  return `report ${String(dig(report, 'id'))}: ${String(dig(report, 'rows'))} rows, ${String(dig(report, 'bytes'))} bytes`;
}

/** Polls the task until it ends, printing each answer; resolves to every answer, the terminal one last. */
async function pollShowing(
  clients: TaskClients,
  taskId: string,
  note: (task: DetailedTask) => string = () => '',
): Promise<DetailedTask[]> {
  const seen: DetailedTask[] = [];
  const done = await pollTask(clients.extended, taskId, {
    signal: AbortSignal.timeout(POLL_LIMIT_MS),
    onStatus: (task) => {
      seen.push(task);
      showPoll(task, note(task));
    },
  }).catch((error: unknown) => {
    throw new UnexpectedOutcome(`the export task did not end: ${String(error)}`);
  });
  row('tasks/get', `${done.status}, the result inlined: ${reportLine(done)}`);
  expect(done.status === 'completed', `the export task ended ${done.status}`);
  expect(Number(dig(done.result, 'structuredContent', 'report', 'rows')) === TICKETS, 'the export lost rows');
  return [...seen, done];
}

/** Polls the export to completion; the result comes inlined in the last answer. */
async function pollToResult(clients: TaskClients): Promise<void> {
  row('client -> server', `tools/call export_report {}, declaring ${TASKS_ID} in the request's client capabilities`);
  const created = await startExport(clients);
  const seen = await pollShowing(clients, created.taskId);
  expect(
    seen.some((task) => typeof progressOf(task)?.done === 'number'),
    'no tasks/get answer carried the export progress',
  );
  ok('the call returned at once; tasks/get showed the rows as they were written, then carried the report.');
}

/** Starts a second export and cancels it at once. */
async function cancelExport(clients: TaskClients): Promise<void> {
  print();
  row('client -> server', 'tools/call export_report {} (a second export)');
  const created = await startExport(clients);
  await cancelTask(clients.extended, created.taskId);
  row('client -> server', 'tasks/cancel { taskId }');
  const after = await getTask(clients.extended, created.taskId);
  row('tasks/get', after.status);
  expect(after.status === 'cancelled', `the cancelled export is ${after.status}`);
  ok('the export stopped where it was, and the task says so to whoever reads it.');
}

/** Kills the server under a running export, starts it again on the same file and port, and polls on. */
async function resumeAfterRestart(clients: TaskClients, server: RestartableTracker): Promise<void> {
  print();
  row('client -> server', 'tools/call export_report {} (a third export)');
  const created = await startExport(clients);
  await sleep(created.pollIntervalMs ?? 1000);
  const before = await getTask(clients.extended, created.taskId);
  showPoll(before);
  expect(before.status === 'working', `the third export was ${before.status} before the restart`);
  const killed = await server.restart();
  row('server', `SIGKILL to pid ${String(killed)} mid-export: it closed nothing, and stopped renewing its lease`);
  row('', `started again (pid ${String(server.current.pid)}) on the same SQLite file and port`);
  const waiting = style.dim(' (the killed server still holds the lease)');
  const seen = await pollShowing(clients, created.taskId, (task) =>
    progressOf(task)?.resumed === true ? '' : waiting,
  );
  const resumed = seen.map(progressOf).find((meta) => meta?.resumed === true);
  expect(resumed?.executions === 2, 'no tasks/get answer said the export was resumed by a second execution');
  ok(
    'the new server found the lease lapsed and ran the export again from its last checkpoint: resumed: true, executions: 2.',
  );
}

/** The three exports, from a client on 2026-07-28 that declares Tasks, against the step's tracker. */
async function exportsAsTasks(server: RestartableTracker, token: string): Promise<void> {
  const { url } = server.current;
  const connection = await connect(
    { kind: 'http', url, token },
    { era: 'modern', extensions: [tasksClient()], name: 'tasks-client' },
  );
  try {
    const extended = connection.extended;
    expect(extended !== undefined, 'the tasks client has no extensions attached');
    const advertised = connection.client.getServerCapabilities()?.extensions ?? {};
    expect(TASKS_ID in advertised, `the tracker does not advertise ${TASKS_ID}`);
    for (let index = 1; index <= TICKETS; index += 1)
      await extended.callTool('create_ticket', { title: `Chore ${String(index)}` });
    row('', `${String(TICKETS)} tickets to export; the client declares ${TASKS_ID} on 2026-07-28`);
    const link = taskLink({ url, token, clientInfo: { name: 'tasks-client', version: '0.0.0' } });
    const clients = { extended, link };
    await pollToResult(clients);
    await cancelExport(clients);
    await resumeAfterRestart(clients, server);
  } finally {
    await connection.close();
  }
}

/** Export_report as a task: polled, cancelled, and resumed after a restart of its server. */
export async function tasksStep(tour: TourTarget, entry: URL): Promise<void> {
  if (tour.sdk === 'v1') {
    row('', style.dim('Tasks exist on the 2026-07-28 revision, which the v1 SDK does not speak: run the tour on v2.'));
    return;
  }
  // Over stdio the tour has no HTTP callers (`as`): each client spawns its own server.
  if (tour.as === undefined) {
    row('', style.dim('This step kills and restarts an HTTP tracker of its own: run the tour over HTTP to see it.'));
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), 'tracker-tasks-'));
  try {
    const options = freshTrackerOptions(entry, join(dir, 'tracker.db'), PACE_MS);
    const server = await startRestartableTracker(options);
    try {
      const { url, pid } = server.current;
      row('server', `a tracker of its own, pid ${String(pid)} at ${url.href}, on a SQLite file`);
      await exportsAsTasks(server, options.tokens.alice);
    } finally {
      await server.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  print();
  row(
    'what it means',
    'a long call need not hold a request open: the task lives in the store, any instance answers for it, and one that dies hands it over instead of losing it.',
  );
}

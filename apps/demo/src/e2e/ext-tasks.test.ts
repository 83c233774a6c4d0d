/**
 * The official client-side Tasks package, `@modelcontextprotocol/ext-tasks`,
 * driving the tracker on 2026-07-28 as any application using it would: an SDK
 * client adapted by the package's `createTaskSessionFromClient`, with the
 * demo's own JSON-RPC link (`taskLink`) as the raw path the package needs for
 * answers the SDK client refuses. `export_report` becomes a task the package
 * polls to its report and cancels; the official suite's `confirm_delete`
 * fixture asks its question during its task (`input_required`), which the
 * package hands to the application's input handler and answers with
 * `tasks/update`. Nothing adapts what the server sends.
 */
import { isRecord, silentLogger } from '@ext/core/kit';
import type { JsonValue } from '@modelcontextprotocol/ext-tasks/core';
import { CallToolResultV2Schema } from '@modelcontextprotocol/ext-tasks/core/v2';
import {
  DispatchError,
  TaskCancelledError,
  createApplicationInputHandler,
  createTaskSessionFromClient,
  resultFromTaskOutcome,
  type ApplicationElicitResult,
  type ApplicationInputHandler,
  type RawClientDispatch,
  type TaskEnabledSession,
  type TaskExecutionEvent,
} from '@modelcontextprotocol/ext-tasks/client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { registerConformanceFixtures } from '../conformance-fixtures/register.js';
import { MODERN_PROTOCOL_VERSION, connect } from '../client/connect.js';
import { startHttpServer, type RunningHttpServer } from '../server/node-http.js';
import { OFFICIAL_TASKS_ID, TaskLinkError, taskLink, type TaskLink } from '../client/task-link.js';

const TICKETS = 6;
/** Between exported rows: an export lasts about two seconds, long enough to cancel one while it runs. */
const PACE_MS = 300;
const CLIENT_INFO = { name: 'ext-tasks-demo', version: '0.0.0' };

let running: RunningHttpServer;

beforeAll(async () => {
  running = await startHttpServer({
    port: 0,
    logger: silentLogger,
    references: false,
    exportPaceMs: PACE_MS,
    extend: registerConformanceFixtures,
  });
  const link = linkAs();
  for (let index = 1; index <= TICKETS; index += 1)
    await link.request('tools/call', { name: 'create_ticket', arguments: { title: `Chore ${String(index)}` } });
});

afterAll(async () => {
  await running.close();
});

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

function linkAs(): TaskLink {
  const target = running.as('alice');
  return taskLink({
    url: running.url,
    token: target.kind === 'http' ? target.token : undefined,
    clientInfo: CLIENT_INFO,
  });
}

/** The package's raw dispatch through the demo's link: the result as answered, or the JSON-RPC error. */
function dispatchThrough(link: TaskLink): RawClientDispatch {
  return async (request) => {
    if (!isRecord(request) || typeof request.method !== 'string') throw new DispatchError('not a request');
    try {
      const result = await link.request(request.method, isRecord(request.params) ? request.params : {});
      return { kind: 'result', result: result as JsonValue };
    } catch (error) {
      if (!(error instanceof TaskLinkError)) throw error;
      const data = error.data === undefined ? {} : { data: error.data as JsonValue };
      return { kind: 'error', error: { code: error.code, message: error.message, ...data } };
    }
  };
}

/** A 2026-07-28 SDK client as alice, adapted by the package into a task session; closed after the test. */
async function taskSession(onInputRequest?: ApplicationInputHandler['handle']): Promise<TaskEnabledSession> {
  const { client } = await connect(running.as('alice'), { era: 'modern', withErrors: false, name: CLIENT_INFO.name });
  const session = createTaskSessionFromClient(client, {
    endpointId: 'tracker-demo',
    rawDispatch: dispatchThrough(linkAs()),
    v2RequestFraming: {
      protocolVersion: MODERN_PROTOCOL_VERSION,
      clientInfo: CLIENT_INFO,
      clientCapabilities: { extensions: { [OFFICIAL_TASKS_ID]: {} } },
    },
    ...(onInputRequest === undefined ? {} : { onInputRequest }),
  });
  cleanup.push(
    () => session.close(),
    () => client.close(),
  );
  return session;
}

async function callAsTask(session: TaskEnabledSession, tool: string, args: Record<string, JsonValue> = {}) {
  const execution = await session.callTool(tool, args);
  if (execution.kind !== 'task') throw new Error(`expected a task, got an ${execution.kind} execution`);
  return execution;
}

interface ExportSummary {
  readonly id: string;
  readonly rows: number;
  readonly csv: string;
}

describe('@modelcontextprotocol/ext-tasks driving the tracker on 2026-07-28', () => {
  it('sees a Tasks server, creates an export task, polls it to completion and reads the report', async () => {
    const session = await taskSession();
    expect(session.capabilities).toMatchObject({ execution: true, cancellation: true });
    const execution = await callAsTask(session, 'export_report');
    expect(execution.handle.operation).toBe('tools/call');
    const events: TaskExecutionEvent<unknown>[] = [];
    const { outcome, lastTask } = await execution.settle({ onEvent: (event) => void events.push(event) });

    expect(outcome.status).toBe('completed');
    expect(lastTask?.status).toBe('completed');
    expect(events[0]).toMatchObject({ type: 'task', task: { status: 'working' } });
    expect(events.at(-1)).toMatchObject({ type: 'outcome', outcome: { status: 'completed' } });
    const result = resultFromTaskOutcome(outcome);
    expect(result.isError).toBeFalsy();
    const report = (result.structuredContent as unknown as { report: ExportSummary }).report;
    expect(report.rows).toBe(TICKETS);
    expect(report.csv.trim().split('\n')).toHaveLength(TICKETS + 1);
    // The task as tasks/get answers it: the tool's CallToolResult with the resultType a 2026-07-28 answer carries.
    const settled = await session.task(execution.handle.taskId).snapshot();
    expect(settled.status).toBe('completed');
    expect(CallToolResultV2Schema.parse(settled.raw.result)).toMatchObject({ resultType: 'complete' });
  });

  it('cancels a running export: the task is cancelled, and stays so once the export would have ended', async () => {
    const session = await taskSession();
    const execution = await callAsTask(session, 'export_report');
    const controller = session.task(execution.handle.taskId);
    expect((await controller.snapshot()).status).toBe('working');

    await execution.cancel();
    const { outcome } = await execution.settle();
    expect(outcome.status).toBe('cancelled');
    expect(() => resultFromTaskOutcome(outcome)).toThrow(TaskCancelledError);
    // Longer than the whole export would take: a late end of the run does not move a cancelled task.
    await new Promise((resolve) => setTimeout(resolve, PACE_MS * (TICKETS + 2)));
    expect((await controller.snapshot()).status).toBe('cancelled');
    expect((await controller.result()).status).toBe('cancelled');
  });

  it('hands a question asked during the task to the input handler, and the task ends with the answer', async () => {
    const asked: { message: unknown; delivery: string; taskId: string | undefined }[] = [];
    // The person accepts deleting the draft and declines the rest; the tool asks nothing else.
    const handler = createApplicationInputHandler({
      elicitation: (request, context): ApplicationElicitResult => {
        const message = request.params.message;
        asked.push({ message, delivery: context.delivery, taskId: context.taskId });
        return typeof message === 'string' && message.includes('draft')
          ? { action: 'accept', content: { confirm: true } }
          : { action: 'decline' };
      },
      sampling: () => Promise.reject(new Error('no sampling expected')),
      roots: () => Promise.reject(new Error('no roots expected')),
    });
    const session = await taskSession(handler);

    const accepted = await callAsTask(session, 'confirm_delete', { filename: 'draft.csv' });
    const kept = await callAsTask(session, 'confirm_delete', { filename: 'final.csv' });
    const first = resultFromTaskOutcome((await accepted.settle()).outcome);
    expect(first.content).toEqual([{ type: 'text', text: 'Deleted draft.csv' }]);
    const second = resultFromTaskOutcome((await kept.settle()).outcome);
    expect(second.content).toEqual([{ type: 'text', text: 'Kept final.csv' }]);
    // Each question asked once, from its own task.
    expect(asked).toHaveLength(2);
    expect(asked).toEqual(
      expect.arrayContaining([
        { message: 'Delete draft.csv?', delivery: 'task-update', taskId: accepted.handle.taskId },
        { message: 'Delete final.csv?', delivery: 'task-update', taskId: kept.handle.taskId },
      ]),
    );
  });
});

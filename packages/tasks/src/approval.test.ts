/**
 * SEP-2848 over this package, 2026-07-28 era: a call held for an operator,
 * from a client that declared Tasks and cannot be asked, becomes a `working`
 * task at once whose status message says what it waits for; approval runs
 * the tool once and completes the task with the disposition, a denial or an
 * expiry completes it as a tool error saying the tool did not run. A client
 * that did not declare Tasks is held and answered `CONFIRMATION_PENDING`.
 */
import { composeServer, MemoryStore } from '@ext/core';
import { CONFIRMATION_ID } from '@ext/confirmation';
import {
  approvalDesk,
  TOOL_APPROVAL_DISPOSITION_KEY,
  TOOL_APPROVAL_ID,
  type ApprovalDesk,
} from '@ext/confirmation/approvals';
import { approvalTasks, confirmationServer, toolApprovalServer } from '@ext/confirmation/server';
import { errorsServer } from '@ext/errors/server';
import { createHttpHandler, extendServer, listen } from '@ext/core/sdk-v2/server';
import { McpServer } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { callTool, cancelTask, getTask, pollTask } from './client.js';
import { tasksServer } from './server.js';
import { createTask, rpcClient, rpcError, waitFor } from './test-support.js';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

interface Served {
  readonly url: string;
  readonly desk: ApprovalDesk;
  readonly deleted: readonly string[];
  readonly capabilities: Record<string, Record<string, unknown>>;
}

async function serve(ttlSeconds = 900): Promise<Served> {
  const deleted: string[] = [];
  const store = new MemoryStore();
  const desk = approvalDesk({ store, ttlSeconds, link: 'https://ops.example/approvals/requests' });
  const composed = composeServer([
    errorsServer(),
    tasksServer({ tools: approvalTasks('operator'), pollIntervalMs: 20 }),
    confirmationServer({ approver: 'operator', approvals: desk, holdSeconds: 0 }),
    toolApprovalServer(),
  ]);
  const handler = createHttpHandler(
    () => {
      const mcp = new McpServer({ name: 'approval-test', version: '0.0.0' });
      const server = extendServer(mcp, composed, { store });
      server.registerTool(
        'delete_repo',
        {
          inputSchema: z.object({ repo: z.string() }),
          _meta: { [CONFIRMATION_ID]: { risk_level: 'destructive', confirmation_message: 'Delete {repo}?' } },
        },
        ({ repo }) => {
          deleted.push(repo);
          return { content: [{ type: 'text', text: `deleted ${repo}` }] };
        },
      );
      return mcp;
    },
    { identify: (request) => request.headers.get('x-user') ?? undefined },
  );
  const listening = await listen(handler, { port: 0 });
  cleanup.push(() => listening.close());
  return { url: String(listening.url), desk, deleted, capabilities: composed.capabilities() };
}

async function pendingId(desk: ApprovalDesk): Promise<string> {
  let id: string | undefined;
  await waitFor(async () => (id = (await desk.list({ state: 'pending' }))[0]?.id) !== undefined);
  return id ?? '';
}

describe('SEP-2848 tool approval over Tasks, 2026-07-28 era', () => {
  it('advertises the draft identifier beside Tasks', async () => {
    const { capabilities } = await serve();
    expect(Object.keys(capabilities)).toEqual(
      expect.arrayContaining([TOOL_APPROVAL_ID, 'io.modelcontextprotocol/tasks']),
    );
  });

  it('returns a working task at once; approval runs the tool once and completes it with the disposition', async () => {
    const { url, desk, deleted } = await serve();
    const alice = rpcClient(url, 'alice');
    const task = await createTask(alice, 'delete_repo', { repo: 'old' });
    expect(task).toMatchObject({ resultType: 'task', status: 'working' });
    const id = await pendingId(desk);
    await waitFor(async () => (await getTask(alice, task.taskId)).statusMessage?.includes(id) === true);
    expect((await getTask(alice, task.taskId)).statusMessage).toMatch(
      /^Waiting for an approver to decide on "delete_repo"/,
    );
    expect(deleted).toEqual([]);

    await desk.decide(id, { approve: true, by: 'ops@example' });
    const done = await pollTask(alice, task.taskId);
    expect(done).toMatchObject({ status: 'completed', result: { content: [{ type: 'text', text: 'deleted old' }] } });
    expect(done.result).toMatchObject({ _meta: { [TOOL_APPROVAL_DISPOSITION_KEY]: 'approved-executed' } });
    expect(deleted).toEqual(['old']);
    expect(await desk.get(id)).toMatchObject({ outcome: 'executed' });
  });

  it('completes a denied task as a tool error that says the tool did not run', async () => {
    const { url, desk, deleted } = await serve();
    const alice = rpcClient(url, 'alice');
    const task = await createTask(alice, 'delete_repo', { repo: 'old' });
    await desk.decide(await pendingId(desk), { approve: false, by: 'ops@example', reason: 'in use' });
    const done = await pollTask(alice, task.taskId);
    expect(done.status).toBe('completed');
    expect(done.result).toMatchObject({
      isError: true,
      _meta: {
        [TOOL_APPROVAL_DISPOSITION_KEY]: 'denied-not-executed',
        [CONFIRMATION_ID]: { status: 'denied', error: { code: 'CONFIRMATION_DENIED', category: 'permanent' } },
      },
    });
    expect(JSON.stringify(done.result?.content)).toContain('the tool did not run');
    expect(deleted).toEqual([]);
  });

  it('completes an expired task the same way, with CONFIRMATION_EXPIRED', async () => {
    const { url, deleted } = await serve(1);
    const alice = rpcClient(url, 'alice');
    const task = await createTask(alice, 'delete_repo', { repo: 'old' });
    const done = await pollTask(alice, task.taskId);
    expect(done.result).toMatchObject({
      isError: true,
      _meta: {
        [TOOL_APPROVAL_DISPOSITION_KEY]: 'denied-not-executed',
        [CONFIRMATION_ID]: { status: 'expired', error: { code: 'CONFIRMATION_EXPIRED' } },
      },
    });
    expect(deleted).toEqual([]);
  });

  it('withdraws the request when its task is cancelled: no later decision runs anything', async () => {
    const { url, desk, deleted } = await serve();
    const alice = rpcClient(url, 'alice');
    const task = await createTask(alice, 'delete_repo', { repo: 'old' });
    const id = await pendingId(desk);
    await cancelTask(alice, task.taskId);
    await waitFor(async () => (await desk.get(id))?.state === 'cancelled');
    await expect(desk.decide(id, { approve: true, by: 'ops@example' })).rejects.toMatchObject({
      code: 'APPROVAL_ALREADY_DECIDED',
    });
    expect((await getTask(alice, task.taskId)).status).toBe('cancelled');
    // The same call again is a new intent, with a request of its own.
    await createTask(alice, 'delete_repo', { repo: 'old' });
    await waitFor(async () => (await desk.list({ state: 'pending' })).length === 1);
    expect((await desk.list({ state: 'pending' }))[0]?.id).not.toBe(id);
    expect(deleted).toEqual([]);
  });

  it("keeps the task its caller's: another principal cannot read it", async () => {
    const { url } = await serve();
    const task = await createTask(rpcClient(url, 'alice'), 'delete_repo', { repo: 'old' });
    const refused = await rpcError(getTask(rpcClient(url, 'mallory'), task.taskId));
    expect(refused.code).toBe(-32602);
  });

  it('holds a client that did not declare Tasks, and answers CONFIRMATION_PENDING', async () => {
    const { url, desk, deleted } = await serve();
    const outcome = await callTool(rpcClient(url, 'bob', false), 'delete_repo', { repo: 'old' });
    expect(outcome.kind).toBe('result');
    expect(outcome).toMatchObject({ result: { isError: true } });
    expect(JSON.stringify(outcome)).toContain('waits for an approver');
    expect(await desk.list({ state: 'pending' })).toHaveLength(1);
    expect(deleted).toEqual([]);
  });
});

/**
 * Tasks and confirmation composed, 2026-07-28 era: a call of a tool that
 * needs a person's approval, from a client that declares Tasks and can show
 * a form, becomes a task that waits in `input_required` with the
 * confirmation's question; the answer given through `tasks/update` decides
 * whether the handler runs, and only the task's owner can give it.
 */
import { composeServer, MemoryStore } from '@ext/core';
import { CONFIRMATION_ID } from '@ext/confirmation';
import { confirmationServer } from '@ext/confirmation/server';
import { createHttpHandler, extendServer, listen } from '@ext/core/sdk-v2/server';
import { McpServer } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { getTask, pollTask, updateTask, type DetailedTask, type TaskRequester } from './client.js';
import { TASKS_ID } from './schema.js';
import { tasksServer } from './server.js';
import { createTask, rawClient, rpcError, waitFor } from './test-support.js';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

interface Served {
  readonly url: string;
  /** The repositories `delete_repo`'s handler deleted, in order. */
  readonly deleted: readonly string[];
}

/** A server composing tasks and confirmation, whose `delete_repo` is destructive and may run as a task. */
async function serve(): Promise<Served> {
  const deleted: string[] = [];
  const composed = composeServer([
    tasksServer({ tools: { delete_repo: 'optional' }, pollIntervalMs: 20 }),
    confirmationServer(),
  ]);
  const store = new MemoryStore();
  const handler = createHttpHandler(
    () => {
      const mcp = new McpServer({ name: 'confirmation-test', version: '0.0.0' });
      const server = extendServer(mcp, composed, { store });
      server.registerTool(
        'delete_repo',
        {
          inputSchema: z.object({ repo: z.string() }),
          _meta: {
            [CONFIRMATION_ID]: { risk_level: 'destructive', confirmation_message: 'Permanently delete {repo}?' },
          },
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
  return { url: String(listening.url), deleted };
}

/** A raw 2026-07-28 client as `user` that declares Tasks and advertises form elicitation. */
function asker(url: string, user: string): TaskRequester {
  return rawClient(url, {
    headers: { 'x-user': user },
    capabilities: { extensions: { [TASKS_ID]: {} }, elicitation: { form: {} } },
  });
}

/** The task once it waits for input. */
async function whenAsked(client: TaskRequester, taskId: string): Promise<DetailedTask> {
  let task: DetailedTask | undefined;
  await waitFor(async () => (task = await getTask(client, taskId)).status === 'input_required');
  return task!;
}

describe('a confirmation asked inside a task, 2026-07-28 era', () => {
  it('TASK-17 CONF-6: the task shows the question; an accept through tasks/update runs the handler once', async () => {
    const { url, deleted } = await serve();
    const alice = asker(url, 'alice');
    const task = await createTask(alice, 'delete_repo', { repo: 'old' });
    expect(task).toMatchObject({ resultType: 'task', status: 'working' });

    const asked = await whenAsked(alice, task.taskId);
    expect(Object.keys(asked.inputRequests ?? {})).toEqual(['confirm']);
    expect(asked.inputRequests?.confirm).toEqual({
      method: 'elicitation/create',
      params: {
        mode: 'form',
        message: 'Permanently delete old?\n\nRisk level: destructive.',
        requestedSchema: {
          type: 'object',
          properties: {
            confirm: {
              type: 'boolean',
              title: 'Approve',
              description: 'Approve this destructive operation: delete_repo',
              default: false,
            },
          },
          required: ['confirm'],
        },
      },
    });
    expect(deleted).toEqual([]);

    await updateTask(alice, task.taskId, { confirm: { action: 'accept', content: { confirm: true } } });
    const done = await pollTask(alice, task.taskId);
    expect(done).toMatchObject({ status: 'completed', result: { content: [{ type: 'text', text: 'deleted old' }] } });
    expect(done.result).not.toHaveProperty('isError');
    expect(deleted).toEqual(['old']);
  });

  it('CONF-6: a decline fails the task with the confirmation refusal, and the handler never runs', async () => {
    const { url, deleted } = await serve();
    const alice = asker(url, 'alice');
    const task = await createTask(alice, 'delete_repo', { repo: 'old' });
    await whenAsked(alice, task.taskId);

    await updateTask(alice, task.taskId, { confirm: { action: 'decline' } });
    const failed = await pollTask(alice, task.taskId);
    expect(failed.status).toBe('failed');
    expect(failed.error).toMatchObject({
      code: -31000,
      data: {
        code: 'CONFIRMATION_DECLINED',
        category: 'permanent',
        details: { tool: 'delete_repo', action: 'decline' },
      },
    });
    expect(failed).not.toHaveProperty('result');
    expect(deleted).toEqual([]);
  });

  it('TASK-8: another principal cannot answer the question (-32602); the task goes on waiting for its owner', async () => {
    const { url, deleted } = await serve();
    const alice = asker(url, 'alice');
    const task = await createTask(alice, 'delete_repo', { repo: 'old' });
    await whenAsked(alice, task.taskId);

    const refused = await rpcError(
      updateTask(asker(url, 'mallory'), task.taskId, { confirm: { action: 'accept', content: { confirm: true } } }),
    );
    expect(refused.code).toBe(-32602);
    expect(refused.message).toBe(`Unknown task: ${task.taskId}`);
    const still = await getTask(alice, task.taskId);
    expect(still.status).toBe('input_required');
    expect(Object.keys(still.inputRequests ?? {})).toEqual(['confirm']);
    expect(deleted).toEqual([]);

    await updateTask(alice, task.taskId, { confirm: { action: 'accept', content: { confirm: true } } });
    expect((await pollTask(alice, task.taskId)).status).toBe('completed');
    expect(deleted).toEqual(['old']);
  });
});

import { MemoryStore } from '@ext/core';
import { extendClient } from '@ext/core/sdk-v2/client';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import {
  callTool,
  cancelTask,
  getTask,
  pollTask,
  tasksClient,
  updateTask,
  type DetailedTask,
  type TaskRequester,
} from './client.js';
import { RpcError, rpcClient, serveTasks, type Served } from './test-support.js';

const servers: Served[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function serve(...args: Parameters<typeof serveTasks>): Promise<Served> {
  const served = await serveTasks(...args);
  servers.push(served);
  return served;
}

async function createTask(url: string, user: string, tool: string, args: Record<string, unknown> = {}) {
  const outcome = await callTool(rpcClient(url, user), tool, args);
  if (outcome.kind !== 'task') throw new Error(`expected a task, got ${JSON.stringify(outcome.result)}`);
  return outcome.task;
}

async function rpcError(promise: Promise<unknown>): Promise<RpcError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!(error instanceof RpcError)) throw new Error(`expected a JSON-RPC error, got ${String(error)}`);
  return error;
}

async function waitFor(check: () => Promise<boolean>): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error('condition not met');
}

describe('tasks over HTTP, 2026-07-28 era', () => {
  it('TASK-3 TASK-4 TASK-6: a task is created at once, readable at once, and polled to its inlined result', async () => {
    const { url } = await serve();
    const alice = rpcClient(url, 'alice');
    const task = await createTask(url, 'alice', 'slow_compute', { ms: 600 });
    expect(task).toMatchObject({ resultType: 'task', status: 'working', ttlMs: 3_600_000, pollIntervalMs: 20 });
    expect(task).not.toHaveProperty('result');
    expect(await getTask(alice, task.taskId)).toMatchObject({ taskId: task.taskId, status: 'working' });
    const done = await pollTask(alice, task.taskId);
    expect(done.status).toBe('completed');
    expect(done.result).toEqual({ resultType: 'complete', content: [{ type: 'text', text: 'computed in 600 ms' }] });
    expect(await alice.request('tasks/get', { taskId: task.taskId })).toMatchObject({ resultType: 'complete' });
  });

  it('TASK-1: a tool without task support answers synchronously, with no task fields', async () => {
    const { url } = await serve();
    const outcome = await callTool(rpcClient(url, 'alice'), 'greet', { name: 'World' });
    expect(outcome.kind).toBe('result');
    expect(outcome.kind === 'result' && outcome.result).toMatchObject({
      resultType: 'complete',
      content: [{ type: 'text', text: 'Hello, World!' }],
    });
  });

  it('TASK-11: a tool error completes the task with isError; TASK-12: a JSON-RPC error fails it', async () => {
    const { url } = await serve();
    const alice = rpcClient(url, 'alice');
    const toolError = await pollTask(alice, (await createTask(url, 'alice', 'failing_job')).taskId);
    expect(toolError).toMatchObject({ status: 'completed', result: { isError: true } });
    const failed = await pollTask(alice, (await createTask(url, 'alice', 'protocol_error_job')).taskId);
    expect(failed.status).toBe('failed');
    expect(failed.error).toMatchObject({ code: -32603, message: 'job crashed' });
    // The extension asks for a diagnostic statusMessage on a failed task.
    expect(failed.statusMessage).toBe('job crashed');
    expect(failed).not.toHaveProperty('result');
  });

  it('TASK-16: the cancel ack is empty, the handler sees its signal abort, the task settles cancelled', async () => {
    const served = await serve();
    const alice = rpcClient(served.url, 'alice');
    const task = await createTask(served.url, 'alice', 'slow_compute', { ms: 60_000 });
    expect(await alice.request('tasks/cancel', { taskId: task.taskId })).toEqual({
      resultType: 'complete',
      _meta: expect.any(Object) as unknown,
    });
    expect((await pollTask(alice, task.taskId)).status).toBe('cancelled');
    await waitFor(() => Promise.resolve(served.aborted.includes(task.taskId)));
    // A terminal task acknowledges a second cancel alike, and stays cancelled.
    await cancelTask(alice, task.taskId);
    expect((await getTask(alice, task.taskId)).status).toBe('cancelled');
  });

  it('TASK-7: once its TTL has run out a task is gone: not found', async () => {
    const { url } = await serve(new MemoryStore(), { ttlMs: 1000 });
    const alice = rpcClient(url, 'alice');
    const task = await createTask(url, 'alice', 'slow_compute', { ms: 10 });
    expect(task.ttlMs).toBe(1000);
    expect((await pollTask(alice, task.taskId)).status).toBe('completed');
    await new Promise((resolve) => setTimeout(resolve, Date.parse(task.createdAt) + 1050 - Date.now()));
    expect((await rpcError(getTask(alice, task.taskId))).code).toBe(-32602);
  });

  it('TASK-8: another principal gets not-found for every method, and cannot cancel', async () => {
    const { url } = await serve();
    const mallory = rpcClient(url, 'mallory');
    const task = await createTask(url, 'alice', 'slow_compute', { ms: 300 });
    for (const attempt of [
      getTask(mallory, task.taskId),
      cancelTask(mallory, task.taskId),
      updateTask(mallory, task.taskId, {}),
    ]) {
      const error = await rpcError(attempt);
      expect(error.code).toBe(-32602);
      expect(error.message).toBe(`Unknown task: ${task.taskId}`);
    }
    expect((await pollTask(rpcClient(url, 'alice'), task.taskId)).status).toBe('completed');
  });

  it('TASK-4: a task created through one instance is read and cancelled through another sharing the store', async () => {
    const store = new MemoryStore();
    const first = await serve(store);
    const second = await serve(store);
    const task = await createTask(first.url, 'alice', 'slow_compute', { ms: 60_000 });
    const viaSecond = rpcClient(second.url, 'alice');
    expect((await getTask(viaSecond, task.taskId)).status).toBe('working');
    await cancelTask(viaSecond, task.taskId);
    await waitFor(() => Promise.resolve(first.aborted.includes(task.taskId)));
    expect((await getTask(rpcClient(first.url, 'alice'), task.taskId)).status).toBe('cancelled');
  });

  it('TASK-9 TASK-10: input_required surfaces inputRequests; partial answers keep it waiting; the last resumes it', async () => {
    const { url } = await serve();
    const alice = rpcClient(url, 'alice');
    const task = await createTask(url, 'alice', 'confirm');
    let asked: DetailedTask | undefined;
    await waitFor(async () => (asked = await getTask(alice, task.taskId)).status === 'input_required');
    expect(Object.keys(asked?.inputRequests ?? {}).sort()).toEqual(['why', 'yes']);
    expect(
      await alice.request('tasks/update', { taskId: task.taskId, inputResponses: { yes: { action: 'accept' } } }),
    ).toMatchObject({ resultType: 'complete' });
    const partial = await getTask(alice, task.taskId);
    expect(partial.status).toBe('input_required');
    expect(Object.keys(partial.inputRequests ?? {})).toEqual(['why']);
    await updateTask(alice, task.taskId, { why: { action: 'accept', content: { reason: 'tidy' } } });
    const done = await pollTask(alice, task.taskId);
    expect(done.status).toBe('completed');
    expect(JSON.parse((done.result?.content as { text: string }[])[0]?.text ?? '')).toEqual({
      yes: { action: 'accept' },
      why: { action: 'accept', content: { reason: 'tidy' } },
    });
  });

  it('TASK-2: a client that does not declare the extension gets no task, and -32021 where one is needed', async () => {
    const { url } = await serve();
    const plain = rpcClient(url, 'alice', false);
    expect(await plain.request('tools/call', { name: 'slow_compute', arguments: { ms: 1 } })).toMatchObject({
      resultType: 'complete',
      content: [{ type: 'text', text: 'computed in 1 ms' }],
    });
    const required = await rpcError(plain.request('tools/call', { name: 'confirm', arguments: {} }));
    expect(required.code).toBe(-32021);
    expect(required.data).toEqual({ requiredCapabilities: { extensions: { 'io.modelcontextprotocol/tasks': {} } } });
    for (const method of ['tasks/get', 'tasks/update', 'tasks/cancel']) {
      expect((await rpcError(plain.request(method, { taskId: 'x', inputResponses: {} }))).code).toBe(-32021);
    }
  });

  it('TASK-13: tasks/result and tasks/list do not exist; TASK-14: bad params name the field', async () => {
    const { url } = await serve();
    const alice = rpcClient(url, 'alice');
    expect((await rpcError(alice.request('tasks/result', { taskId: 'x' }))).code).toBe(-32601);
    expect((await rpcError(alice.request('tasks/list', {}))).code).toBe(-32601);
    const bad = await rpcError(alice.request('tasks/cancel', { taskId: 42 }));
    expect(bad.code).toBe(-32602);
    expect(bad.data).toMatchObject({ category: 'invalid_input', details: { field: 'taskId', pointer: '/taskId' } });
    const missing = await rpcError(alice.request('tasks/get', {}));
    expect(missing.data).toMatchObject({ details: { field: 'taskId', pointer: '/taskId' } });
  });

  it('TASK-14: tasks/update refuses inputResponses that is not an object, naming the field', async () => {
    const { url } = await serve();
    const alice = rpcClient(url, 'alice');
    const task = await createTask(url, 'alice', 'slow_compute', { ms: 60_000 });
    for (const inputResponses of ['x', null, [1], true, 7, 0]) {
      const refused = await rpcError(alice.request('tasks/update', { taskId: task.taskId, inputResponses }));
      expect({ inputResponses, code: refused.code, data: refused.data }).toMatchObject({
        inputResponses,
        code: -32602,
        data: { category: 'invalid_input', details: { field: 'inputResponses', pointer: '/inputResponses' } },
      });
    }
    const absent = await rpcError(alice.request('tasks/update', { taskId: task.taskId }));
    expect(absent.data).toMatchObject({ details: { field: 'inputResponses' } });
    const notAResult = await rpcError(
      alice.request('tasks/update', {
        taskId: task.taskId,
        inputResponses: { ok: { action: 'accept' }, 'a/b': 'yes' },
      }),
    );
    expect(notAResult.data).toMatchObject({ details: { field: 'inputResponses', pointer: '/inputResponses/a~1b' } });
    expect(await alice.request('tasks/update', { taskId: task.taskId, inputResponses: {} })).toMatchObject({
      resultType: 'complete',
    });
    await alice.request('tasks/cancel', { taskId: task.taskId });
  });
});

describe('the SDK v2 client, 2026-07-28, as requester of the tasks methods', () => {
  it('TASK-15: an extended SDK client polls and cancels a task through tasks/get and tasks/cancel', async () => {
    const { url } = await serve();
    const client = new Client(
      { name: 'sdk', version: '0.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    const extended = extendClient(client, [tasksClient()]);
    const sent: Record<string, unknown>[] = [];
    const recording: typeof fetch = (input, init) => {
      if (typeof init?.body === 'string') sent.push(JSON.parse(init.body) as Record<string, unknown>);
      return fetch(input, init);
    };
    await client.connect(
      new StreamableHTTPClientTransport(new URL(url), {
        requestInit: { headers: { 'x-user': 'alice' } },
        fetch: recording,
      }),
    );
    try {
      const short = await createTask(url, 'alice', 'slow_compute', { ms: 10 });
      expect((await pollTask(extended, short.taskId)).result).toEqual({
        resultType: 'complete',
        content: [{ type: 'text', text: 'computed in 10 ms' }],
      });
      const long = await createTask(url, 'alice', 'slow_compute', { ms: 60_000 });
      await cancelTask(extended, long.taskId);
      expect((await getTask(extended, long.taskId)).status).toBe('cancelled');
      // TASK-15: the official identifier declared as the empty object the extension defines, ours with its version.
      const get = sent.find((message) => message.method === 'tasks/get') as { params: { _meta: unknown } };
      expect(get.params._meta).toMatchObject({
        'io.modelcontextprotocol/clientCapabilities': {
          extensions: { 'io.modelcontextprotocol/tasks': {}, 'io.github.mcp-ext/tasks': { version: '1.0' } },
        },
      });
    } finally {
      await client.close();
    }
  });
});

describe('the client helpers against a server of the earlier shape', () => {
  it('TASK-15: a completed result without resultType (servers before 0.2) is read as "complete"', async () => {
    const { url } = await serve();
    const alice = rpcClient(url, 'alice');
    // What this package's servers answered before 0.2: the result without its resultType.
    const earlier: TaskRequester = {
      async request(method, params) {
        const answer = await alice.request(method, params);
        const result = answer.result as Record<string, unknown> | undefined;
        if (method !== 'tasks/get' || result === undefined) return answer;
        const { resultType: _dropped, ...rest } = result;
        return { ...answer, result: rest };
      },
    };
    const task = await createTask(url, 'alice', 'slow_compute', { ms: 10 });
    const done = await pollTask(earlier, task.taskId);
    expect(done.result).toEqual({ resultType: 'complete', content: [{ type: 'text', text: 'computed in 10 ms' }] });
    expect(await getTask(alice, task.taskId)).toEqual(done);
  });
});

/**
 * Tasks and streaming composed: a handler's `streamOf(ctx).progress` shows
 * on `tasks/get` (statusMessage and our `_meta`) while the task runs, and
 * the result once it completes; a client that speaks streaming but not Tasks
 * calls the same tool synchronously and follows it by streaming's
 * notifications.
 */
import { composeServer, MemoryStore } from '@ext/core';
import { extendClient } from '@ext/core/sdk-v2/client';
import { createHttpHandler, extendServer, listen, type Listening } from '@ext/core/sdk-v2/server';
import { STREAMING_ID } from '@ext/streaming';
import { streamCall, streamingClient, type StreamUpdate } from '@ext/streaming/client';
import { streamingServer, streamOf } from '@ext/streaming/server';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { McpServer } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { getTask, pollTask, type CreateTaskResult, type DetailedTask } from './client.js';
import { TASKS_ALIAS_ID } from './schema.js';
import { tasksServer } from './server.js';
import { rpcClient, waitFor } from './test-support.js';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

/** Points a handler waits at until the test opens them, by name. */
class Gates {
  readonly #gates = new Map<string, { promise: Promise<void>; open: () => void }>();

  #gate(name: string) {
    let gate = this.#gates.get(name);
    if (gate === undefined) {
      let open: () => void = () => undefined;
      const promise = new Promise<void>((resolve) => {
        open = resolve;
      });
      gate = { promise, open };
      this.#gates.set(name, gate);
    }
    return gate;
  }

  wait(name: string): Promise<void> {
    return this.#gate(name).promise;
  }

  open(name: string): void {
    this.#gate(name).open();
  }
}

/** A server composing tasks and streaming, whose `report` tool reports three steps, waiting at each gate `<label>:<step>`. */
async function serve(gates: Gates): Promise<string> {
  const composed = composeServer([
    tasksServer({ tools: { report: 'optional' }, pollIntervalMs: 20 }),
    streamingServer(),
  ]);
  const store = new MemoryStore();
  const handler = createHttpHandler(
    () => {
      const mcp = new McpServer({ name: 'progress-test', version: '0.0.0' });
      const server = extendServer(mcp, composed, { store });
      server.registerTool(
        'report',
        { inputSchema: z.object({ label: z.string() }), _meta: { [STREAMING_ID]: { checkpoints: true } } },
        async ({ label }, ctx) => {
          const stream = streamOf(ctx);
          const rows: number[] = [];
          for (let step = 1; step <= 3; step++) {
            rows.push(step);
            await stream.progress(step, 3, `step ${step} of 3`, {
              estimatedRemainingSeconds: 3 - step,
              partialResult: { rows: [...rows] },
            });
            await gates.wait(`${label}:${step}`);
          }
          return { content: [{ type: 'text', text: `report ${label}: ${rows.length} rows` }] };
        },
      );
      return mcp;
    },
    { identify: (request) => request.headers.get('x-user') ?? undefined },
  );
  const listening: Listening = await listen(handler, { port: 0 });
  cleanup.push(() => listening.close());
  return String(listening.url);
}

function ours(task: DetailedTask): unknown {
  return task._meta?.[TASKS_ALIAS_ID];
}

describe('tasks and streaming composed, 2026-07-28 era', () => {
  it('TASK-18: tasks/get shows the progress the handler reports while it works, then the result', async () => {
    const gates = new Gates();
    const alice = rpcClient(await serve(gates), 'alice');
    // With a progressToken, as SDK clients send one: nobody is left to receive MCP progress once the task is created.
    const task = (await alice.request('tools/call', {
      name: 'report',
      arguments: { label: 'task' },
      _meta: { progressToken: 'report-1' },
    })) as unknown as CreateTaskResult;
    expect(task).toMatchObject({ resultType: 'task', status: 'working' });

    let seen: DetailedTask | undefined;
    await waitFor(async () => (seen = await getTask(alice, task.taskId)).statusMessage !== undefined);
    expect(seen).toMatchObject({ status: 'working', statusMessage: 'step 1 of 3' });
    expect(ours(seen!)).toEqual({
      done: 1,
      total: 3,
      progress: 1 / 3,
      estimated_remaining_seconds: 2,
      partial_result: { rows: [1] },
    });

    gates.open('task:1');
    await waitFor(async () => (seen = await getTask(alice, task.taskId)).statusMessage === 'step 2 of 3');
    expect(ours(seen!)).toEqual({
      done: 2,
      total: 3,
      progress: 2 / 3,
      estimated_remaining_seconds: 1,
      partial_result: { rows: [1, 2] },
    });

    gates.open('task:2');
    gates.open('task:3');
    const done = await pollTask(alice, task.taskId);
    expect(done).toMatchObject({
      status: 'completed',
      result: { content: [{ type: 'text', text: 'report task: 3 rows' }] },
    });
    expect(ours(done)).toBeUndefined();
  });

  it('STRM-5: a client that speaks streaming but not Tasks gets the result synchronously, with progress notifications', async () => {
    const gates = new Gates();
    const url = await serve(gates);
    const sdk = new Client(
      { name: 'streamer', version: '0.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    const client = extendClient(sdk, [streamingClient()]);
    await sdk.connect(
      new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { 'x-user': 'bob' } } }),
    );
    cleanup.push(() => sdk.close());

    const updates: StreamUpdate[] = [];
    for await (const update of streamCall(client, 'report', { label: 'sync' })) {
      updates.push(update);
      // Each step is let through only once its progress arrived: the call really streams while it runs.
      if (update.type === 'progress' && update.partialResult !== undefined) gates.open(`sync:${String(update.done)}`);
    }
    const progress = updates.flatMap((update) =>
      update.type === 'progress' && update.partialResult !== undefined
        ? [{ done: update.done, total: update.total, message: update.message, partialResult: update.partialResult }]
        : [],
    );
    expect(progress).toEqual([
      { done: 1, total: 3, message: 'step 1 of 3', partialResult: { rows: [1] } },
      { done: 2, total: 3, message: 'step 2 of 3', partialResult: { rows: [1, 2] } },
      { done: 3, total: 3, message: 'step 3 of 3', partialResult: { rows: [1, 2, 3] } },
    ]);
    const last = updates.at(-1);
    expect(last?.type).toBe('result');
    expect(last?.type === 'result' && last.result).toMatchObject({
      content: [{ type: 'text', text: 'report sync: 3 rows' }],
    });
  });
});

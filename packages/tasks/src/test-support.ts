/**
 * Test support: a server composed with `tasksServer` behind real HTTP on a
 * free port, whose callers are named by an `x-user` header, and a raw
 * 2026-07-28 JSON-RPC client written with `fetch` alone (the SDK's client
 * refuses `resultType: "task"` on `tools/call`), so the tests read exactly
 * what travels.
 */
import { composeServer, MemoryStore, WireError, type Store } from '@ext/core';
import { RpcError, rawClient, type RawClient } from '@ext/core/testing';
import { createHttpHandler, extendServer, listen } from '@ext/core/sdk-v2/server';
import { McpServer } from '@modelcontextprotocol/server';
import * as z from 'zod';

export { RpcError, rawClient, type RawClient, type RawClientOptions } from '@ext/core/testing';
import { getTaskId, requestTaskInput, tasksServer, type TasksServerOptions } from './server.js';
import { taskKey } from './records.js';
import { TASKS_ID } from './schema.js';
import { callTool, type CreateTaskResult, type TaskRequester } from './client.js';

/** The record `store` holds for the task, under the server's default key prefix (`undefined` once expired). */
export function storedRecord(store: Store, taskId: string): Promise<unknown> {
  return store.get(taskKey({ store, keyPrefix: 'tasks', now: Date.now }, taskId));
}

/** Resolves after `ms`. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
}

/**
 * Calls of the `held` tool: each waits until the test releases its label,
 * even after its signal aborted, so a cancelled call can still return late.
 */
export class HeldCalls {
  /** What happened, in order: `<label>:started`, `<label>:aborted`, `<label>:returned`. */
  readonly log: string[] = [];
  readonly #gates = new Map<string, { promise: Promise<void>; open: () => void }>();
  #allOpen = false;

  #gate(label: string) {
    let gate = this.#gates.get(label);
    if (gate === undefined) {
      let open: () => void = () => undefined;
      const promise = new Promise<void>((resolve) => {
        open = resolve;
      });
      gate = { promise, open };
      this.#gates.set(label, gate);
    }
    if (this.#allOpen) gate.open();
    return gate;
  }

  /** Lets the call labelled `label` return (now, or as soon as it starts). */
  release(label: string): void {
    this.#gate(label).open();
  }

  /** Lets every call return, present and future (cleanup). */
  releaseAll(): void {
    this.#allOpen = true;
    for (const gate of this.#gates.values()) gate.open();
  }

  async run(label: string, signal: AbortSignal): Promise<string> {
    this.log.push(`${label}:started`);
    const noteAbort = () => this.log.push(`${label}:aborted`);
    if (signal.aborted) noteAbort();
    else signal.addEventListener('abort', noteAbort, { once: true });
    await this.#gate(label).promise;
    this.log.push(`${label}:returned`);
    return `released ${label}`;
  }
}

export interface Served {
  readonly url: string;
  /** Ids of the tasks whose handler saw its signal abort on this instance. */
  readonly aborted: readonly string[];
  /** The `held` calls running on this instance. */
  readonly held: HeldCalls;
  close(): Promise<void>;
}

/** A server with the fixture tools of the official conformance scenarios, and `held`. */
export async function serveTasks(store: Store = new MemoryStore(), options: TasksServerOptions = {}): Promise<Served> {
  const aborted: string[] = [];
  const held = new HeldCalls();
  const composed = composeServer([
    tasksServer({
      tools: {
        slow_compute: 'optional',
        failing_job: 'optional',
        protocol_error_job: 'optional',
        held: 'optional',
        confirm: 'required',
      },
      pollIntervalMs: 20,
      ...options,
    }),
  ]);
  const handler = createHttpHandler(
    () => {
      const mcp = new McpServer({ name: 'tasks-test', version: '0.0.0' });
      const server = extendServer(mcp, composed, { store });
      server.registerTool('greet', { inputSchema: z.object({ name: z.string() }) }, ({ name }) => ({
        content: [{ type: 'text', text: `Hello, ${name}!` }],
      }));
      server.registerTool('slow_compute', { inputSchema: z.object({ ms: z.number() }) }, async ({ ms }, ctx) => {
        await new Promise((resolve, reject) => {
          const timer = setTimeout(resolve, ms);
          ctx.signal.addEventListener('abort', () => {
            clearTimeout(timer);
            aborted.push(getTaskId(ctx) ?? 'sync');
            reject(new Error('aborted'));
          });
        });
        return { content: [{ type: 'text', text: `computed in ${ms} ms` }] };
      });
      server.registerTool('held', { inputSchema: z.object({ label: z.string() }) }, async ({ label }, ctx) => ({
        content: [{ type: 'text', text: await held.run(label, ctx.signal) }],
      }));
      server.registerTool('failing_job', {}, () => ({
        content: [{ type: 'text', text: 'job failed' }],
        isError: true,
      }));
      server.registerTool('protocol_error_job', {}, () => {
        throw new WireError(-32603, 'job crashed');
      });
      server.registerTool('confirm', {}, async (_args, ctx) => {
        const answers = await requestTaskInput(ctx, {
          yes: { method: 'elicitation/create', params: { message: 'Sure?', requestedSchema: { type: 'object' } } },
          why: { method: 'elicitation/create', params: { message: 'Why?', requestedSchema: { type: 'object' } } },
        });
        return { content: [{ type: 'text', text: JSON.stringify(answers) }] };
      });
      return mcp;
    },
    { identify: (request) => request.headers.get('x-user') ?? undefined },
  );
  const listening = await listen(handler, { port: 0 });
  return { url: String(listening.url), aborted, held, close: () => listening.close() };
}

const TERMINAL_STATUSES = ['completed', 'failed', 'cancelled'];

/**
 * Polls `tasks/get` as SEP-2663 asks of a requestor: between polls it waits
 * the `pollIntervalMs` of the latest answer (first the CreateTaskResult's),
 * until the task is terminal. Resolves to every answer seen, the last terminal.
 */
export async function rawPoll(client: RawClient, created: Record<string, unknown>): Promise<Record<string, unknown>[]> {
  const seen: Record<string, unknown>[] = [];
  let latest = created;
  while (!TERMINAL_STATUSES.includes(String(latest.status))) {
    if (seen.length === 500) throw new Error(`task ${String(created.taskId)} is still ${String(latest.status)}`);
    await sleep(typeof latest.pollIntervalMs === 'number' ? latest.pollIntervalMs : 1000);
    latest = await client.request('tasks/get', { taskId: created.taskId });
    seen.push(latest);
  }
  return seen;
}

/** The raw client as `user`, declaring the extension on every request unless `declare` is false. */
export function rpcClient(url: string, user: string, declare = true): TaskRequester {
  return rawClient(url, {
    headers: { 'x-user': user },
    capabilities: declare ? { extensions: { [TASKS_ID]: {} } } : {},
  });
}

/** Calls `tool` through `requester`, expecting a task handle. */
export async function createTask(
  requester: TaskRequester,
  tool: string,
  args: Record<string, unknown> = {},
): Promise<CreateTaskResult> {
  const outcome = await callTool(requester, tool, args);
  if (outcome.kind !== 'task') throw new Error(`expected a task, got ${JSON.stringify(outcome.result)}`);
  return outcome.task;
}

/** The JSON-RPC error `promise` rejects with (anything else fails). */
export async function rpcError(promise: Promise<unknown>): Promise<RpcError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!(error instanceof RpcError)) throw new Error(`expected a JSON-RPC error, got ${String(error)}`);
  return error;
}

/** Resolves once `check` holds, checking every 20 ms; fails after about ten seconds. */
export async function waitFor(check: () => boolean | Promise<boolean>): Promise<void> {
  for (let attempt = 0; attempt < 500; attempt++) {
    if (await check()) return;
    await sleep(20);
  }
  throw new Error('condition not met');
}

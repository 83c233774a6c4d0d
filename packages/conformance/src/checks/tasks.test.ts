import { composeServer, MemoryStore, WireError, type MethodHandler, type ServerExtension } from '@ext/core';
import { isRecord } from '@ext/core/kit';
import { createHttpHandler, extendServer, listen } from '@ext/core/sdk-v2/server';
import { tasksServer } from '@ext/tasks/server';
import { McpServer } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { runConformance, type RunOutcome } from '../runner.js';

const TASKS_ID = 'io.modelcontextprotocol/tasks';

type Fault = (tasks: ServerExtension) => ServerExtension;
type FetchHandler = ReturnType<typeof createHttpHandler>;

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

/**
 * A real MCP server over HTTP composed with `tasksServer`, `compute` running
 * as a task; `fault` rewires the extension, `front` the HTTP handler.
 */
async function serve(fault: Fault = (tasks) => tasks, front = (handler: FetchHandler) => handler): Promise<string> {
  const composed = composeServer([
    fault(tasksServer({ tools: { compute: 'optional', archive: 'required' }, pollIntervalMs: 20 })),
  ]);
  const store = new MemoryStore();
  const handler = createHttpHandler(
    () => {
      const mcp = new McpServer({ name: 'tasks-under-test', version: '1.0.0' });
      const server = extendServer(mcp, composed, { store });
      server.registerTool(
        'compute',
        { inputSchema: z.object({ label: z.string() }), annotations: { readOnlyHint: true } },
        async ({ label }) => {
          await new Promise((resolve) => setTimeout(resolve, 30));
          return { content: [{ type: 'text', text: `computed ${label}` }] };
        },
      );
      server.registerTool('archive', { inputSchema: z.object({ id: z.string() }) }, ({ id }) => ({
        content: [{ type: 'text', text: `archived ${id}` }],
      }));
      server.registerTool(
        'greet',
        { inputSchema: z.object({ name: z.string() }), annotations: { readOnlyHint: true } },
        ({ name }) => ({ content: [{ type: 'text', text: `Hello, ${name}!` }] }),
      );
      return mcp;
    },
    { identify: () => 'conformance-kit' },
  );
  const listening = await listen(front(handler), { port: 0 });
  closers.push(() => listening.close());
  return String(listening.url);
}

function run(url: string, options: { taskTool?: string; protocolVersion?: string } = {}): Promise<RunOutcome> {
  return runConformance({
    target: { kind: 'http', url },
    protocolVersion: options.protocolVersion ?? '2026-07-28',
    extensions: ['tasks'],
    taskTool: 'taskTool' in options ? options.taskTool : 'compute',
  });
}

const statusOf = (outcome: RunOutcome, status: string): string[] =>
  outcome.results.filter((result) => result.status === status).map((result) => result.id);

/** Adds `execution.taskSupport` to the tools `tools/list` answers, as a server on another SDK would publish it. */
function publishing(support: Record<string, string>): (handler: FetchHandler) => FetchHandler {
  return (handler) => ({
    ...handler,
    fetch: async (request, options) => {
      const body = (await request.clone().json()) as { method?: unknown };
      const response = await handler.fetch(request, options);
      if (body.method !== 'tools/list') return response;
      const text = await response.text();
      const json = text.startsWith('{') ? text : (/^data: (.*)$/m.exec(text)?.[1] ?? text);
      const answer = JSON.parse(json) as { result: { tools: Record<string, unknown>[] } };
      for (const tool of answer.result.tools) {
        const published = support[String(tool.name)];
        if (published !== undefined) tool.execution = { taskSupport: published };
      }
      return Response.json(answer);
    },
  });
}

/** Wraps one of the extension's named methods. */
function wrapMethod(
  tasks: ServerExtension,
  method: string,
  wrap: (inner: MethodHandler) => MethodHandler,
): ServerExtension {
  const methods = tasks.namedMethods ?? {};
  const inner = methods[method];
  if (inner === undefined) throw new Error(`tasksServer serves no ${method}`);
  return { ...tasks, namedMethods: { ...methods, [method]: wrap(inner) } };
}

/** Rewrites the answer `tools/call` gives when the call became a task. */
function rewriteHandle(rewrite: (handle: Record<string, unknown>) => Record<string, unknown>): Fault {
  return (tasks) => ({
    ...tasks,
    middleware: async (call, ctx, next) => {
      const result = await tasks.middleware!(call, ctx, next);
      return (result as Record<string, unknown>).resultType === 'task' ? (rewrite(result) as typeof result) : result;
    },
  });
}

/** Planted faults, each with the checks it must make fail (and nothing else). */
const FAULTS: Record<string, { fault?: Fault; front?: (handler: FetchHandler) => FetchHandler; fails: string[] }> = {
  'wraps the task in a "task" object (the 2025-11-25 shape)': {
    fault: rewriteHandle(({ resultType, ...task }) => ({ resultType, content: [], task })),
    // Without a taskId at the top, nothing can be asked about the task either.
    fails: ['tasks/create-shape', 'tasks/readable-at-once', 'tasks/completed-result', 'tasks/cancel'],
  },
  'sends the 2025-11-25 "ttl" instead of ttlMs': {
    fault: rewriteHandle(({ ttlMs, ...handle }) => ({ ...handle, ttl: ttlMs })),
    fails: ['tasks/create-shape'],
  },
  'creates tasks for clients that do not declare the extension': {
    fault: (tasks) => ({
      ...tasks,
      middleware: (call, ctx, next) =>
        tasks.middleware!(
          call,
          { ...ctx, negotiated: ((id: string) => ctx.negotiated(id) ?? { id, settings: {} }) as typeof ctx.negotiated },
          next,
        ),
    }),
    fails: ['tasks/synchronous-otherwise'],
  },
  'answers a client that does not declare the extension as for an unknown task': {
    fault: (tasks) =>
      ['tasks/get', 'tasks/update', 'tasks/cancel'].reduce(
        (wrapped, method) =>
          wrapMethod(wrapped, method, (inner) => async (params, ctx) => {
            try {
              return await inner(params, ctx);
            } catch (error) {
              if (error instanceof WireError && error.code === -32021)
                throw new WireError(-32602, `Unknown task: ${String(params.taskId)}`);
              throw error;
            }
          }),
        tasks,
      ),
    fails: ['tasks/undeclared-refused'],
  },
  'advertises versioned settings under the official identifier (before 0.2)': {
    fault: (tasks) => ({ ...tasks, aliasSettings: undefined }),
    fails: ['tasks/capability'],
  },
  "inlines a completed task's result without its resultType (before 0.2)": {
    fault: (tasks) =>
      wrapMethod(tasks, 'tasks/get', (inner) => async (params, ctx) => {
        const task = await inner(params, ctx);
        if (!isRecord(task.result)) return task;
        const { resultType: _dropped, ...result } = task.result;
        return { ...task, result };
      }),
    fails: ['tasks/completed-result'],
  },
  'drops the inlined result of a completed task': {
    fault: (tasks) =>
      wrapMethod(tasks, 'tasks/get', (inner) => async (params, ctx) => {
        const { result: _dropped, ...task } = await inner(params, ctx);
        return task;
      }),
    fails: ['tasks/completed-result'],
  },
  'answers an unknown task with -32603': {
    fault: (tasks) =>
      wrapMethod(tasks, 'tasks/get', (inner) => async (params, ctx) => {
        try {
          return await inner(params, ctx);
        } catch (error) {
          if (error instanceof WireError && error.message.startsWith('Unknown task'))
            throw new WireError(-32603, 'Task lookup failed');
          throw error;
        }
      }),
    fails: ['tasks/unknown-task'],
  },
  'refuses to cancel a task that already ended': {
    fault: (tasks) =>
      wrapMethod(tasks, 'tasks/cancel', (inner) => async (params, ctx) => {
        const task = await tasks.namedMethods!['tasks/get']!(params, ctx);
        if (['completed', 'failed', 'cancelled'].includes(String(task.status)))
          throw new WireError(-32602, 'Task already finished');
        return inner(params, ctx);
      }),
    fails: ['tasks/cancel'],
  },
  // The SDK itself answers tasks/list -32601 on 2026-07-28, so this server answers it in front of the SDK.
  'still serves tasks/list': {
    front: (handler) => ({
      ...handler,
      fetch: async (request, options) => {
        const body = (await request.clone().json()) as { id?: unknown; method?: unknown };
        if (body.method !== 'tasks/list') return handler.fetch(request, options);
        return Response.json({ jsonrpc: '2.0', id: body.id, result: { resultType: 'complete', tasks: [] } });
      },
    }),
    fails: ['tasks/removed-methods'],
  },
  'refuses malformed params without a structured error': {
    fault: (tasks) =>
      wrapMethod(tasks, 'tasks/get', (inner) => (params, ctx) => {
        if (typeof params.taskId !== 'string') throw new WireError(-32602, 'Invalid params');
        return inner(params, ctx);
      }),
    fails: ['tasks/invalid-params'],
  },
};

describe('the tasks suite against a server composed with @ext/tasks over HTTP', () => {
  it('passes every check on 2026-07-28 when told which tool runs as a task', async () => {
    const outcome = await run(await serve());
    expect(outcome.server.extensions).toHaveProperty([TASKS_ID]);
    expect(outcome.results.filter((result) => result.status !== 'passed')).toEqual([]);
    expect(statusOf(outcome, 'passed').filter((id) => id.startsWith('tasks/'))).toHaveLength(10);
    expect(outcome.untested).toEqual([]);
    expect(outcome.exitCode).toBe(0);
  });

  it('skips the checks that need a task, saying why, when no tool is known to run as one', async () => {
    const url = await serve();
    const unnamed = await run(url, { taskTool: undefined });
    const skipped = unnamed.results.filter((result) => result.status === 'skipped');
    expect(skipped.map((result) => result.id)).toEqual([
      'tasks/synchronous-otherwise',
      'tasks/create-shape',
      'tasks/readable-at-once',
      'tasks/completed-result',
      'tasks/cancel',
    ]);
    expect(skipped.every((result) => result.message?.includes('--task-tool'))).toBe(true);
    expect(unnamed.exitCode).toBe(0);

    const synchronous = await run(url, { taskTool: 'greet' });
    expect(synchronous.results.find((result) => result.id === 'tasks/create-shape')).toMatchObject({
      status: 'skipped',
      message: expect.stringContaining('answered synchronously') as unknown,
    });
  });

  it('reads execution.taskSupport when tools/list publishes it (the SDK v2 server does not) to find the tools', async () => {
    const outcome = await run(await serve(undefined, publishing({ compute: 'optional', archive: 'required' })), {
      taskTool: undefined,
    });
    expect(outcome.results.filter((result) => result.status !== 'passed')).toEqual([]);

    // A tool published as requiring a task that a client without the extension can still call.
    const lying = await run(await serve(undefined, publishing({ compute: 'optional', greet: 'required' })), {
      taskTool: undefined,
    });
    expect(lying.results.filter((result) => result.status === 'failed')).toMatchObject([
      {
        id: 'tasks/undeclared-refused',
        message: expect.stringContaining('tools/call greet answered result') as unknown,
      },
    ]);
  });

  it('on 2025-11-25 checks that calls stay synchronous and skips what only 2026-07-28 defines', async () => {
    const outcome = await run(await serve(), { protocolVersion: '2025-11-25' });
    expect(outcome.server.era).toBe('legacy');
    expect(statusOf(outcome, 'passed').filter((id) => id.startsWith('tasks/'))).toEqual([
      'tasks/capability',
      'tasks/synchronous-otherwise',
      'tasks/removed-methods',
    ]);
    const skipped = outcome.results.filter((result) => result.status === 'skipped');
    expect(skipped).toHaveLength(7);
    expect(skipped.every((result) => result.message?.includes('--protocol-version 2026-07-28'))).toBe(true);
    expect(outcome.exitCode).toBe(0);
  });

  it.each(Object.entries(FAULTS))('fails exactly the checks a planted fault breaks: %s', async (_name, planted) => {
    const outcome = await run(await serve(planted.fault, planted.front));
    expect(statusOf(outcome, 'error')).toEqual([]);
    expect(statusOf(outcome, 'failed').sort()).toEqual([...planted.fails].sort());
    expect(outcome.exitCode).toBe(1);
  });
});

/**
 * Test support: a server composed with `tasksServer` behind real HTTP on a
 * free port, and a plain JSON-RPC client of the 2026-07-28 era (the SDK's
 * client refuses `resultType: "task"` on `tools/call`), so the tests read
 * exactly what travels.
 */
import { composeServer, MemoryStore, WireError, type Store } from '@ext/core';
import { createHttpHandler, extendServer, listen } from '@ext/core/sdk-v2/server';
import { McpServer } from '@modelcontextprotocol/server';
import * as z from 'zod';
import { getTaskId, requestTaskInput, tasksServer, type TasksServerOptions } from './server.js';
import { TASKS_ID } from './schema.js';
import type { TaskRequester } from './client.js';

export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data: unknown,
  ) {
    super(message);
  }
}

export interface Served {
  readonly url: string;
  /** Ids of the tasks whose handler saw its signal abort on this instance. */
  readonly aborted: readonly string[];
  close(): Promise<void>;
}

/** A server with the fixture tools of the official conformance scenarios. */
export async function serveTasks(store: Store = new MemoryStore(), options: TasksServerOptions = {}): Promise<Served> {
  const aborted: string[] = [];
  const composed = composeServer([
    tasksServer({
      tools: { slow_compute: 'optional', failing_job: 'optional', protocol_error_job: 'optional', confirm: 'required' },
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
  return { url: String(listening.url), aborted, close: () => listening.close() };
}

let nextId = 1;

/** A 2026-07-28 JSON-RPC client over HTTP, as `user`, declaring the extension unless `declare` is false. */
export function rpcClient(url: string, user: string, declare = true): TaskRequester {
  return {
    async request(method, params = {}) {
      const meta = {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientCapabilities': declare ? { extensions: { [TASKS_ID]: {} } } : {},
        'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '0.0.0' },
      };
      const name =
        typeof params.name === 'string' ? params.name : typeof params.taskId === 'string' ? params.taskId : undefined;
      const response = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': method,
          ...(name === undefined ? {} : { 'mcp-name': name }),
          'x-user': user,
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params: { ...params, _meta: meta } }),
      });
      const text = await response.text();
      const body = JSON.parse(text.startsWith('{') ? text : (/^data: (.*)$/m.exec(text)?.[1] ?? text)) as {
        result?: Record<string, unknown>;
        error?: { code: number; message: string; data?: unknown };
      };
      if (body.error !== undefined) throw new RpcError(body.error.code, body.error.message, body.error.data);
      return body.result ?? {};
    },
  };
}

/**
 * A tasks server run as a child process by the crash tests: tasks and
 * streaming composed, over HTTP on a free port, its store a SQLite file, its
 * callers named by the `x-user` header. Its one argument is a JSON object:
 * `path` (the database file), `onInterrupt` (the policy of `count`),
 * `leaseMs`, and `admitOnce` (a stage outside the tasks stage that admits
 * one call of `count` per caller, and refuses any later one, a resumption
 * included). It prints one JSON event a line on stdout: `listening` with its
 * URL, and `start` each time a `count` handler begins, with the step it
 * begins from.
 */
import { composeServer, ExtensionError, type ServerExtension } from '@ext/core';
import { createHttpHandler, extendServer, listen } from '@ext/core/sdk-v2/server';
import { errorsServer } from '@ext/errors/server';
import { createSqliteStore } from '@ext/store-sqlite';
import { STREAMING_ID } from '@ext/streaming';
import { streamingServer, streamOf } from '@ext/streaming/server';
import { McpServer } from '@modelcontextprotocol/server';
import * as z from 'zod';
import { tasksServer, type InterruptPolicy } from '../server.js';

interface CrashServerConfig {
  readonly path: string;
  readonly onInterrupt: InterruptPolicy;
  readonly leaseMs: number;
  readonly admitOnce?: boolean;
}

function emit(event: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify(event)}\n`);
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(new Error('aborted'));
      },
      { once: true },
    );
  });
}

const config = JSON.parse(process.argv[2] ?? '{}') as CrashServerConfig;
const store = createSqliteStore({ path: config.path });
/** Admits one call of `count` per caller, counted in the store, so a restarted server refuses the resumption. */
const admitOnce: ServerExtension = {
  side: 'server',
  name: '@ext/admit-once-fixture',
  ids: ['com.example/admit-once'],
  settings: { version: '1.0' },
  stage: 'permissions',
  middleware: async (call, ctx, next) => {
    if (call.name === 'count' && (await store.increment(`admitted:${ctx.principal}`)) > 1) {
      throw new ExtensionError('permanent', 'ADMITTED_ONCE', 'count runs once per caller');
    }
    return next();
  },
};

const composed = composeServer([
  // With the errors stage outermost, a refusal is answered as an error result rather than thrown.
  config.admitOnce === true && errorsServer(),
  config.admitOnce === true && admitOnce,
  tasksServer({
    tools: { count: 'optional', quick: 'optional' },
    onInterrupt: { count: config.onInterrupt },
    leaseMs: config.leaseMs,
    pollIntervalMs: 20,
  }),
  streamingServer(),
]);

/** `count` counts `steps` steps of `stepMs`, saving after each the step to go on from, and says where it started. */
function registerTools(mcp: McpServer): McpServer {
  const server = extendServer(mcp, composed, { store });
  server.registerTool(
    'count',
    {
      inputSchema: z.object({ steps: z.number().int().positive(), stepMs: z.number().int().nonnegative() }),
      _meta: { [STREAMING_ID]: { checkpoints: true } },
    },
    async ({ steps, stepMs }, ctx) => {
      const stream = streamOf<{ next: number }>(ctx);
      const from = stream.resumeState?.next ?? 0;
      emit({ event: 'start', from });
      for (let next = from; next < steps; next++) {
        await pause(stepMs, stream.signal);
        await stream.checkpoint({ next: next + 1 });
        await stream.progress(next + 1, steps, `step ${next + 1} of ${steps}`);
      }
      const report = { from, steps, resumed: stream.resumed, pid: process.pid };
      return { content: [{ type: 'text', text: JSON.stringify(report) }] };
    },
  );
  server.registerTool('quick', {}, () => ({ content: [{ type: 'text', text: 'done at once' }] }));
  return mcp;
}

const handler = createHttpHandler(() => registerTools(new McpServer({ name: 'crash-fixture', version: '0.0.0' })), {
  identify: (request) => request.headers.get('x-user') ?? undefined,
});
const listening = await listen(handler, { port: 0 });
emit({ event: 'listening', url: String(listening.url) });

/** The README's restart example: a long export that resumes from its last checkpoint after its server died. */
// #region resume
import { McpServer, requireBearerAuth } from '@modelcontextprotocol/server';
import { composeServer } from '@ext/core';
import { createHttpHandler, extendServer, listen } from '@ext/core/sdk-v2/server';
import { createSqliteStore } from '@ext/store-sqlite';
import { streamingServer, streamOf } from '@ext/streaming/server';
import { tasksServer } from '@ext/tasks/server';
import * as z from 'zod';

const composed = composeServer([
  tasksServer({ tools: { export_rows: 'optional' }, onInterrupt: { export_rows: 'resume' }, leaseMs: 10_000 }),
  streamingServer(),
]);
const store = createSqliteStore({ path: 'state.db' }); // durable: a restarted server finds the task

const handler = createHttpHandler(
  () => {
    const mcp = new McpServer({ name: 'exports', version: '1.0.0' });
    const server = extendServer(mcp, composed, { store });
    server.registerTool('export_rows', { inputSchema: z.object({ table: z.string() }) }, async ({ table }, ctx) => {
      const stream = streamOf<{ next: number }>(ctx);
      const total = await countRows(table);
      // A resumed execution starts after the last row its checkpoint names.
      for (let next = stream.resumeState?.next ?? 0; next < total; next += 1) {
        stream.signal.throwIfAborted(); // tasks/cancel, from any instance
        await appendRow(table, next);
        await stream.checkpoint({ next: next + 1 });
        await stream.progress(next + 1, total, `row ${next + 1} of ${total}`); // tasks/get shows it
      }
      return { content: [{ type: 'text', text: `exported ${total} rows` }] };
    });
    return mcp;
  },
  { authenticate: requireBearerAuth({ verifier: tokenVerifier }) },
);
await listen(handler, { port: 3000 });
// #endregion resume

declare function countRows(table: string): Promise<number>;
declare function appendRow(table: string, index: number): Promise<void>;
declare const tokenVerifier: Parameters<typeof requireBearerAuth>[0]['verifier'];

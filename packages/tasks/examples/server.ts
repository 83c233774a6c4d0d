/** The README's server example: tools that run as tasks, served over HTTP. */
// #region server
import { McpServer, requireBearerAuth } from '@modelcontextprotocol/server';
import { composeServer, MemoryStore } from '@ext/core';
import { createHttpHandler, extendServer, listen } from '@ext/core/sdk-v2/server';
import { requestTaskInput, tasksServer } from '@ext/tasks/server';
import * as z from 'zod';

// Which tools may answer with a task; every other tool answers synchronously.
const composed = composeServer([
  tasksServer({ tools: { export_report: 'optional', delete_project: 'required' }, ttlMs: 86_400_000 }),
]);
const store = new MemoryStore(); // @ext/store-sqlite or @ext/store-redis: tasks survive restarts, shared by instances

const handler = createHttpHandler(
  () => {
    const mcp = new McpServer({ name: 'reports', version: '1.0.0' });
    const server = extendServer(mcp, composed, { store });
    server.registerTool('export_report', { inputSchema: z.object({ month: z.string() }) }, async ({ month }, ctx) => {
      const url = await exportReport(month, ctx.signal); // ctx.signal aborts on tasks/cancel
      return { content: [{ type: 'text', text: url }] };
    });
    server.registerTool('delete_project', { inputSchema: z.object({ id: z.string() }) }, async ({ id }, ctx) => {
      // The task shows this in inputRequests (status input_required) until tasks/update answers it.
      const { confirm } = await requestTaskInput(ctx, {
        confirm: {
          method: 'elicitation/create',
          params: { message: `Delete ${id}?`, requestedSchema: { type: 'object', properties: {} } },
        },
      });
      if ((confirm as { action?: string } | undefined)?.action !== 'accept') {
        return { content: [{ type: 'text', text: 'kept' }] };
      }
      await deleteProject(id);
      return { content: [{ type: 'text', text: `deleted ${id}` }] };
    });
    return mcp;
  },
  { authenticate: requireBearerAuth({ verifier: tokenVerifier }) }, // tasks belong to the caller
);
await listen(handler, { port: 3000 });
// #endregion server

declare function exportReport(month: string, signal: AbortSignal): Promise<string>;
declare function deleteProject(id: string): Promise<void>;
declare const tokenVerifier: Parameters<typeof requireBearerAuth>[0]['verifier'];

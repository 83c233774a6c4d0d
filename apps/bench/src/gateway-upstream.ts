/**
 * The gateway benchmark's upstream in its own process: a plain SDK v2
 * `McpServer` (no extensions) with a `write` tool that says its text back
 * and a read-only `read` tool, served over Streamable HTTP on 127.0.0.1
 * through core's `createHttpHandler` and `listen`. Started by `gateway.ts`
 * with `fork`; it talks over the IPC channel only.
 */
import { silentLogger } from '@ext/core/kit';
import { createHttpHandler, listen } from '@ext/core/sdk-v2/server';
import { McpServer } from '@modelcontextprotocol/server';
import * as z from 'zod';
import { failStart, serveCommands, tell } from './child.js';
import { READ_TOOL, WRITE_TOOL } from './gateway-setup.js';

/** Child -> parent, once it serves. */
export interface UpstreamReady {
  readonly type: 'ready';
  readonly url: string;
}

function upstreamServer(): McpServer {
  const mcp = new McpServer({ name: 'bench-upstream', version: '0.0.0' });
  mcp.registerTool(
    WRITE_TOOL,
    {
      description: 'Writes a note (nothing is kept) and says its text back.',
      inputSchema: z.object({ text: z.string() }),
      annotations: { readOnlyHint: false, destructiveHint: false },
    },
    ({ text }) => ({ content: [{ type: 'text', text }] }),
  );
  mcp.registerTool(
    READ_TOOL,
    {
      description: 'Reads the notes (there are none).',
      inputSchema: z.object({}),
      annotations: { readOnlyHint: true },
    },
    () => ({ content: [{ type: 'text', text: 'no notes' }] }),
  );
  return mcp;
}

async function serve(): Promise<void> {
  // The 2026-07-28 era builds a server per request; the 2025 era one per session.
  const handler = createHttpHandler(upstreamServer, { logger: silentLogger });
  const listening = await listen(handler, { port: 0 });
  serveCommands(
    () => Promise.reject(new Error('the upstream answers no command')),
    () => listening.close(),
  );
  tell({ type: 'ready', url: listening.url.href } satisfies UpstreamReady);
}

serve().catch(failStart);

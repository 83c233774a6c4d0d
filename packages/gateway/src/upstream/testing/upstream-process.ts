/**
 * Test support, run as a program of its own (compiled by `processes.ts`): an
 * SDK v2 MCP server over Streamable HTTP (2026-07-28, and 2025-11-25
 * stateless) on the port it is given, for tests that kill it, freeze it and
 * start it again on the same port. It appends a line to its log file for
 * each call it receives, before running it, so a test counts what reached
 * the upstream whatever became of the call.
 *
 * Usage: node upstream-process.js --port <n> --log <file> [--hold]
 * (`--hold`: calls never return; the process prints `listening <url>` once it serves).
 */
import { appendFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { silentLogger } from '@ext/core/kit';
import { listen } from '@ext/core/sdk-v2/server';
import { McpServer, createMcpHandler, type ServerContext } from '@modelcontextprotocol/server';
import * as z from 'zod';

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '0' },
    log: { type: 'string' },
    hold: { type: 'boolean', default: false },
  },
});
const log = values.log;
if (log === undefined) throw new Error('--log <file> is required');

/** Never settles: what a held call waits for, until the process is killed. */
const forever = new Promise<never>(() => undefined);

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Logs the call as received, then answers `text` (after `delayMs`). A held
 * call first tells the client it is under way, so its answer is an event
 * stream already open when the process dies, then never answers.
 */
async function answer(line: string, text: string, ctx: ServerContext, delayMs = 0) {
  appendFileSync(log as string, `${line}\n`);
  if (values.hold) {
    await ctx.mcpReq.notify({ method: 'notifications/message', params: { level: 'info', data: `holding ${line}` } });
    await forever;
  }
  if (delayMs > 0) await pause(delayMs);
  return { content: [{ type: 'text' as const, text }] };
}

function build(): McpServer {
  const server = new McpServer({ name: 'upstream-process', version: '1.0.0' }, { capabilities: { logging: {} } });
  server.registerTool(
    'lookup',
    {
      description: 'Reads a key (read-only), optionally slowly.',
      inputSchema: z.object({ key: z.string(), delayMs: z.number().int().min(0).optional() }),
      annotations: { readOnlyHint: true },
    },
    ({ key, delayMs }, ctx) => answer(`lookup ${key}`, `found ${key}`, ctx, delayMs),
  );
  server.registerTool(
    'append',
    {
      description: 'Appends a line (a write that is not safe to repeat).',
      inputSchema: z.object({ text: z.string() }),
    },
    ({ text }, ctx) => answer(`append ${text}`, `appended ${text}`, ctx),
  );
  return server;
}

const handler = createMcpHandler(build);
const listening = await listen(
  { fetch: (request: Request) => handler.fetch(request), close: () => handler.close() },
  { port: Number(values.port), logger: silentLogger },
);
process.stdout.write(`listening ${String(listening.url)}\n`);

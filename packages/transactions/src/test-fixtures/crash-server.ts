/**
 * A real MCP server process over stdio for the recovery tests: SQLite-backed,
 * with a ticket tool whose compensation records every run and every effect
 * in the same database, so a test can count them across restarts.
 *
 * Environment:
 * - `TXN_DB`: the SQLite file (required).
 * - `TXN_CLOCK_OFFSET_MS`: added to the wall clock, to make time pass between runs.
 * - `TXN_HANG_ON`: a ticket title whose compensation applies its effect and then
 *   never returns, as a process that dies mid-compensation would.
 */
import { ExtensionError } from '@ext/core';
import { extendServer } from '@ext/core/sdk-v1';
import { errorsServer } from '@ext/errors/server';
import { idempotencyServer } from '@ext/idempotency/server';
import { createSqliteStore } from '@ext/store-sqlite';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import * as z from 'zod';
import { transactionsServer } from '../server.js';

const path = process.env.TXN_DB;
if (path === undefined || path === '') throw new Error('TXN_DB is required');
const offset = Number(process.env.TXN_CLOCK_OFFSET_MS ?? '0');
const hangOn = process.env.TXN_HANG_ON;

const store = createSqliteStore({ path, sweepIntervalMs: 0 });
const now = (): number => Date.now() + offset;

function mark(line: string): void {
  process.stderr.write(`${line}\n`);
}

const transactions = transactionsServer({
  now,
  sweepIntervalMs: 0,
  compensations: {
    create_ticket: {
      description: (_args, result) => `Delete ticket ${String(result.structuredContent?.id)}`,
      compensate: async (args, result, ctx) => {
        const id = String(result.structuredContent?.id);
        await store.increment(`world:runs:${ctx.stepId}`);
        // The key makes a re-run of an interrupted compensation harmless.
        if (await store.setIfAbsent(`world:applied:${ctx.idempotencyKey}`, true)) {
          await store.delete(`world:ticket:${id}`);
          await store.increment(`world:effects:${ctx.stepId}`);
          await store.append('world:undone', id);
        }
        if (args.title === hangOn) {
          mark(`HANGING ${ctx.stepId}`);
          await new Promise<never>(() => {
            // Never settles: the test kills the process here.
          });
        }
      },
    },
  },
});

const server = new McpServer({ name: 'transactions-recovery-fixture', version: '0.0.0' });
const extended = extendServer(server, [errorsServer(), idempotencyServer(), transactions], { store });
extended.registerTool('create_ticket', { inputSchema: z.object({ title: z.string() }) }, async (args) => {
  if (args.title === '') throw new ExtensionError('invalid_input', 'INVALID_INPUT', 'A ticket needs a title');
  const id = `T-${await store.increment('world:next')}`;
  await store.set(`world:ticket:${id}`, args.title);
  return { content: [{ type: 'text', text: id }], structuredContent: { id } };
});

// Recovery runs before serving, as a restarted production server would.
const report = await transactions.start(store);
mark(`RECOVERY ${JSON.stringify(report)}`);
await server.connect(new StdioServerTransport());
mark('READY');

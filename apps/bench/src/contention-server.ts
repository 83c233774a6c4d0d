/**
 * One instance of the contention benchmark in its own process: the full
 * stack (every extension) on a Redis store shared with the other instance,
 * and a `write` tool that counts its executions in that store, served over
 * Streamable HTTP on 127.0.0.1. Its one argument is a JSON object: `redisUrl`,
 * `keyPrefix` (the same for both instances) and `commandTimeoutMs`. It
 * reports how late its event loop ran and how many store outages it logged.
 * Started by `contention.ts` with `fork`; it talks over the IPC channel only.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { Logger } from '@ext/core';
import { createHttpHandler, extendServer, listen } from '@ext/core/sdk-v2/server';
import { createRedisStore } from '@ext/store-redis';
import { McpServer } from '@modelcontextprotocol/server';
import * as z from 'zod';
import { failStart, serveCommands, tell } from './child.js';
import { EXECUTIONS_KEY, WRITE_TOOL, type ContentionAnswer, type ContentionServerConfig } from './contention-setup.js';
import { buildStack, FULL } from './stack.js';

async function serve(config: ContentionServerConfig): Promise<void> {
  let outages = 0;
  const logger: Logger = {
    warn: (message) => {
      if (message.includes('store unavailable')) outages += 1;
    },
  };
  const store = await createRedisStore({
    url: config.redisUrl,
    keyPrefix: config.keyPrefix,
    commandTimeoutMs: config.commandTimeoutMs,
    logger,
  });
  const built = buildStack(FULL, store);
  const build = (): McpServer => {
    const mcp = new McpServer({ name: 'bench-contention', version: '0.0.0' });
    extendServer(mcp, built.composed, { store, logger }).registerTool(
      WRITE_TOOL,
      {
        description: 'Creates a note; a retry with the same idempotency key creates nothing more.',
        inputSchema: z.object({ text: z.string() }),
        annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
      },
      async ({ text }, ctx) => {
        const executions = await ctx.store.increment(EXECUTIONS_KEY, 1, { ttlMs: 600_000 });
        return { content: [{ type: 'text', text: `note ${String(executions)}: ${text}` }] };
      },
    );
    return mcp;
  };
  const handler = createHttpHandler(build, {
    identify: (request) => request.headers.get('x-user') ?? undefined,
    logger,
  });
  const listening = await listen(handler, { port: 0 });
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  serveCommands(
    (command) => {
      if (command.type === 'reset') {
        delay.reset();
        return Promise.resolve({ type: 'reset' as const });
      }
      return Promise.resolve({ type: 'stats' as const, maxLoopDelayMs: delay.max / 1e6, outages });
    },
    async () => {
      delay.disable();
      await listening.close();
      await built.close();
    },
  );
  // A benchmark that died must not leave its servers behind.
  process.once('disconnect', () => {
    process.exit();
  });
  tell({ type: 'ready', url: listening.url.href } satisfies ContentionAnswer);
}

serve(JSON.parse(process.argv[2] ?? '{}') as ContentionServerConfig).catch(failStart);

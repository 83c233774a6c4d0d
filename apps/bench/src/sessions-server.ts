/**
 * One run of the session-memory benchmark, in its own process so that its
 * RSS is its own: `<v1|v2> <count> <max|default>` builds core's
 * `createHttpHandler` of that SDK line around the full stack (every
 * extension composed) and sends it `count` legacy-era `initialize` requests
 * in process, never a DELETE, reading each answer to its end as a client
 * would. Started by `sessions.ts`; it reports over the IPC channel.
 */
import { silentLogger } from '@ext/core/kit';
import { createHttpHandler as createHttpHandlerV1, extendServer as extendServerV1 } from '@ext/core/sdk-v1';
import { createHttpHandler as createHttpHandlerV2, extendServer as extendServerV2 } from '@ext/core/sdk-v2/server';
import { McpServer as McpServerV1 } from '@modelcontextprotocol/sdk/server/mcp.js';
import { McpServer as McpServerV2 } from '@modelcontextprotocol/server';
import { failStart, tell } from './child.js';
import { buildStack, echo, FULL, INPUT, TOOL, TOOL_META } from './stack.js';

export interface MemorySample {
  /** `initialize` requests sent so far. */
  readonly sent: number;
  readonly rss: number;
  readonly heapUsed: number;
}

/** Child -> parent, once. */
export interface SessionsAnswer {
  readonly type: 'done';
  readonly samples: readonly MemorySample[];
  /** Answers by HTTP status. */
  readonly statuses: Readonly<Record<string, number>>;
  readonly elapsedMs: number;
}

const SERVER_INFO = { name: 'bench-sessions', version: '0.0.0' };
const SAMPLES = 10;
/** Also sampled: when the default table (1,000 sessions) has just filled. */
const FULL_AT = 1_000;
const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '0' } },
});

function handlerFor(
  line: string,
  max: number | undefined,
): { fetch(request: Request): Promise<Response>; close(): Promise<void> } {
  const built = buildStack(FULL);
  // The default limits unless `max` is given: that is what is measured.
  const options = {
    anonymous: 'shared' as const,
    logger: silentLogger,
    ...(max !== undefined && { sessions: { max } }),
  };
  if (line === 'v1') {
    return createHttpHandlerV1(() => {
      const mcp = new McpServerV1(SERVER_INFO);
      extendServerV1(mcp, built.composed, { store: built.store, logger: silentLogger }).registerTool(
        TOOL,
        { inputSchema: INPUT, _meta: TOOL_META },
        echo,
      );
      return mcp;
    }, options);
  }
  return createHttpHandlerV2(() => {
    const mcp = new McpServerV2(SERVER_INFO);
    extendServerV2(mcp, built.composed, { store: built.store, logger: silentLogger }).registerTool(
      TOOL,
      { inputSchema: INPUT, _meta: TOOL_META },
      echo,
    );
    return mcp;
  }, options);
}

function sample(sent: number): MemorySample {
  globalThis.gc?.();
  const usage = process.memoryUsage();
  return { sent, rss: usage.rss, heapUsed: usage.heapUsed };
}

async function run(line: string, count: number, max: number | undefined): Promise<SessionsAnswer> {
  const handler = handlerFor(line, max);
  const statuses: Record<string, number> = {};
  const samples = [sample(0)];
  const every = Math.max(1, Math.ceil(count / SAMPLES));
  const started = performance.now();
  for (let sent = 1; sent <= count; sent++) {
    const response = await handler.fetch(
      new Request('http://bench.test/mcp', {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: INITIALIZE,
      }),
    );
    await response.text();
    const status = String(response.status);
    statuses[status] = (statuses[status] ?? 0) + 1;
    if (sent % every === 0 || sent === count || sent === FULL_AT) samples.push(sample(sent));
  }
  const elapsedMs = performance.now() - started;
  await handler.close();
  return { type: 'done', samples, statuses, elapsedMs };
}

const [line = 'v2', countArgument = '50000', maxArgument = 'default'] = process.argv.slice(2);
run(line, Number(countArgument), maxArgument === 'default' ? undefined : Number(maxArgument)).then(
  (answer) => {
    tell({ ...answer });
    process.disconnect();
  },
  (error: unknown) => {
    failStart(error);
  },
);

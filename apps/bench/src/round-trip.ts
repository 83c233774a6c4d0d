/** Suite 1: one `tools/call` round trip through each stack (bare SDK, adapters, composed layers) per SDK line. */
import {
  composeServer,
  MemoryStore,
  type ExtendedClient,
  type ServerExtension,
  type Store,
  type ToolResult,
} from '@ext/core';
import { silentLogger } from '@ext/core/kit';
import { extendClient as extendClientV1, extendServer as extendServerV1 } from '@ext/core/sdk-v1';
import { extendClient as extendClientV2 } from '@ext/core/sdk-v2/client';
import { createHttpHandler, extendServer as extendServerV2 } from '@ext/core/sdk-v2/server';
import { ERRORS_ID } from '@ext/errors';
import { errorsClient } from '@ext/errors/client';
import { errorsServer } from '@ext/errors/server';
import { IDEMPOTENCY_ID } from '@ext/idempotency';
import { idempotencyClient } from '@ext/idempotency/client';
import { idempotencyServer } from '@ext/idempotency/server';
import { TRANSACTIONS_ID } from '@ext/transactions';
import { transactionsClient } from '@ext/transactions/client';
import { transactionsServer } from '@ext/transactions/server';
import { Client as ClientV2, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport as InMemoryTransportV1 } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer as McpServerV1 } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  InMemoryTransport as InMemoryTransportV2,
  McpServer as McpServerV2,
  createMcpHandler,
} from '@modelcontextprotocol/server';
import * as z from 'zod';
import { measureSequential, type Measurement, type RunOptions } from './measure.js';

/** Which stack answers the call; `bare` is the SDK alone, the baseline of its group. */
export type Scenario = 'bare' | 'adapter' | 'stack' | 'stack-key-memory' | 'stack-key-sqlite';

export const SCENARIO_LABELS: Readonly<Record<Scenario, string>> = {
  bare: '(a) bare SDK `registerTool`',
  adapter: '(b) `extendServer` / `extendClient`, no extensions',
  stack: '(c) errors + idempotency + transactions, no key',
  'stack-key-memory': '(d) same, fresh idempotency key, `MemoryStore`',
  'stack-key-sqlite': '(e) same, fresh idempotency key, SQLite store',
};

export type Line = 'v1' | 'v2-legacy' | 'v2-modern';

export const LINE_LABELS: Readonly<Record<Line, string>> = {
  v1: 'SDK v1 (`@modelcontextprotocol/sdk`), `InMemoryTransport`',
  'v2-legacy': 'SDK v2, 2025-11-25 era (`initialize`), `InMemoryTransport`',
  'v2-modern': 'SDK v2, 2026-07-28 era, in-process Streamable HTTP handler (a server per request)',
};

export interface RoundTripRow {
  readonly scenario: Scenario;
  readonly measurement: Measurement;
}

export interface RoundTripGroup {
  readonly line: Line;
  readonly rows: readonly RoundTripRow[];
}

const TOOL = 'echo';
const INPUT = { text: z.string() };
const ARGS = { text: 'hello' };
const MODERN_PROTOCOL_VERSION = '2026-07-28';
const ENDPOINT = new URL('http://bench.invalid/mcp');
const CLIENT_INFO = { name: 'bench-client', version: '0.0.0' };
const SERVER_INFO = { name: 'bench-server', version: '0.0.0' };

// Typed by inference so both SDKs and the core accept it as a tool result.
function echo({ text }: { text: string }) {
  return { content: [{ type: 'text' as const, text }] };
}

/** A linked client and server, and one `tools/call` through them. */
interface Pair {
  call(): Promise<unknown>;
  close(): Promise<void>;
}

interface Stack {
  readonly server: readonly ServerExtension[];
  readonly client: Parameters<typeof extendClientV2>[1];
  readonly store: Store;
  /** Whether a correct result carries a fresh idempotency entry; checked once before timing. */
  readonly expectKey: boolean;
  /** Stops what the stack started (the transactions sweeper) and closes its store. */
  close(): Promise<void>;
}

/**
 * The extensions and store of scenarios (b) to (e). The idempotency budget
 * is raised because every timed call records a new key for the same caller.
 */
function stackFor(scenario: Exclude<Scenario, 'bare'>, stores: { sqlite: () => Store }): Stack {
  if (scenario === 'adapter') {
    const store = new MemoryStore();
    return { server: [], client: [], store, expectKey: false, close: () => store.close() };
  }
  const withKey = scenario !== 'stack';
  const transactions = transactionsServer();
  const store = scenario === 'stack-key-sqlite' ? stores.sqlite() : new MemoryStore();
  return {
    server: [
      errorsServer(),
      idempotencyServer({ maxKeysPerPrincipal: 1_000_000_000, defaultTtlSeconds: 600 }),
      transactions,
    ],
    client: [errorsClient(), idempotencyClient({ autoKey: withKey }), transactionsClient()],
    store,
    expectKey: withKey,
    close: () => {
      transactions.stop();
      return store.close();
    },
  };
}

function checkExtended(client: ExtendedClient, stack: Stack): void {
  if (stack.server.length === 0) return;
  for (const id of [ERRORS_ID, IDEMPOTENCY_ID, TRANSACTIONS_ID]) {
    if (client.negotiated(id) === undefined) throw new Error(`round trip: ${id} was not negotiated`);
  }
}

function checkResult(result: unknown, expectKey: boolean): void {
  const record = result as ToolResult;
  if (record.isError === true || record.content[0]?.text !== ARGS.text) {
    throw new Error(`round trip: unexpected result ${JSON.stringify(result)}`);
  }
  const meta = record._meta?.[IDEMPOTENCY_ID] as { was_replay?: unknown } | undefined;
  if (expectKey !== (meta?.was_replay === false)) {
    throw new Error(
      `round trip: expected ${expectKey ? 'a fresh execution under a key' : 'no idempotency entry'}, got ${JSON.stringify(meta)}`,
    );
  }
}

async function v1Pair(scenario: Scenario, stores: { sqlite: () => Store }): Promise<Pair> {
  const [clientTransport, serverTransport] = InMemoryTransportV1.createLinkedPair();
  const mcp = new McpServerV1(SERVER_INFO);
  const client = new ClientV1(CLIENT_INFO);
  if (scenario === 'bare') {
    mcp.registerTool(TOOL, { inputSchema: z.object(INPUT) }, echo);
    await mcp.connect(serverTransport);
    await client.connect(clientTransport);
    checkResult(await client.callTool({ name: TOOL, arguments: ARGS }), false);
    return { call: () => client.callTool({ name: TOOL, arguments: ARGS }), close: () => client.close() };
  }
  const stack = stackFor(scenario, stores);
  const server = extendServerV1(mcp, stack.server, { store: stack.store });
  server.registerTool(TOOL, { inputSchema: z.object(INPUT) }, echo);
  const extended = extendClientV1(client, stack.client);
  await mcp.connect(serverTransport);
  await client.connect(clientTransport);
  checkExtended(extended, stack);
  checkResult(await extended.callTool(TOOL, ARGS), stack.expectKey);
  return {
    call: () => extended.callTool(TOOL, ARGS),
    close: async () => {
      await extended.close();
      await stack.close();
    },
  };
}

async function v2LegacyPair(scenario: Scenario, stores: { sqlite: () => Store }): Promise<Pair> {
  const [clientTransport, serverTransport] = InMemoryTransportV2.createLinkedPair();
  const mcp = new McpServerV2(SERVER_INFO);
  const client = new ClientV2(CLIENT_INFO);
  if (scenario === 'bare') {
    mcp.registerTool(TOOL, { inputSchema: z.object(INPUT) }, echo);
    await mcp.connect(serverTransport);
    await client.connect(clientTransport);
    checkResult(await client.callTool({ name: TOOL, arguments: ARGS }), false);
    return { call: () => client.callTool({ name: TOOL, arguments: ARGS }), close: () => client.close() };
  }
  const stack = stackFor(scenario, stores);
  const server = extendServerV2(mcp, stack.server, { store: stack.store });
  server.registerTool(TOOL, { inputSchema: z.object(INPUT) }, echo);
  const extended = extendClientV2(client, stack.client);
  await mcp.connect(serverTransport);
  await client.connect(clientTransport);
  checkExtended(extended, stack);
  checkResult(await extended.callTool(TOOL, ARGS), stack.expectKey);
  return {
    call: () => extended.callTool(TOOL, ARGS),
    close: async () => {
      await extended.close();
      await stack.close();
    },
  };
}

/** The 2026-07-28 era: no session, the handler builds a server for every request. */
async function v2ModernPair(scenario: Scenario, stores: { sqlite: () => Store }): Promise<Pair> {
  const client = new ClientV2(CLIENT_INFO, { versionNegotiation: { mode: { pin: MODERN_PROTOCOL_VERSION } } });
  let handler: { fetch(request: Request): Promise<Response>; close(): Promise<void> };
  let extended: ExtendedClient | undefined;
  let stack: Stack | undefined;
  if (scenario === 'bare') {
    handler = createMcpHandler(
      () => {
        const mcp = new McpServerV2(SERVER_INFO);
        mcp.registerTool(TOOL, { inputSchema: z.object(INPUT) }, echo);
        return mcp;
      },
      { legacy: 'reject' },
    );
  } else {
    const chosen = stackFor(scenario, stores);
    const composed = composeServer(chosen.server);
    // The benchmark's one client is every caller: it runs as the one shared principal.
    handler = createHttpHandler(
      () => {
        const mcp = new McpServerV2(SERVER_INFO);
        extendServerV2(mcp, composed, { store: chosen.store }).registerTool(
          TOOL,
          { inputSchema: z.object(INPUT) },
          echo,
        );
        return mcp;
      },
      { anonymous: 'shared', logger: silentLogger },
    );
    extended = extendClientV2(client, chosen.client);
    stack = chosen;
  }
  const fetch = (url: string | URL, init?: RequestInit): Promise<Response> => handler.fetch(new Request(url, init));
  await client.connect(new StreamableHTTPClientTransport(ENDPOINT, { fetch }));
  const close = async (): Promise<void> => {
    await client.close();
    await handler.close();
    await stack?.close();
  };
  if (extended === undefined || stack === undefined) {
    checkResult(await client.callTool({ name: TOOL, arguments: ARGS }), false);
    return { call: () => client.callTool({ name: TOOL, arguments: ARGS }), close };
  }
  const ready = extended;
  checkExtended(ready, stack);
  checkResult(await ready.callTool(TOOL, ARGS), stack.expectKey);
  return { call: () => ready.callTool(TOOL, ARGS), close };
}

const PAIRS: Readonly<Record<Line, (scenario: Scenario, stores: { sqlite: () => Store }) => Promise<Pair>>> = {
  v1: v1Pair,
  'v2-legacy': v2LegacyPair,
  'v2-modern': v2ModernPair,
};

export const SCENARIOS: readonly Scenario[] = ['bare', 'adapter', 'stack', 'stack-key-memory', 'stack-key-sqlite'];

/** Suite 1: one `tools/call` of a trivial tool through each stack, per SDK line. */
export async function runRoundTrips(
  lines: readonly Line[],
  stores: { sqlite: () => Store },
  options: RunOptions,
  progress: (text: string) => void,
): Promise<RoundTripGroup[]> {
  const groups: RoundTripGroup[] = [];
  for (const line of lines) {
    const rows: RoundTripRow[] = [];
    for (const scenario of SCENARIOS) {
      const pair = await PAIRS[line](scenario, stores);
      try {
        const measurement = await measureSequential(`${line} ${scenario}`, () => pair.call(), options);
        progress(`${line.padEnd(10)} ${scenario.padEnd(17)} median ${(measurement.medianMs * 1000).toFixed(1)} µs`);
        rows.push({ scenario, measurement });
      } finally {
        await pair.close();
      }
    }
    groups.push({ line, rows });
  }
  return groups;
}

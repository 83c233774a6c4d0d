/**
 * The client and server pairs the full-stack benchmark times: linked in
 * this process on either SDK line, or over HTTP to the benchmark server in a
 * child process; each checks its first result before it is timed.
 */
import { silentLogger } from '@ext/core/kit';
import { type ExtendedClient, type ExtendedServer } from '@ext/core';
import { extendClient as extendClientV1, extendServer as extendServerV1 } from '@ext/core/sdk-v1';
import { extendClient as extendClientV2 } from '@ext/core/sdk-v2/client';
import { extendServer as extendServerV2 } from '@ext/core/sdk-v2/server';
import { Client as ClientV2, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport as InMemoryTransportV1 } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer as McpServerV1 } from '@modelcontextprotocol/sdk/server/mcp.js';
import { InMemoryTransport as InMemoryTransportV2, McpServer as McpServerV2 } from '@modelcontextprotocol/server';
import { startChild } from './child.js';
import type { Usage } from './full-stack-memory.js';
import type { ServerAnswer, ServerCommand } from './http-server.js';
import {
  ARGS,
  BARE,
  buildStack,
  checkEcho,
  checkNegotiated,
  echo,
  FULL,
  INPUT,
  stackArgument,
  stackLabel,
  TOOL,
  TOOL_META,
  type BuiltStack,
  type StackKind,
} from './stack.js';

const CLIENT_INFO = { name: 'bench-client', version: '0.0.0' };
const SERVER_INFO = { name: 'bench-server', version: '0.0.0' };
const MODERN_PROTOCOL_VERSION = '2026-07-28';

/** A connected client and one `tools/call` through it. */
export interface Pair {
  call(): Promise<unknown>;
  close(): Promise<void>;
}

export type InProcessLine = 'v1' | 'v2';

/** The SDK objects of one in-process line, linked but not connected. */
interface Linked {
  registerBare(): void;
  extend(built: BuiltStack): { server: ExtendedServer; client: ExtendedClient };
  connect(): Promise<void>;
  bareCall(): Promise<unknown>;
  close(): Promise<void>;
}

function linkedV1(): Linked {
  const [clientTransport, serverTransport] = InMemoryTransportV1.createLinkedPair();
  const mcp = new McpServerV1(SERVER_INFO);
  const client = new ClientV1(CLIENT_INFO);
  return {
    registerBare: () => mcp.registerTool(TOOL, { inputSchema: INPUT }, echo),
    extend: (built) => ({
      server: extendServerV1(mcp, built.composed, { store: built.store, logger: silentLogger }),
      client: extendClientV1(client, built.client, { logger: silentLogger }),
    }),
    connect: async () => {
      await mcp.connect(serverTransport);
      await client.connect(clientTransport);
    },
    bareCall: () => client.callTool({ name: TOOL, arguments: ARGS }),
    close: () => client.close(),
  };
}

function linkedV2(): Linked {
  const [clientTransport, serverTransport] = InMemoryTransportV2.createLinkedPair();
  const mcp = new McpServerV2(SERVER_INFO);
  const client = new ClientV2(CLIENT_INFO);
  return {
    registerBare: () => mcp.registerTool(TOOL, { inputSchema: INPUT }, echo),
    extend: (built) => ({
      server: extendServerV2(mcp, built.composed, { store: built.store, logger: silentLogger }),
      client: extendClientV2(client, built.client, { logger: silentLogger }),
    }),
    connect: async () => {
      await mcp.connect(serverTransport);
      await client.connect(clientTransport);
    },
    bareCall: () => client.callTool({ name: TOOL, arguments: ARGS }),
    close: () => client.close(),
  };
}

/** A client and server linked in this process; the stack's result is checked once before it is timed. */
export async function inProcessPair(line: InProcessLine, stack: StackKind): Promise<Pair> {
  const linked = line === 'v1' ? linkedV1() : linkedV2();
  if (stack.kind === 'bare') {
    linked.registerBare();
    await linked.connect();
    checkEcho(await linked.bareCall());
    return { call: () => linked.bareCall(), close: () => linked.close() };
  }
  const built = buildStack(stack);
  const { server, client } = linked.extend(built);
  server.registerTool(TOOL, { inputSchema: INPUT, _meta: TOOL_META }, echo);
  await linked.connect();
  checkNegotiated(client, built);
  const call = (): Promise<unknown> => client.callTool(TOOL, ARGS);
  checkEcho(await call());
  return {
    call,
    close: async () => {
      await client.close();
      await built.close();
    },
  };
}

/** The HTTP benchmark server, running in a child process. */
export interface ServerProcess {
  readonly url: string;
  /** Heap and RSS of the server process after a full garbage collection. */
  memory(): Promise<Usage>;
  stop(): Promise<void>;
}

export async function startServer(stack: StackKind): Promise<ServerProcess> {
  const child = await startChild<ServerCommand, ServerAnswer>(new URL('./http-server.js', import.meta.url), [
    stackArgument(stack),
  ]);
  if (child.ready.type !== 'ready') throw new Error(`full stack: the ${stackLabel(stack)} server did not start`);
  return {
    url: child.ready.url,
    async memory() {
      const answer = await child.request({ type: 'memory' });
      if (answer.type !== 'memory') throw new Error(`full stack: expected a memory report, got ${answer.type}`);
      return answer;
    },
    stop: () => child.stop(),
  };
}

export type HttpEra = 'legacy' | 'modern';

export async function httpPair(server: ServerProcess, stack: StackKind, era: HttpEra): Promise<Pair> {
  const client = new ClientV2(
    CLIENT_INFO,
    era === 'modern' ? { versionNegotiation: { mode: { pin: MODERN_PROTOCOL_VERSION } } } : {},
  );
  if (stack.kind === 'bare') {
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
    const call = (): Promise<unknown> => client.callTool({ name: TOOL, arguments: ARGS });
    checkEcho(await call());
    return { call, close: () => client.close() };
  }
  // The client halves only; the server halves live in the server process.
  const built = buildStack(stack);
  const extended = extendClientV2(client, built.client, { logger: silentLogger });
  await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
  checkNegotiated(extended, built);
  const call = (): Promise<unknown> => extended.callTool(TOOL, ARGS);
  checkEcho(await call());
  return {
    call,
    close: async () => {
      await extended.close();
      await built.close();
    },
  };
}

/**
 * A fresh client (and, in the 2025-11-25 era, a fresh session) for one
 * measurement: an SDK client slows down over thousands of calls as the abort
 * listeners described in `main` pile up, whichever stack it talks to.
 */
export async function withPair<T>(
  server: ServerProcess,
  stack: 'bare' | 'full',
  era: HttpEra,
  measure: (pair: Pair) => Promise<T>,
): Promise<T> {
  const pair = await httpPair(server, stack === 'bare' ? BARE : FULL, era);
  try {
    return await measure(pair);
  } finally {
    await pair.close();
  }
}

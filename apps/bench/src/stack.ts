/** The extension stacks the benchmarks compose: every layer, the stacks named on a command line, and the `echo` tool. */
import { randomBytes } from 'node:crypto';
import {
  composeServer,
  MemoryStore,
  type ClientExtension,
  type ComposedServer,
  type ExtendedClient,
  type ServerExtension,
  type Store,
  type ToolResult,
} from '@ext/core';
import { silentLogger } from '@ext/core/kit';
import { confirmationClient } from '@ext/confirmation/client';
import { confirmationServer } from '@ext/confirmation/server';
import { contentNegotiationClient } from '@ext/content-negotiation/client';
import { contentNegotiationServer } from '@ext/content-negotiation/server';
import { COST_ID } from '@ext/cost';
import { costClient } from '@ext/cost/client';
import { costServer } from '@ext/cost/server';
import { dataReferencesClient } from '@ext/data-references/client';
import { createReferenceOrigin, dataReferencesServer } from '@ext/data-references/server';
import { discoveryClient } from '@ext/discovery/client';
import { discoveryServer } from '@ext/discovery/server';
import { errorsClient } from '@ext/errors/client';
import { errorsServer } from '@ext/errors/server';
import { eventsClient } from '@ext/events/client';
import { eventsServer } from '@ext/events/server';
import { idempotencyClient } from '@ext/idempotency/client';
import { idempotencyServer } from '@ext/idempotency/server';
import { intentClient } from '@ext/intent/client';
import { intentServer } from '@ext/intent/server';
import { manifestClient } from '@ext/manifest/client';
import { manifestServer } from '@ext/manifest/server';
import { multimodalClient } from '@ext/multimodal/client';
import { multimodalServer } from '@ext/multimodal/server';
import { permissionsClient } from '@ext/permissions/client';
import { permissionsServer } from '@ext/permissions/server';
import { provenanceClient } from '@ext/provenance/client';
import { provenanceServer } from '@ext/provenance/server';
import { sessionStateClient } from '@ext/session-state/client';
import { sessionStateServer } from '@ext/session-state/server';
import { streamingClient } from '@ext/streaming/client';
import { streamingServer } from '@ext/streaming/server';
import { tasksClient } from '@ext/tasks/client';
import { tasksServer } from '@ext/tasks/server';
import { transactionsClient } from '@ext/transactions/client';
import { transactionsServer } from '@ext/transactions/server';
import * as z from 'zod';

/** The server half of one extension with what it started, to stop after the run. */
export interface ServerLayer {
  readonly extension: ServerExtension;
  stop(): Promise<void>;
}

/** One extension package: its server half (on a store) and its client half. */
export interface Layer {
  /** The package, e.g. `@ext/errors`; also the directory `packages/<name without @ext/>`. */
  readonly name: string;
  server(store: Store): ServerLayer;
  client(): ClientExtension;
}

const nothing = (): Promise<void> => Promise.resolve();

function plain(extension: ServerExtension): ServerLayer {
  return { extension, stop: nothing };
}

// One event type, so `<id>/list` has something to answer; the benchmark never subscribes.
const EVENTS = {
  ticket_changed: {
    description: 'A ticket changed',
    payload: { type: 'object', required: ['id'], properties: { id: { type: 'string' } } },
  },
};

/**
 * Every extension package with a server half, with the options a real
 * deployment would pass and nothing that refuses the benchmark's tool: the
 * idempotency budget per caller is raised (each timed call records a key
 * under one caller), everything else keeps its defaults.
 */
export const LAYERS: readonly Layer[] = [
  { name: '@ext/errors', server: () => plain(errorsServer()), client: () => errorsClient() },
  {
    name: '@ext/session-state',
    server: () =>
      plain(sessionStateServer({ keys: [{ id: 'bench', secret: randomBytes(32) }], serverName: 'bench-server' })),
    client: () => sessionStateClient(),
  },
  {
    name: '@ext/content-negotiation',
    server: () => plain(contentNegotiationServer()),
    client: () => contentNegotiationClient(),
  },
  { name: '@ext/permissions', server: () => plain(permissionsServer()), client: () => permissionsClient() },
  { name: '@ext/cost', server: () => plain(costServer()), client: () => costClient() },
  { name: '@ext/intent', server: () => plain(intentServer()), client: () => intentClient() },
  { name: '@ext/multimodal', server: () => plain(multimodalServer()), client: () => multimodalClient() },
  // No tool of the benchmark runs as a task: the stage only looks the tool up and passes the call on.
  { name: '@ext/tasks', server: () => plain(tasksServer()), client: () => tasksClient() },
  { name: '@ext/confirmation', server: () => plain(confirmationServer()), client: () => confirmationClient() },
  {
    name: '@ext/idempotency',
    server: () => plain(idempotencyServer({ maxKeysPerPrincipal: 1_000_000_000, defaultTtlSeconds: 600 })),
    client: () => idempotencyClient(),
  },
  {
    name: '@ext/transactions',
    server: () => {
      const extension = transactionsServer();
      return {
        extension,
        stop: () => {
          extension.stop();
          return Promise.resolve();
        },
      };
    },
    client: () => transactionsClient(),
  },
  { name: '@ext/streaming', server: () => plain(streamingServer()), client: () => streamingClient() },
  {
    name: '@ext/data-references',
    server: (store) => {
      // The benchmark's tool returns no reference, so the origin's URL is never fetched.
      const origin = createReferenceOrigin({
        secret: randomBytes(32),
        store,
        serverName: 'bench-server',
        baseUrl: 'http://127.0.0.1/refs',
        logger: silentLogger,
      });
      return { extension: dataReferencesServer({ origin }), stop: () => origin.close() };
    },
    client: () => dataReferencesClient(),
  },
  { name: '@ext/provenance', server: () => plain(provenanceServer()), client: () => provenanceClient() },
  { name: '@ext/manifest', server: () => plain(manifestServer()), client: () => manifestClient() },
  {
    name: '@ext/events',
    server: () => {
      const extension = eventsServer({ events: EVENTS, logger: silentLogger });
      return { extension, stop: () => extension.stop() };
    },
    client: () => eventsClient(),
  },
  { name: '@ext/discovery', server: () => plain(discoveryServer()), client: () => discoveryClient() },
];

/**
 * What answers the call: the SDK alone, the core's adapters with nothing
 * composed, the first `count` layers of {@link LAYERS}, or all of them.
 */
export type StackKind =
  | { readonly kind: 'bare' }
  | { readonly kind: 'adapter' }
  | { readonly kind: 'full' }
  | { readonly kind: 'first'; readonly count: number };

export const BARE = { kind: 'bare' } as const satisfies StackKind;
export const ADAPTER = { kind: 'adapter' } as const satisfies StackKind;
export const FULL = { kind: 'full' } as const satisfies StackKind;

export function stackLabel(stack: StackKind): string {
  switch (stack.kind) {
    case 'bare':
      return 'bare SDK';
    case 'adapter':
      return 'core adapters, nothing composed';
    case 'full':
      return `full stack (${String(LAYERS.length)} extensions)`;
    case 'first':
      return `up to ${LAYERS[stack.count - 1]?.name ?? '?'}`;
  }
}

/** `bare`, `adapter`, `full` or `first:<n>`: a stack named on a command line. */
export function stackArgument(stack: StackKind): string {
  return stack.kind === 'first' ? `first:${String(stack.count)}` : stack.kind;
}

export function parseStackArgument(text: string | undefined): StackKind | undefined {
  if (text === 'bare' || text === 'adapter' || text === 'full') return { kind: text };
  const count = /^first:(\d+)$/.exec(text ?? '')?.[1];
  return count === undefined ? undefined : { kind: 'first', count: Number(count) };
}

/** The server halves composed once (a per-request server shares them), their store, and the client halves. */
export interface BuiltStack {
  readonly composed: ComposedServer;
  readonly store: Store;
  readonly client: readonly ClientExtension[];
  /** The packages of the stack (each client half must find its extension negotiated). */
  readonly names: readonly string[];
  close(): Promise<void>;
}

export function buildStack(stack: Exclude<StackKind, { kind: 'bare' }>, store: Store = new MemoryStore()): BuiltStack {
  const chosen = stack.kind === 'full' ? LAYERS : stack.kind === 'adapter' ? [] : LAYERS.slice(0, stack.count);
  if (stack.kind === 'first' && (stack.count < 1 || stack.count > LAYERS.length))
    throw new Error(`stack: no ${String(stack.count)} first layers`);
  const servers = chosen.map((layer) => layer.server(store));
  return {
    composed: composeServer(
      servers.map((server) => server.extension),
      { logger: silentLogger },
    ),
    store,
    client: chosen.map((layer) => layer.client()),
    names: chosen.map((layer) => layer.name),
    async close() {
      await Promise.all(servers.map((server) => server.stop()));
      await store.close();
    },
  };
}

export const TOOL = 'echo';
export const INPUT = z.object({ text: z.string() });
export const ARGS = { text: 'hello' };

/**
 * The tool's metadata: a metered cost with a quota no run reaches, so the
 * cost layer counts every call without refusing one.
 */
export const TOOL_META = {
  [COST_ID]: {
    cost: { category: 'metered', estimated_units: 1, unit_label: 'calls' },
    latency: 'instant',
    quota: { limit: 1_000_000_000, window_seconds: 86_400 },
  },
};

// Typed by inference so both SDKs and the core accept it as a tool result.
export function echo({ text }: { text: string }) {
  return { content: [{ type: 'text' as const, text }] };
}

/** Throws unless `client` negotiated every package of the stack: a silently missing layer would flatter the numbers. */
export function checkNegotiated(client: ExtendedClient, built: BuiltStack): void {
  const missing = built.client.filter((half) => client.negotiated(half) === undefined).map((half) => half.name);
  if (missing.length > 0) throw new Error(`stack: not negotiated: ${missing.join(', ')}`);
}

/** Throws unless `result` is the echo, not an error or a refusal. */
export function checkEcho(result: unknown): void {
  const record = result as ToolResult;
  if (record.isError === true || record.content[0]?.text !== ARGS.text)
    throw new Error(`stack: unexpected result ${JSON.stringify(result).slice(0, 500)}`);
}

/**
 * Support for the two-principal isolation tests (isolation.test.ts): the
 * stacks of the matrix, deployments of one or two tracker instances (two
 * sharing one Redis), the callers alice and bob, and small readers.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import {
  composeServer,
  type ClientExtension,
  type ComposedServer,
  type ExtendedClient,
  type Store,
  type ToolResult,
} from '@ext/core';
import { silentLogger } from '@ext/core/kit';
import { confirmationServer } from '@ext/confirmation/server';
import { errorsServer } from '@ext/errors/server';
import { manifestServer } from '@ext/manifest/server';
import { getStructuredError } from '@ext/errors/client';
import { permissionsServer } from '@ext/permissions/server';
import { createRedisStore } from '@ext/store-redis';
import { expect } from 'vitest';
import { connect, type Connection, type Era } from '../client/connect.js';
import { dig } from '../tour/explain.js';
import { startHttpServer, type RunningHttpServer } from '../server/node-http.js';
import { SERVER_INSTRUCTIONS } from '../server/compose.js';
import { ADMIN_SCOPE } from '../tools/tool-limits.js';
import { createDemoTokens } from '../server/users.js';

// These tests are about atomicity and sharing, not the default per-command timeout, which a loaded test
// machine can exceed under a burst of concurrent calls (the outage tests cover the timeout).
const LOADED_MACHINE_TIMEOUT_MS = 10_000;

/** One server SDK line and the protocol era its clients speak. */
export interface Stack {
  readonly name: string;
  readonly sdk: 'v1' | 'v2';
  readonly era: Era;
}

export const STACKS: readonly Stack[] = [
  { name: 'SDK v1, legacy era', sdk: 'v1', era: 'legacy' },
  { name: 'SDK v2, legacy era', sdk: 'v2', era: 'legacy' },
  { name: 'SDK v2, 2026-07-28', sdk: 'v2', era: 'modern' },
];

/**
 * Which composition serves the tracker's tools: the tracker's own, or one
 * that turns on what the tracker keeps off (confirmation grants, and an
 * admin scope a caller can negotiate), to test those per-caller records.
 */
export type Composition = 'tracker' | 'grants';

/** The tracker's tools behind errors, permissions (admin negotiable), confirmation with grants, and the manifest. */
export function composeGrants(): ComposedServer {
  return composeServer(
    [
      errorsServer(),
      permissionsServer({
        scopes: [
          { name: 'tickets:read', description: 'read tickets', tools: [], autoGrant: true },
          { name: ADMIN_SCOPE, description: 'purge closed tickets', tools: ['purge_closed_tickets'], autoGrant: true },
        ],
      }),
      confirmationServer({ grants: { maxCalls: 3, maxDurationSeconds: 600 } }),
      // The HTTP server's card is built from the manifest.
      manifestServer({ description: SERVER_INSTRUCTIONS }),
    ],
    { logger: silentLogger },
  );
}

/** Alice on instance A; bob, and alice again, on instance B. */
export interface Callers {
  readonly alice: ExtendedClient;
  readonly bob: ExtendedClient;
  readonly aliceOnB: ExtendedClient;
}

/** What one test case gets: its stack, and callers on a fresh deployment. */
export interface World {
  readonly stack: Stack;
  /** Connects the three callers; `halves` is called once per connection (client halves keep state). */
  callers(halves: () => ClientExtension[]): Promise<Callers>;
}

/**
 * Redis keys a test run writes, by key prefix: the store has no listing,
 * so every key the servers write is noted and deleted at the end.
 */
export class RedisRun {
  readonly prefix = `mcp-ext-isolation:${randomUUID()}:`;
  readonly #written = new Map<string, Set<string>>();
  #deployments = 0;

  constructor(readonly url: string) {}

  /** A new key prefix under this run's, for one deployment. */
  nextPrefix(): string {
    this.#deployments += 1;
    return `${this.prefix}${String(this.#deployments)}:`;
  }

  /** A store on `keyPrefix` that notes each key and stream it writes. */
  async open(keyPrefix: string): Promise<Store> {
    const inner = await createRedisStore({
      url: this.url,
      keyPrefix,
      connectTimeoutMs: 2000,
      commandTimeoutMs: LOADED_MACHINE_TIMEOUT_MS,
      logger: silentLogger,
    });
    let keys = this.#written.get(keyPrefix);
    if (keys === undefined) this.#written.set(keyPrefix, (keys = new Set()));
    return noting(inner, keys);
  }

  /** Deletes every key noted (value and stream), with a store of its own per prefix. */
  async cleanup(): Promise<number> {
    let deleted = 0;
    for (const [keyPrefix, keys] of this.#written) {
      const store = await createRedisStore({ url: this.url, keyPrefix, connectTimeoutMs: 2000, logger: silentLogger });
      try {
        for (const key of keys) if (await store.delete(key)) deleted += 1;
      } finally {
        await store.close();
      }
    }
    this.#written.clear();
    return deleted;
  }
}

/** `inner`, noting in `keys` the name of every value or stream written. */
function noting(inner: Store, keys: Set<string>): Store {
  return {
    get: (key) => inner.get(key),
    set(key, value, options) {
      keys.add(key);
      return inner.set(key, value, options);
    },
    setIfAbsent(key, value, options) {
      keys.add(key);
      return inner.setIfAbsent(key, value, options);
    },
    compareAndSet(key, expected, next, options) {
      keys.add(key);
      return inner.compareAndSet(key, expected, next, options);
    },
    delete: (key) => inner.delete(key),
    increment(key, by, options) {
      keys.add(key);
      return inner.increment(key, by, options);
    },
    append(stream, value, options) {
      keys.add(stream);
      return inner.append(stream, value, options);
    },
    read: (stream, options) => inner.read(stream, options),
    publish: (channel, message) => inner.publish(channel, message),
    subscribe: (channel, listener) => inner.subscribe(channel, listener),
    close: () => inner.close(),
  };
}

/** Instance A and instance B: the same server on the memory store, two servers sharing one Redis. */
interface Deployment {
  readonly a: RunningHttpServer;
  readonly b: RunningHttpServer;
}

async function deploy(stack: Stack, composition: Composition, redis: RedisRun | undefined): Promise<Deployment> {
  const tokens = createDemoTokens();
  const sessionSecret = randomBytes(32).toString('base64url');
  const start = (store: Store | undefined) =>
    startHttpServer({
      port: 0,
      sdk: stack.sdk,
      store,
      tokens,
      sessionSecret,
      composed: composition === 'grants' ? composeGrants() : undefined,
      logger: silentLogger,
    });
  if (redis === undefined) {
    const server = await start(undefined);
    return { a: server, b: server };
  }
  const keyPrefix = redis.nextPrefix();
  const a = await start(await redis.open(keyPrefix));
  try {
    return { a, b: await start(await redis.open(keyPrefix)) };
  } catch (error) {
    await a.close();
    throw error;
  }
}

/** Runs `test` on a fresh deployment, then closes every client and server it opened. */
export async function withWorld(
  stack: Stack,
  composition: Composition,
  redis: RedisRun | undefined,
  test: (world: World) => Promise<void>,
): Promise<void> {
  const deployment = await deploy(stack, composition, redis);
  const connections: Connection[] = [];
  const open = async (
    server: RunningHttpServer,
    user: 'alice' | 'bob',
    halves: () => ClientExtension[],
  ): Promise<ExtendedClient> => {
    const connection = await connect(server.as(user), { era: stack.era, extensions: halves(), name: `${user}-client` });
    connections.push(connection);
    if (connection.extended === undefined) throw new Error('the client has no extensions attached');
    return connection.extended;
  };
  const world: World = {
    stack,
    callers: async (halves) => ({
      alice: await open(deployment.a, 'alice', halves),
      bob: await open(deployment.b, 'bob', halves),
      aliceOnB: await open(deployment.b, 'alice', halves),
    }),
  };
  try {
    await test(world);
  } finally {
    await Promise.allSettled(connections.map((connection) => connection.close()));
    await deployment.a.close();
    await deployment.b.close();
  }
}

/** Asserts that `result` is a refusal with `code` (the text is shown when not) and returns its structured error. */
export function expectRefused(result: ToolResult, code: string) {
  const structured = getStructuredError(result);
  expect(
    result.isError,
    `expected ${code}, got a result that is not an error: ${JSON.stringify(result).slice(0, 400)}`,
  ).toBe(true);
  expect(structured?.code, `expected ${code}: ${JSON.stringify(result.content).slice(0, 400)}`).toBe(code);
  return structured;
}

/** Asserts that `result` is not an error result (with its text as the reason). */
export function expectOk(result: ToolResult): ToolResult {
  expect(result.isError, `the call failed: ${JSON.stringify(result.content).slice(0, 400)}`).not.toBe(true);
  return result;
}

/** The structured error code an extension method answered with, or a description of its success. */
export async function methodRefusal(answer: Promise<unknown>): Promise<string> {
  try {
    return `not refused: ${JSON.stringify(await answer).slice(0, 300)}`;
  } catch (error) {
    return getStructuredError(error)?.code ?? `unstructured: ${String(error)}`;
  }
}

export function ticketIdOf(result: ToolResult): string {
  return String(dig(result.structuredContent, 'ticket', 'id'));
}

export async function createTicket(client: ExtendedClient, title: string): Promise<string> {
  return ticketIdOf(expectOk(await client.callTool('create_ticket', { title })));
}

/** The ticket, or `undefined` when get_ticket does not find it. */
export async function readTicket(client: ExtendedClient, id: string): Promise<Record<string, unknown> | undefined> {
  const result = await client.callTool('get_ticket', { id });
  if (result.isError === true) {
    expect(getStructuredError(result)?.code).toBe('RESOURCE_NOT_FOUND');
    return undefined;
  }
  return dig(result.structuredContent, 'ticket') as Record<string, unknown>;
}

/** Every ticket title, in creation order. */
export async function ticketTitles(client: ExtendedClient): Promise<string[]> {
  const tickets = dig(expectOk(await client.callTool('list_tickets', { status: 'open' })).structuredContent, 'tickets');
  return Array.isArray(tickets) ? tickets.map((ticket) => String(dig(ticket, 'title'))) : [];
}

/** A 1x1 PNG. */
export const PIXEL_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);

import {
  ExtensionError,
  MemoryStore,
  type AuthInfo,
  type ExtendedServer,
  type Store,
  type ToolResult,
  type Unsubscribe,
} from '@ext/core';
import { silentLogger, type JsonValue } from '@ext/core/kit';
import { createTestPair, TEST_LINES, type TestLine, type TestPair } from '@ext/core/testing';
import { errorsClient, getStructuredError, withRetry } from '@ext/errors/client';
import { errorsServer } from '@ext/errors/server';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { callIdempotent, getReplayInfo, idempotencyClient, idempotencyMeta, idempotentCall } from './client.js';
import { getIdempotencySettings, IDEMPOTENCY_ID } from './index.js';
import { getIdempotencyCallInfo } from './locals.js';
import { idempotencyServer, type IdempotencyServerOptions } from './server.js';

interface Deferred<T = void> {
  promise: Promise<T>;
  resolve(value: T): void;
}

function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** A memory store that reports when a duplicate starts waiting on a key. */
class ObservedStore extends MemoryStore {
  waiting = deferred();

  override subscribe(channel: string, listener: (message: JsonValue) => void): Promise<Unsubscribe> {
    const subscribed = super.subscribe(channel, listener);
    if (channel.endsWith(':settled')) {
      void subscribed.then(() => {
        this.waiting.resolve();
      });
    }
    return subscribed;
  }
}

/** The tools of the fixture server and how often each really ran. */
class Fixture {
  readonly runs = new Map<string, number>();
  readonly keysSeen: (string | undefined)[] = [];
  /** While set, `create_item` blocks on it after recording its run. */
  gate: Promise<void> | undefined;
  entered = deferred();

  count(tool: string): number {
    return this.runs.get(tool) ?? 0;
  }

  #bump(tool: string): number {
    const n = this.count(tool) + 1;
    this.runs.set(tool, n);
    return n;
  }

  readonly setup = (server: ExtendedServer): void => {
    const input = z.object({ name: z.string() });
    const text = (value: string): ToolResult => ({ content: [{ type: 'text', text: value }] });
    server.registerTool('create_item', { description: 'Creates an item', inputSchema: input }, async (args, ctx) => {
      const n = this.#bump('create_item');
      this.keysSeen.push(getIdempotencyCallInfo(ctx)?.idempotencyKey);
      this.entered.resolve();
      if (this.gate) await this.gate;
      return text(`created ${args.name} #${n}`);
    });
    server.registerTool(
      'get_item',
      { description: 'Reads an item', inputSchema: input, annotations: { readOnlyHint: true } },
      (args) => text(`read ${args.name} #${this.#bump('get_item')}`),
    );
    server.registerTool('flaky_write', { description: 'Fails the first time', inputSchema: input }, (args) => {
      const n = this.#bump('flaky_write');
      if (n === 1) throw new Error('downstream failed');
      return text(`flaky ${args.name} #${n}`);
    });
    server.registerTool(
      'soft_fail_write',
      { description: 'Reports an error the first time', inputSchema: input },
      (args) => {
        const n = this.#bump('soft_fail_write');
        return n === 1 ? { ...text('not yet'), isError: true } : text(`soft ${args.name} #${n}`);
      },
    );
    server.registerTool(
      'busy_write',
      { description: 'Transiently busy the first time', inputSchema: input },
      (args, ctx) => {
        const n = this.#bump('busy_write');
        this.keysSeen.push(getIdempotencyCallInfo(ctx)?.idempotencyKey);
        if (n === 1)
          throw new ExtensionError('transient', 'UPSTREAM_BUSY', 'The upstream is busy', { retryAfterSeconds: 0 });
        return text(`busy ${args.name} #${n}`);
      },
    );
  };
}

const open: TestPair[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((pair) => pair.close()));
});

interface PairOptions {
  readonly server?: IdempotencyServerOptions | false;
  readonly client?: boolean;
  readonly errors?: boolean;
  readonly store?: Store;
  readonly authInfo?: AuthInfo;
}

async function pair(line: TestLine, fixture: Fixture, options: PairOptions = {}): Promise<TestPair> {
  const errors = options.errors ?? false;
  const created = await createTestPair({
    line,
    serverExtensions: [errors && errorsServer(), options.server !== false && idempotencyServer(options.server ?? {})],
    clientExtensions: [errors && errorsClient(), options.client !== false && idempotencyClient()],
    setup: fixture.setup,
    serverOptions: { store: options.store, logger: silentLogger },
    clientOptions: { logger: silentLogger },
    authInfo: options.authInfo,
  });
  open.push(created);
  return created;
}

function textOf(result: ToolResult): string {
  const first = result.content[0];
  return first?.type === 'text' && typeof first.text === 'string' ? first.text : '';
}

describe.each(TEST_LINES)('idempotency end to end on %s', (line) => {
  it('IDEM-1 IDEM-14: advertises its settings and which tools take part', async () => {
    const { client } = await pair(line, new Fixture());
    expect(getIdempotencySettings(client.serverExtensions())).toEqual({
      version: '1.0',
      default_ttl_seconds: 86_400,
      max_ttl_seconds: 604_800,
    });
    const tools = await client.listTools();
    const meta = (name: string): unknown => tools.find((tool) => tool.name === name)?._meta?.[IDEMPOTENCY_ID];
    expect(meta('create_item')).toEqual({ idempotent_capable: true });
    expect(meta('get_item')).toEqual({ idempotent_capable: false });
  });

  it('IDEM-8 IDEM-12: a repeat replays the stored result without executing again', async () => {
    const fixture = new Fixture();
    const { client } = await pair(line, fixture);
    const meta = idempotencyMeta('order-2026-001');
    const first = await client.callTool('create_item', { name: 'a' }, { meta });
    const second = await client.callTool('create_item', { name: 'a' }, { meta });
    expect(fixture.count('create_item')).toBe(1);
    expect(textOf(second)).toBe('created a #1');
    expect(textOf(first)).toBe(textOf(second));
    const original = getReplayInfo(first);
    expect(original).toMatchObject({ idempotency_key: 'order-2026-001', was_replay: false });
    expect(Number.isNaN(Date.parse(original?.original_timestamp ?? ''))).toBe(false);
    expect(getReplayInfo(second)).toEqual({ ...original, was_replay: true });
  });

  it('IDEM-7: 200 concurrent calls with one key execute exactly once', async () => {
    const fixture = new Fixture();
    const { client } = await pair(line, fixture);
    const release = deferred();
    fixture.gate = release.promise;
    const meta = idempotencyMeta('burst-1');
    const calls = Array.from({ length: 200 }, () => client.callTool('create_item', { name: 'burst' }, { meta }));
    await fixture.entered.promise;
    release.resolve();
    const results = await Promise.all(calls);
    expect(fixture.count('create_item')).toBe(1);
    expect(new Set(results.map(textOf))).toEqual(new Set(['created burst #1']));
    const infos = results.map(getReplayInfo);
    expect(infos.filter((info) => info?.was_replay === false)).toHaveLength(1);
    expect(new Set(infos.map((info) => info?.original_timestamp)).size).toBe(1);
  });

  it('IDEM-9: the same key with different arguments is a conflict and does not execute', async () => {
    const fixture = new Fixture();
    const { client } = await pair(line, fixture, { errors: true });
    const meta = idempotencyMeta('conflict-1');
    await client.callTool('create_item', { name: 'a' }, { meta });
    const result = await client.callTool('create_item', { name: 'b' }, { meta });
    expect(fixture.count('create_item')).toBe(1);
    expect(result.isError).toBe(true);
    expect(getStructuredError(result)).toMatchObject({ code: 'IDEMPOTENCY_CONFLICT', category: 'invalid_input' });
  });

  it('IDEM-10: a duplicate arriving in flight waits and receives the result', async () => {
    const fixture = new Fixture();
    const store = new ObservedStore();
    const { client } = await pair(line, fixture, { store });
    const release = deferred();
    fixture.gate = release.promise;
    const meta = idempotencyMeta('slow-1');
    const first = client.callTool('create_item', { name: 'slow' }, { meta });
    await fixture.entered.promise;
    const duplicate = client.callTool('create_item', { name: 'slow' }, { meta });
    await store.waiting.promise;
    release.resolve();
    const [a, b] = await Promise.all([first, duplicate]);
    expect(fixture.count('create_item')).toBe(1);
    expect(textOf(b)).toBe(textOf(a));
    expect(getReplayInfo(b)?.was_replay).toBe(true);
  });

  it('IDEM-10: the wait is bounded and ends in a transient IDEMPOTENCY_IN_PROGRESS', async () => {
    const fixture = new Fixture();
    const { client } = await pair(line, fixture, {
      errors: true,
      server: { inFlightWaitMs: 50, inProgressRetryAfterSeconds: 2 },
    });
    const release = deferred();
    fixture.gate = release.promise;
    const meta = idempotencyMeta('slow-2');
    const first = client.callTool('create_item', { name: 'slow' }, { meta });
    await fixture.entered.promise;
    const duplicate = await client.callTool('create_item', { name: 'slow' }, { meta });
    expect(duplicate.isError).toBe(true);
    expect(getStructuredError(duplicate)).toMatchObject({
      code: 'IDEMPOTENCY_IN_PROGRESS',
      category: 'transient',
      retry_after_seconds: 2,
    });
    release.resolve();
    await first;
    const later = await client.callTool('create_item', { name: 'slow' }, { meta });
    expect(getReplayInfo(later)?.was_replay).toBe(true);
    expect(fixture.count('create_item')).toBe(1);
  });

  it('IDEM-6: keys are scoped per principal and per tool', async () => {
    const fixture = new Fixture();
    const store = new MemoryStore();
    const alice = await pair(line, fixture, { store, authInfo: { clientId: 'alice' } });
    const bob = await pair(line, fixture, { store, authInfo: { clientId: 'bob' } });
    const meta = idempotencyMeta('shared-key');
    const a = await alice.client.callTool('create_item', { name: 'x' }, { meta });
    const b = await bob.client.callTool('create_item', { name: 'x' }, { meta });
    expect(fixture.count('create_item')).toBe(2);
    expect(getReplayInfo(a)?.was_replay).toBe(false);
    expect(getReplayInfo(b)?.was_replay).toBe(false);
    await alice.client.callTool('flaky_write', { name: 'x' }, { meta });
    expect(fixture.count('flaky_write')).toBe(1);
  });

  it('IDEM-7: a call handled by one server is replayed by another sharing the store', async () => {
    const fixture = new Fixture();
    const store = new MemoryStore();
    const serverA = await pair(line, fixture, { store, authInfo: { clientId: 'carol' } });
    const serverB = await pair(line, fixture, { store, authInfo: { clientId: 'carol' } });
    const meta = idempotencyMeta('cross-instance');
    const first = await serverA.client.callTool('create_item', { name: 'x' }, { meta });
    const replay = await serverB.client.callTool('create_item', { name: 'x' }, { meta });
    expect(fixture.count('create_item')).toBe(1);
    expect(textOf(replay)).toBe(textOf(first));
    expect(getReplayInfo(replay)).toEqual({ ...getReplayInfo(first), was_replay: true });
  });

  it('IDEM-4: an invalid key is invalid_input naming the field, and nothing executes', async () => {
    const fixture = new Fixture();
    const { client } = await pair(line, fixture, { errors: true });
    const result = await client.callTool(
      'create_item',
      { name: 'x' },
      { meta: { [IDEMPOTENCY_ID]: { idempotency_key: 'has spaces' } } },
    );
    expect(result.isError).toBe(true);
    expect(getStructuredError(result)).toMatchObject({
      code: 'INVALID_INPUT',
      category: 'invalid_input',
      details: { field: 'idempotency_key' },
    });
    expect(getStructuredError(result)?.message).toContain(
      'idempotency_key in params._meta["io.github.mcp-ext/idempotency"]',
    );
    const badTtl = await client.callTool(
      'create_item',
      { name: 'x' },
      { meta: { [IDEMPOTENCY_ID]: { idempotency_key: 'ok', idempotency_ttl_seconds: 0 } } },
    );
    expect(getStructuredError(badTtl)?.details).toMatchObject({ field: 'idempotency_ttl_seconds' });
    expect(fixture.count('create_item')).toBe(0);
  });

  it('IDEM-4: without @ext/errors the refusal is still a tool error naming the field', async () => {
    const fixture = new Fixture();
    const { client } = await pair(line, fixture);
    const result = await client.callTool(
      'create_item',
      { name: 'x' },
      { meta: { [IDEMPOTENCY_ID]: { idempotency_key: '' } } },
    );
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('idempotency_key in params._meta["io.github.mcp-ext/idempotency"]');
    expect(fixture.count('create_item')).toBe(0);
  });

  it('IDEM-11: a thrown failure releases the key so a retry with it executes', async () => {
    const fixture = new Fixture();
    const { client } = await pair(line, fixture);
    const meta = idempotencyMeta('flaky-1');
    const failed = await client.callTool('flaky_write', { name: 'x' }, { meta });
    expect(failed.isError).toBe(true);
    const retried = await client.callTool('flaky_write', { name: 'x' }, { meta });
    expect(textOf(retried)).toBe('flaky x #2');
    const replayed = await client.callTool('flaky_write', { name: 'x' }, { meta });
    expect(getReplayInfo(replayed)?.was_replay).toBe(true);
    expect(fixture.count('flaky_write')).toBe(2);
  });

  it('IDEM-11: an isError result is returned but not stored', async () => {
    const fixture = new Fixture();
    const { client } = await pair(line, fixture);
    const meta = idempotencyMeta('soft-1');
    const failed = await client.callTool('soft_fail_write', { name: 'x' }, { meta });
    expect(failed.isError).toBe(true);
    expect(getReplayInfo(failed)?.was_replay).toBe(false);
    const retried = await client.callTool('soft_fail_write', { name: 'x' }, { meta });
    expect(textOf(retried)).toBe('soft x #2');
    expect(fixture.count('soft_fail_write')).toBe(2);
  });

  it('IDEM-3: tools that do not take part ignore the key', async () => {
    const fixture = new Fixture();
    const { client } = await pair(line, fixture);
    const meta = idempotencyMeta('read-1');
    await client.callTool('get_item', { name: 'x' }, { meta });
    const second = await client.callTool('get_item', { name: 'x' }, { meta });
    expect(fixture.count('get_item')).toBe(2);
    expect(getReplayInfo(second)).toBeUndefined();
  });

  it('IDEM-3a: a well-formed key is honoured from a client that did not declare the extension', async () => {
    const fixture = new Fixture();
    const { client } = await pair(line, fixture, { client: false });
    const meta = idempotencyMeta('undeclared-1');
    const first = await client.callTool('create_item', { name: 'x' }, { meta });
    const second = await client.callTool('create_item', { name: 'x' }, { meta });
    expect(fixture.count('create_item')).toBe(1);
    expect(textOf(second)).toBe(textOf(first));
    expect(getReplayInfo(second)).toMatchObject({ idempotency_key: 'undeclared-1', was_replay: true });
    const plain = await client.callTool('create_item', { name: 'y' });
    expect(textOf(plain)).toBe('created y #2');
    expect(plain._meta?.[IDEMPOTENCY_ID]).toBeUndefined();
  });

  it('IDEM-3a: a malformed key from a client that did not declare the extension is refused as IDEM-4 says', async () => {
    const fixture = new Fixture();
    const { client } = await pair(line, fixture, { client: false });
    const result = await client.callTool(
      'create_item',
      { name: 'x' },
      { meta: { [IDEMPOTENCY_ID]: { idempotency_key: 'has spaces' } } },
    );
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('idempotency_key in params._meta["io.github.mcp-ext/idempotency"]');
    expect(fixture.count('create_item')).toBe(0);
  });

  it('IDEM-3: a server without the extension is called plainly, with no key minted', async () => {
    const fixture = new Fixture();
    const { client } = await pair(line, fixture, { server: false });
    const result = await callIdempotent(client, 'create_item', { name: 'x' });
    expect(textOf(result)).toBe('created x #1');
    expect(fixture.keysSeen).toEqual([undefined]);
    expect(getReplayInfo(result)).toBeUndefined();
  });

  it('IDEM-2: the client mints a fresh key per plain call', async () => {
    const fixture = new Fixture();
    const { client } = await pair(line, fixture);
    const a = await client.callTool('create_item', { name: 'x' });
    const b = await client.callTool('create_item', { name: 'x' });
    expect(fixture.count('create_item')).toBe(2);
    const [keyA, keyB] = fixture.keysSeen;
    expect(keyA).toMatch(/^[0-9a-f-]{36}$/);
    expect(keyB).not.toBe(keyA);
    expect(getReplayInfo(a)?.idempotency_key).toBe(keyA);
    expect(getReplayInfo(b)?.idempotency_key).toBe(keyB);
  });

  it('IDEM-2: callIdempotent hands retry the attempt with its key, as idempotentCall returns it', async () => {
    const fixture = new Fixture();
    const { client } = await pair(line, fixture, { errors: true });
    const keys: string[] = [];
    const result = await callIdempotent(
      client,
      'busy_write',
      { name: 'x' },
      {
        key: 'order-9',
        retry: (attempt) => {
          keys.push(attempt.key);
          return withRetry(attempt, { sleep: () => Promise.resolve() });
        },
      },
    );
    expect(textOf(result)).toBe('busy x #2');
    expect(keys).toEqual(['order-9']);
    expect(fixture.keysSeen).toEqual(['order-9', 'order-9']);
    // A retry function typed for the plain attempt of 0.1 still fits.
    const plainRetry = (attempt: () => Promise<ToolResult>): Promise<ToolResult> => attempt();
    expect(textOf(await callIdempotent(client, 'get_item', { name: 'y' }, { retry: plainRetry }))).toBe('read y #1');
  });

  it('IDEM-2: withRetry from @ext/errors retries with the same key', async () => {
    const fixture = new Fixture();
    const { client } = await pair(line, fixture, { errors: true });
    const attempt = idempotentCall(client, 'busy_write', { name: 'x' });
    const result = await withRetry(attempt, { sleep: () => Promise.resolve() });
    expect(textOf(result)).toBe('busy x #2');
    expect(fixture.keysSeen).toEqual([attempt.key, attempt.key]);
  });

  it('IDEM-2 IDEM-10: a retry after IDEMPOTENCY_IN_PROGRESS receives the replay, not a second execution', async () => {
    const fixture = new Fixture();
    const { client } = await pair(line, fixture, {
      errors: true,
      server: { inFlightWaitMs: 20, inProgressRetryAfterSeconds: 0 },
    });
    const release = deferred();
    fixture.gate = release.promise;
    const key = 'lost-reply-1';
    // The first attempt's reply is "lost": the caller gives up on it and retries.
    const lost = client.callTool('create_item', { name: 'x' }, { meta: idempotencyMeta(key) });
    await fixture.entered.promise;
    let retries = 0;
    const result = await callIdempotent(
      client,
      'create_item',
      { name: 'x' },
      {
        key,
        retry: (attempt) =>
          withRetry(attempt, {
            sleep: async () => {
              retries += 1;
              release.resolve();
              await lost;
            },
          }),
      },
    );
    expect(retries).toBe(1);
    expect(fixture.count('create_item')).toBe(1);
    expect(getReplayInfo(result)).toMatchObject({ idempotency_key: key, was_replay: true });
  });

  it('IDEM-13: beyond the per-principal record budget new keys are rate_limited; known keys still replay', async () => {
    const fixture = new Fixture();
    const { client } = await pair(line, fixture, { errors: true, server: { maxKeysPerPrincipal: 2 } });
    await client.callTool('create_item', { name: 'x' }, { meta: idempotencyMeta('budget-1') });
    await client.callTool('create_item', { name: 'x' }, { meta: idempotencyMeta('budget-2') });
    const refused = await client.callTool('create_item', { name: 'x' }, { meta: idempotencyMeta('budget-3') });
    expect(getStructuredError(refused)).toMatchObject({ code: 'IDEMPOTENCY_KEY_LIMIT', category: 'rate_limited' });
    expect(getStructuredError(refused)?.retry_after_seconds).toBeGreaterThan(0);
    const replay = await client.callTool('create_item', { name: 'x' }, { meta: idempotencyMeta('budget-1') });
    expect(getReplayInfo(replay)?.was_replay).toBe(true);
    expect(fixture.count('create_item')).toBe(2);
  });
});

describe('idempotency records expire (IDEM-5)', () => {
  it('a repeat after the TTL executes again', async () => {
    let clock = Date.parse('2026-03-15T00:00:00Z');
    const now = (): number => clock;
    const fixture = new Fixture();
    const { client } = await pair('v1', fixture, { store: new MemoryStore({ now }), server: { now } });
    const meta = idempotencyMeta('ttl-1', 60);
    await client.callTool('create_item', { name: 'x' }, { meta });
    clock += 59_000;
    expect(getReplayInfo(await client.callTool('create_item', { name: 'x' }, { meta }))?.was_replay).toBe(true);
    clock += 2_000;
    const after = await client.callTool('create_item', { name: 'x' }, { meta });
    expect(getReplayInfo(after)).toEqual({
      idempotency_key: 'ttl-1',
      was_replay: false,
      original_timestamp: '2026-03-15T00:01:01.000Z',
    });
    expect(fixture.count('create_item')).toBe(2);
  });
});

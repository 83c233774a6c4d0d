import {
  ConfigurationError,
  ExtensionError,
  MemoryStore,
  type CallContext,
  type SetOptions,
  type Store,
  type ToolCall,
  type ToolInfo,
  type ToolResult,
} from '@ext/core';
import { createCallContext, createRequestContext, silentLogger, type JsonValue } from '@ext/core/kit';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readResultMeta } from './logic.js';
import { IDEMPOTENCY_ID, IDEMPOTENCY_PACKAGE } from './schema.js';
import { idempotencyServer, type IdempotencyServerOptions } from './server.js';

function contextFor(
  store: Store,
  options: { principal?: string; tool?: ToolInfo; negotiated?: boolean } = {},
): CallContext {
  const negotiated = options.negotiated ?? true;
  const request = createRequestContext({
    sdk: 'v1',
    era: 'legacy',
    protocolVersion: undefined,
    authInfo: { clientId: options.principal ?? 'p1' },
    identity: { principal: `client:${options.principal ?? 'p1'}`, source: 'oauth' },
    peerExtensions: negotiated ? { [IDEMPOTENCY_ID]: { version: '1.0' } } : {},
    negotiation: new Map(
      negotiated ? [[IDEMPOTENCY_PACKAGE, { id: IDEMPOTENCY_ID, settings: { version: '1.0' } }]] : [],
    ),
    signal: new AbortController().signal,
    logger: silentLogger,
    store,
    progressToken: undefined,
    notify: () => Promise.resolve(),
    elicit: undefined,
  });
  return createCallContext(request, options.tool ?? { name: 'create' });
}

function callWith(meta: unknown, args: Record<string, unknown> = { n: 1 }): ToolCall {
  return { name: 'create', arguments: args, meta: meta === undefined ? {} : { [IDEMPOTENCY_ID]: meta } };
}

function middlewareOf(options: IdempotencyServerOptions = {}) {
  const middleware = idempotencyServer(options).middleware;
  if (!middleware) throw new Error('idempotencyServer has no middleware');
  return middleware;
}

const ok = (text: string): ToolResult => ({ content: [{ type: 'text', text }] });

describe('idempotencyServer options', () => {
  it.each<[IdempotencyServerOptions, RegExp]>([
    [{ defaultTtlSeconds: 0 }, /defaultTtlSeconds/],
    [{ maxTtlSeconds: 1.5 }, /maxTtlSeconds/],
    [{ defaultTtlSeconds: 100, maxTtlSeconds: 10 }, /must not exceed maxTtlSeconds/],
    [{ inFlightWaitMs: -1 }, /inFlightWaitMs/],
    [{ leaseMs: 2 }, /leaseMs/],
    [{ maxKeysPerPrincipal: 0 }, /maxKeysPerPrincipal/],
    [{ tools: 'some' as unknown as 'all' }, /tools/],
    [{ keyPrefix: '' }, /keyPrefix/],
  ])('refuses %o with a message naming the option', (options, message) => {
    expect(() => idempotencyServer(options)).toThrow(ConfigurationError);
    expect(() => idempotencyServer(options)).toThrow(message);
  });

  it('IDEM-1: advertises its TTLs, and the default TTL follows a lower maximum', () => {
    expect(idempotencyServer().settings).toEqual({
      version: '1.0',
      default_ttl_seconds: 86_400,
      max_ttl_seconds: 604_800,
    });
    expect(idempotencyServer({ maxTtlSeconds: 3600 }).settings).toMatchObject({
      default_ttl_seconds: 3600,
      max_ttl_seconds: 3600,
    });
  });

  it('IDEM-14: refuses a malformed Tool._meta entry when the tool is registered', () => {
    const extension = idempotencyServer();
    expect(() => extension.toolMeta?.({ name: 'x', _meta: { [IDEMPOTENCY_ID]: { idempotent_capable: 1 } } })).toThrow(
      /tool "x"/,
    );
    expect(extension.toolMeta?.({ name: 'x', annotations: { readOnlyHint: true } })).toEqual({
      idempotent_capable: false,
    });
  });
});

describe('the middleware', () => {
  it('IDEM-3: passes through untouched without a key, whether or not the client declared the extension', async () => {
    const middleware = middlewareOf();
    const store = new MemoryStore();
    const result = ok('plain');
    for (const ctx of [contextFor(store, { negotiated: false }), contextFor(store)]) {
      expect(await middleware(callWith(undefined), ctx, () => Promise.resolve(result))).toBe(result);
    }
  });

  it('IDEM-3a: a key from a client that did not declare the extension is honoured', async () => {
    const middleware = middlewareOf();
    const ctx = contextFor(new MemoryStore(), { negotiated: false });
    let runs = 0;
    const run = () => Promise.resolve(ok(`run ${String(++runs)}`));
    await middleware(callWith({ idempotency_key: 'k' }), ctx, run);
    const replayed = await middleware(callWith({ idempotency_key: 'k' }), ctx, run);
    expect(runs).toBe(1);
    expect(readResultMeta(replayed, IDEMPOTENCY_ID)).toMatchObject({ idempotency_key: 'k', was_replay: true });
  });

  it('IDEM-4: an invalid key throws invalid_input carrying the JSON Pointer of the field, before anything runs', async () => {
    const middleware = middlewareOf();
    let ran = false;
    const failure = await middleware(callWith({ idempotency_key: 'a/b' }), contextFor(new MemoryStore()), () => {
      ran = true;
      return Promise.resolve(ok('x'));
    }).catch((error: unknown) => error);
    expect(ran).toBe(false);
    expect(ExtensionError.isInstance(failure)).toBe(true);
    expect((failure as ExtensionError).toStructured()).toMatchObject({
      code: 'INVALID_INPUT',
      category: 'invalid_input',
      details: { field: 'idempotency_key', pointer: '/_meta/io.github.mcp-ext~1idempotency/idempotency_key' },
    });
  });

  it('claims a fresh key without reading it first, and reads a known key once to replay it', async () => {
    const store = new MemoryStore();
    const operations: string[] = [];
    const counting = new Proxy(store, {
      get(target, property, receiver) {
        const value: unknown = Reflect.get(target, property, receiver);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          operations.push(String(property));
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
    const middleware = middlewareOf();
    const call = callWith({ idempotency_key: 'fresh-1' });
    await middleware(call, contextFor(counting), () => Promise.resolve(ok('first')));
    // Claim, count the caller's budget (this window and the last), record the result, wake waiters.
    expect(operations).toEqual(['setIfAbsent', 'increment', 'get', 'compareAndSet', 'publish']);
    operations.length = 0;
    const replay = await middleware(call, contextFor(counting), () => Promise.resolve(ok('second')));
    expect(replay.content).toEqual(ok('first').content);
    expect(operations).toEqual(['setIfAbsent', 'get']);
  });

  it('IDEM-13: a new key refused by the record budget leaves no claim behind: it runs once there is room', async () => {
    let clock = 0;
    const store = new MemoryStore({ now: () => clock });
    const middleware = middlewareOf({
      maxKeysPerPrincipal: 1,
      maxTtlSeconds: 10,
      defaultTtlSeconds: 10,
      now: () => clock,
    });
    await middleware(callWith({ idempotency_key: 'first' }), contextFor(store), () => Promise.resolve(ok('1')));
    let ran = 0;
    const run = (): Promise<ToolResult> => {
      ran += 1;
      return Promise.resolve(ok('2'));
    };
    const refused = await middleware(callWith({ idempotency_key: 'second' }), contextFor(store), run).catch(
      (error: unknown) => error,
    );
    expect((refused as ExtensionError).code).toBe('IDEMPOTENCY_KEY_LIMIT');
    expect(ran).toBe(0);
    // Both budget windows later, the same key claims again and runs.
    clock += 20_001;
    const result = await middleware(callWith({ idempotency_key: 'second' }), contextFor(store), run);
    expect(result.content).toEqual(ok('2').content);
    expect(ran).toBe(1);
  });

  it('IDEM-15: a claim left by a crashed server lapses after the lease, and the key can execute', async () => {
    let clock = 0;
    const store = new MemoryStore({ now: () => clock });
    const middleware = middlewareOf({ leaseMs: 1000, inFlightWaitMs: 0 });
    const call = callWith({ idempotency_key: 'crash-1' });
    // The first server never finishes: its handler hangs and its heartbeat is gone with it.
    void middleware(call, contextFor(store), () => new Promise<ToolResult>(() => undefined));
    await new Promise((resolve) => setTimeout(resolve, 5));
    const blocked = await middleware(call, contextFor(store), () => Promise.resolve(ok('second'))).catch(
      (error: unknown) => error,
    );
    expect((blocked as ExtensionError).code).toBe('IDEMPOTENCY_IN_PROGRESS');
    clock += 1001;
    const result = await middleware(call, contextFor(store), () => Promise.resolve(ok('second')));
    expect(result.content).toEqual(ok('second').content);
  });

  it('IDEM-15: the claim is renewed while a long handler runs, so no duplicate executes', async () => {
    const store = new MemoryStore();
    // A lease several event-loop stalls of a loaded machine long, and a handler several leases long.
    const middleware = middlewareOf({ leaseMs: 300, inFlightWaitMs: 5000, pollIntervalMs: 5 });
    const call = callWith({ idempotency_key: 'long-1' });
    let runs = 0;
    const slow = async (): Promise<ToolResult> => {
      runs += 1;
      // Several leases long: only the heartbeat keeps the claim alive.
      await new Promise((resolve) => setTimeout(resolve, 1200));
      return ok('long');
    };
    const first = middleware(call, contextFor(store), slow);
    await new Promise((resolve) => setTimeout(resolve, 600));
    const second = middleware(call, contextFor(store), slow);
    const results = await Promise.all([first, second]);
    expect(runs).toBe(1);
    expect(results.map((result) => (result._meta?.[IDEMPOTENCY_ID] as { was_replay: boolean }).was_replay)).toEqual([
      false,
      true,
    ]);
  });
});

/** Delays every store operation and its reply by a step fast-check's scheduler picks. */
function scheduledStore(s: fc.Scheduler, inner: Store): Store {
  const run = async <T>(label: string, op: () => Promise<T>): Promise<T> => {
    await s.schedule(Promise.resolve(), `${label}:call`);
    const value = await op();
    return s.schedule(Promise.resolve(value), `${label}:reply`);
  };
  return {
    get: (key) => run('get', () => inner.get(key)),
    set: (key, value, options?: SetOptions) => run('set', () => inner.set(key, value, options)),
    setIfAbsent: (key, value, options) => run('setIfAbsent', () => inner.setIfAbsent(key, value, options)),
    compareAndSet: (key, expected, next, options) =>
      run('cas', () => inner.compareAndSet(key, expected, next, options)),
    delete: (key) => run('delete', () => inner.delete(key)),
    increment: (key, by, options) => run('increment', () => inner.increment(key, by, options)),
    append: (stream, value, options) => run('append', () => inner.append(stream, value, options)),
    read: (stream, options) => run('read', () => inner.read(stream, options)),
    publish: (channel, message: JsonValue) => run('publish', () => inner.publish(channel, message)),
    subscribe: (channel, listener) => run('subscribe', () => inner.subscribe(channel, listener)),
    close: () => inner.close(),
  };
}

describe('the real middleware under any interleaving of store operations (IDEM-7, IDEM-11)', () => {
  it('executes successfully at most once, and every other caller gets that result or its own failure', async () => {
    await fc.assert(
      fc.asyncProperty(fc.scheduler(), fc.array(fc.boolean(), { minLength: 2, maxLength: 6 }), async (s, failPlan) => {
        const store = scheduledStore(s, new MemoryStore());
        const middleware = middlewareOf({ pollIntervalMs: 1, inFlightWaitMs: 60_000 });
        let executions = 0;
        let successes = 0;
        let failures = 0;
        const handler = async (): Promise<ToolResult> => {
          const n = (executions += 1);
          await s.schedule(Promise.resolve(), 'handler');
          if (failPlan[n - 1] === true) {
            failures += 1;
            throw new Error(`execution ${n} failed`);
          }
          successes += 1;
          return ok(`result of execution ${n}`);
        };
        const calls = failPlan.map(() => middleware(callWith({ idempotency_key: 'same' }), contextFor(store), handler));
        const progress = { settled: false };
        const outcomes = Promise.allSettled(calls).finally(() => {
          progress.settled = true;
        });
        while (!progress.settled) {
          await s.waitIdle();
          // Waiters also wake on their poll timer.
          await new Promise((resolve) => setTimeout(resolve, 2));
        }
        const results = await outcomes;

        expect(successes).toBeLessThanOrEqual(1);
        expect(results.filter((result) => result.status === 'rejected')).toHaveLength(failures);
        const texts = new Set(
          results.flatMap((result) => (result.status === 'fulfilled' ? [JSON.stringify(result.value.content)] : [])),
        );
        expect(texts.size).toBeLessThanOrEqual(1);
        const replays = results.filter(
          (result) =>
            result.status === 'fulfilled' &&
            (result.value._meta?.[IDEMPOTENCY_ID] as { was_replay: boolean }).was_replay,
        );
        expect(replays).toHaveLength(results.length - failures - successes);
      }),
      { numRuns: 60 },
    );
  });
});

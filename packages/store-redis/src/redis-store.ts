import { createHash } from 'node:crypto';
import { createClient } from 'redis';
import { canonicalJson, consoleLogger, StoreAvailability, StoreUnavailableError } from '@ext/core';
import type {
  AppendOptions,
  JsonValue,
  Logger,
  ReadOptions,
  SetOptions,
  Store,
  StoreHealth,
  StreamEntry,
  Unsubscribe,
} from '@ext/core';
import { isOutage, unavailableReason, withDeadline } from './redis-faults.js';

export interface RedisStoreOptions {
  /** `redis://[[user]:password@]host[:port][/db]` or `rediss://` for TLS. Default `redis://127.0.0.1:6379`. */
  readonly url?: string | undefined;
  /**
   * Prepended to every key and channel, so several deployments (tenants) can share
   * one Redis without seeing each other's state. Default `'mcp-ext:'`.
   */
  readonly keyPrefix?: string | undefined;
  /** How long the first connection may take before `createRedisStore` rejects, in ms. Default 5000. */
  readonly connectTimeoutMs?: number | undefined;
  /**
   * The longest any operation waits for Redis, in ms, before it fails with
   * core's `StoreUnavailableError` (`transient`): a stopped or frozen Redis
   * must not hold a tool call for longer than a client waits. Default 500.
   */
  readonly commandTimeoutMs?: number | undefined;
  /** Where outages (once each), connection errors (debug) and listener failures are reported. Default: stderr. */
  readonly logger?: Logger | undefined;
}

type RedisClient = ReturnType<typeof newClient>;
type Listener = (message: string) => void;

/** The default `keyPrefix`. */
export const DEFAULT_KEY_PREFIX = 'mcp-ext:';

/** The default `commandTimeoutMs`: well under what an MCP client waits for a tool call. */
export const DEFAULT_COMMAND_TIMEOUT_MS = 500;

/** What clients are told to wait during an outage: about one reconnection attempt. */
const RETRY_AFTER_SECONDS = 1;

/**
 * Compare-and-set on canonical JSON: values are stored canonically, so the
 * comparison is string equality. ARGV: mode (`absent` | `equal`), expected,
 * next, ttl in ms (empty = none).
 */
const COMPARE_AND_SET = `
local current = redis.call('GET', KEYS[1])
if ARGV[1] == 'absent' then
  if current then return 0 end
elseif current ~= ARGV[2] then
  return 0
end
if ARGV[4] ~= '' then
  redis.call('SET', KEYS[1], ARGV[3], 'PX', ARGV[4])
else
  redis.call('SET', KEYS[1], ARGV[3])
end
return 1
`;

/** INCRBY that applies the TTL only when it creates the counter. ARGV: by, ttl in ms (empty = none). */
const INCREMENT = `
local created = redis.call('EXISTS', KEYS[1]) == 0
local value = redis.call('INCRBY', KEYS[1], ARGV[1])
if created and ARGV[2] ~= '' then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return value
`;

interface Script {
  readonly source: string;
  readonly sha1: string;
}

function script(source: string): Script {
  return { source, sha1: createHash('sha1').update(source).digest('hex') };
}

const SCRIPTS = { compareAndSet: script(COMPARE_AND_SET), increment: script(INCREMENT) } as const;

function ttlArgument(options: SetOptions | undefined): number | undefined {
  const ttl = options?.ttlMs;
  if (ttl === undefined) return undefined;
  if (!Number.isFinite(ttl) || ttl <= 0) throw new RangeError('ttlMs must be a positive number');
  return Math.ceil(ttl);
}

function positiveInteger(name: string, value: number | undefined): void {
  if (value !== undefined && (!Number.isSafeInteger(value) || value <= 0)) {
    throw new RangeError(`${name} must be a positive integer`);
  }
}

const CURSOR = /^\d{1,20}-\d{1,20}$/;

function isNoScript(error: unknown): boolean {
  return error instanceof Error && error.message.startsWith('NOSCRIPT');
}

function isNotInteger(error: unknown): boolean {
  return error instanceof Error && error.message.includes('not an integer');
}

function positiveOption(name: string, value: unknown, fallback: number): number {
  const resolved = value ?? fallback;
  if (typeof resolved !== 'number' || !Number.isFinite(resolved) || resolved <= 0) {
    throw new RangeError(`RedisStore: ${name} must be a positive number`);
  }
  return resolved;
}

// Named so the client's type is what this call returns: `createClient`'s own generics do not narrow.
function newClient(
  url: string,
  commandTimeoutMs: number,
  socket: { connectTimeout: number; reconnectStrategy: (retries: number, cause: Error) => number | Error },
) {
  // node-redis drops a command still unsent at its timeout, so a command queued during an outage never runs late.
  return createClient({ url, socket, commandOptions: { timeout: commandTimeoutMs } });
}

function parse(text: string): JsonValue {
  return JSON.parse(text) as JsonValue;
}

/**
 * Connects to Redis and returns a store whose state every instance of the
 * server with the same `url` and `keyPrefix` shares. Rejects when the server
 * cannot be reached within `connectTimeoutMs`.
 */
export async function createRedisStore(options: RedisStoreOptions = {}): Promise<RedisStore> {
  // Checked at run time too: JavaScript callers get no help from the type.
  const keyPrefix: unknown = options.keyPrefix ?? DEFAULT_KEY_PREFIX;
  if (typeof keyPrefix !== 'string') throw new TypeError('RedisStore: keyPrefix must be a string');
  const connectTimeoutMs = positiveOption('connectTimeoutMs', options.connectTimeoutMs, 5000);
  const commandTimeoutMs = positiveOption('commandTimeoutMs', options.commandTimeoutMs, DEFAULT_COMMAND_TIMEOUT_MS);
  const logger = options.logger ?? consoleLogger;
  const url = options.url ?? 'redis://127.0.0.1:6379';
  const startedAt = Date.now();
  let connected = false;
  const client = newClient(url, commandTimeoutMs, {
    connectTimeout: connectTimeoutMs,
    // Before the first connection, give up on time so startup fails loudly;
    // afterwards keep reconnecting with a capped backoff (calls fail fast meanwhile).
    reconnectStrategy: (retries, cause) => {
      const backoff = Math.min(50 * 2 ** Math.min(retries, 6), 2000);
      if (connected) return backoff;
      const remaining = connectTimeoutMs - (Date.now() - startedAt);
      if (remaining <= 0)
        return new Error(`RedisStore: cannot reach Redis within ${connectTimeoutMs} ms: ${cause.message}`);
      return Math.min(backoff, remaining);
    },
  });
  // Without an 'error' listener node-redis would crash the process on a dropped connection.
  // Debug only: one line per reconnection attempt would bury the store's one line per outage.
  client.on('error', (error: unknown) => {
    logger.debug?.('RedisStore: connection error', { error: String(error) });
  });
  client.on('ready', () => {
    connected = true;
  });
  await client.connect();
  return new RedisStore(client, keyPrefix, logger, commandTimeoutMs);
}

/** A `Store` on Redis. Build it with `createRedisStore`. */
export class RedisStore implements Store {
  readonly #client: RedisClient;
  readonly #prefix: string;
  readonly #logger: Logger;
  readonly #timeoutMs: number;
  readonly #availability: StoreAvailability;
  #subscriber: Promise<RedisClient> | undefined;
  #probeTimer: NodeJS.Timeout | undefined;
  #probing: Promise<number | Error> | undefined;
  #closed = false;

  /** @internal Use `createRedisStore`, which connects first. */
  constructor(client: RedisClient, keyPrefix: string, logger: Logger, commandTimeoutMs = DEFAULT_COMMAND_TIMEOUT_MS) {
    this.#client = client;
    this.#prefix = keyPrefix;
    this.#logger = logger;
    this.#timeoutMs = commandTimeoutMs;
    this.#availability = new StoreAvailability('RedisStore', logger);
    // A dropped connection is an outage at once: calls fail fast instead of each waiting out the bound.
    client.on('error', (error: unknown) => {
      if (!this.#closed) this.#failure(error);
    });
    // Reconnected: a PING that gets through ends the outage without waiting for the next probe.
    client.on('ready', () => {
      if (this.#availability.outage !== undefined) void this.#probe();
    });
  }

  /** The prefix in front of every key and channel of this store. */
  get keyPrefix(): string {
    return this.#prefix;
  }

  // Values and streams live in separate key spaces so `get` never meets a stream.
  #valueKey(key: string): string {
    return `${this.#prefix}v:${key}`;
  }

  #streamKey(stream: string): string {
    return `${this.#prefix}s:${stream}`;
  }

  #channel(channel: string): string {
    return `${this.#prefix}c:${channel}`;
  }

  #assertOpen(): void {
    if (this.#closed) throw new Error('RedisStore is closed');
  }

  /**
   * What a failure is for the caller: an outage of Redis becomes core's
   * `StoreUnavailableError` (and, if Redis as a whole does not serve, opens
   * an outage: logged once, calls fail fast, a probe looks for the way
   * back); anything else (a bug, a bad value) is returned as it is.
   */
  #failure(error: unknown): Error {
    const reason = unavailableReason(error);
    if (reason === undefined) return error instanceof Error ? error : new Error(String(error));
    const failure = new StoreUnavailableError({ reason, retryAfterSeconds: RETRY_AFTER_SECONDS, cause: error });
    if (isOutage(reason)) {
      this.#availability.failed(failure);
      this.#startProbing();
    } else {
      this.#logger.debug?.('RedisStore: Redis refused a command', { reason, error: String(error) });
    }
    return failure;
  }

  /**
   * Every operation goes through here: it fails at once during an outage
   * (queueing behind a stalled server only piles up commands that run late),
   * and otherwise gets `commandTimeoutMs` in all, retries included.
   */
  async #call<T>(work: () => Promise<T>): Promise<T> {
    this.#assertOpen();
    const outage = this.#availability.outage;
    if (outage !== undefined)
      throw new StoreUnavailableError({ reason: outage.reason, retryAfterSeconds: RETRY_AFTER_SECONDS });
    try {
      return await withDeadline(work(), this.#timeoutMs);
    } catch (error) {
      throw this.#failure(error);
    }
  }

  #startProbing(): void {
    if (this.#probeTimer !== undefined || this.#closed) return;
    this.#probeTimer = setInterval(() => {
      void this.#probe();
    }, this.#timeoutMs);
    // Housekeeping: it must not keep the process alive.
    this.#probeTimer.unref();
  }

  #stopProbing(): void {
    if (this.#probeTimer !== undefined) clearInterval(this.#probeTimer);
    this.#probeTimer = undefined;
  }

  /**
   * One PING under the bound (one at a time), and the only way an outage
   * ends: an ordinary call that was already under way when Redis went away
   * proves nothing. Resolves with the round trip in ms, or the failure.
   */
  #probe(): Promise<number | Error> {
    this.#probing ??= this.#ping().finally(() => {
      this.#probing = undefined;
    });
    return this.#probing;
  }

  async #ping(): Promise<number | Error> {
    const started = performance.now();
    try {
      await withDeadline(this.#client.ping(), this.#timeoutMs);
    } catch (error) {
      return this.#failure(error);
    }
    this.#stopProbing();
    this.#availability.recovered();
    return performance.now() - started;
  }

  // EVALSHA first (the script body is not resent each call); EVAL once after a
  // NOSCRIPT reply, which also loads the script for the next call.
  async #run(which: Script, keys: string[], args: string[]): Promise<unknown> {
    try {
      return await this.#client.evalSha(which.sha1, { keys, arguments: args });
    } catch (error) {
      if (!isNoScript(error)) throw error;
      return this.#client.eval(which.source, { keys, arguments: args });
    }
  }

  async get(key: string): Promise<JsonValue | undefined> {
    const text = await this.#call(() => this.#client.get(this.#valueKey(key)));
    return text === null ? undefined : parse(text);
  }

  async set(key: string, value: JsonValue, options?: SetOptions): Promise<void> {
    const ttl = ttlArgument(options);
    const text = canonicalJson(value);
    await this.#call(() =>
      this.#client.set(
        this.#valueKey(key),
        text,
        ttl === undefined ? undefined : { expiration: { type: 'PX', value: ttl } },
      ),
    );
  }

  async setIfAbsent(key: string, value: JsonValue, options?: SetOptions): Promise<boolean> {
    const ttl = ttlArgument(options);
    const text = canonicalJson(value);
    const reply = await this.#call(() =>
      this.#client.set(this.#valueKey(key), text, {
        condition: 'NX',
        ...(ttl === undefined ? {} : { expiration: { type: 'PX' as const, value: ttl } }),
      }),
    );
    return reply !== null;
  }

  async compareAndSet(
    key: string,
    expected: JsonValue | undefined,
    next: JsonValue,
    options?: SetOptions,
  ): Promise<boolean> {
    const ttl = ttlArgument(options);
    const args =
      expected === undefined
        ? ['absent', '', canonicalJson(next), ttl === undefined ? '' : String(ttl)]
        : ['equal', canonicalJson(expected), canonicalJson(next), ttl === undefined ? '' : String(ttl)];
    const reply = await this.#call(() => this.#run(SCRIPTS.compareAndSet, [this.#valueKey(key)], args));
    return reply === 1;
  }

  /** Removes the value and the stream stored under `key`. */
  async delete(key: string): Promise<boolean> {
    return (await this.#call(() => this.#client.del([this.#valueKey(key), this.#streamKey(key)]))) > 0;
  }

  async increment(key: string, by = 1, options?: SetOptions): Promise<number> {
    if (!Number.isSafeInteger(by)) throw new RangeError('increment: by must be a safe integer');
    const ttl = ttlArgument(options);
    try {
      const reply = await this.#call(() =>
        this.#run(SCRIPTS.increment, [this.#valueKey(key)], [String(by), ttl === undefined ? '' : String(ttl)]),
      );
      return Number(reply);
    } catch (error) {
      if (isNotInteger(error)) throw new TypeError(`increment: value at "${key}" is not an integer`, { cause: error });
      throw error;
    }
  }

  async append(stream: string, value: JsonValue, options?: AppendOptions): Promise<string> {
    positiveInteger('maxLength', options?.maxLength);
    const ttl = ttlArgument(options);
    const text = canonicalJson(value);
    const key = this.#streamKey(stream);
    const [id] = await this.#call(() => {
      // MULTI keeps the entry and its stream's TTL in step: no reader sees one without the other.
      const transaction = this.#client
        .multi()
        .xAdd(
          key,
          '*',
          { v: text },
          options?.maxLength === undefined
            ? undefined
            : { TRIM: { strategy: 'MAXLEN', strategyModifier: '=', threshold: options.maxLength } },
        );
      if (ttl === undefined) transaction.persist(key);
      else transaction.pExpire(key, ttl);
      return transaction.exec();
    });
    if (typeof id !== 'string') throw new Error('RedisStore: XADD returned no entry id');
    return id;
  }

  async read(stream: string, options?: ReadOptions): Promise<StreamEntry[]> {
    positiveInteger('limit', options?.limit);
    const after = options?.after;
    if (after !== undefined && !CURSOR.test(after))
      throw new RangeError(`read: "${after}" is not a cursor of this store`);
    // "(" makes the start exclusive: strictly after the cursor.
    const entries = await this.#call(() =>
      this.#client.xRange(this.#streamKey(stream), after === undefined ? '-' : `(${after}`, '+', {
        COUNT: options?.limit ?? 100,
      }),
    );
    return (entries ?? []).map((entry) => {
      const text = entry.message.v;
      if (text === undefined) throw new Error(`RedisStore: stream entry ${entry.id} has no value field`);
      return { id: entry.id, value: parse(text) };
    });
  }

  async publish(channel: string, message: JsonValue): Promise<void> {
    const text = canonicalJson(message);
    await this.#call(() => this.#client.publish(this.#channel(channel), text));
  }

  // A connection in subscriber mode cannot run other commands, so pub/sub gets its own.
  #subscriberClient(): Promise<RedisClient> {
    if (!this.#subscriber) {
      const subscriber = this.#client.duplicate();
      // Debug only, as for the main connection: its outages are the main connection's too.
      subscriber.on('error', (error: unknown) => {
        this.#logger.debug?.('RedisStore: subscriber connection error', { error: String(error) });
      });
      this.#subscriber = subscriber.connect().then(
        () => subscriber,
        (error: unknown) => {
          this.#subscriber = undefined;
          throw error;
        },
      );
    }
    return this.#subscriber;
  }

  async subscribe(channel: string, listener: (message: JsonValue) => void): Promise<Unsubscribe> {
    const subscriber = await this.#call(() => this.#subscriberClient());
    const name = this.#channel(channel);
    let active = true;
    // One wrapper per subscription: unsubscribing removes this listener only, and silences it at once.
    const wrapped: Listener = (text) => {
      if (!active) return;
      try {
        listener(parse(text));
      } catch (error) {
        this.#logger.warn('RedisStore: a subscriber threw; other subscribers are unaffected', {
          channel,
          error: String(error),
        });
      }
    };
    const subscribing = subscriber.subscribe(name, wrapped);
    try {
      await this.#call(() => subscribing);
    } catch (error) {
      // It may still land after its deadline: the caller was told it failed, so it must deliver nothing.
      active = false;
      subscribing.then(() => subscriber.unsubscribe(name, wrapped)).catch(() => undefined);
      throw error;
    }
    return () =>
      this.#unsubscribe(subscriber, name, wrapped, () => {
        const was = active;
        active = false;
        return was;
      });
  }

  // Delivery stops at once; Redis forgets the subscription when it can (during an outage,
  // after it), so the wait is bounded and its failure only noted.
  async #unsubscribe(
    subscriber: RedisClient,
    name: string,
    wrapped: Listener,
    deactivate: () => boolean,
  ): Promise<void> {
    if (!deactivate() || this.#closed) return;
    await withDeadline(subscriber.unsubscribe(name, wrapped), this.#timeoutMs).catch((error: unknown) => {
      this.#logger.debug?.('RedisStore: UNSUBSCRIBE is still pending', { error: String(error) });
    });
  }

  /** PING under `commandTimeoutMs`; also ends an outage when it gets through. */
  async health(): Promise<StoreHealth> {
    if (this.#closed) return { ok: false, detail: 'RedisStore is closed' };
    const outcome = await this.#probe();
    if (typeof outcome === 'number') return { ok: true, detail: `redis answered PING in ${Math.ceil(outcome)} ms` };
    const reason = StoreUnavailableError.isInstance(outcome) ? outcome.reason : 'error';
    return { ok: false, detail: `redis did not answer PING within ${this.#timeoutMs} ms (${reason})` };
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#stopProbing();
    const subscriber = this.#subscriber;
    this.#subscriber = undefined;
    if (subscriber) await this.#closeSubscriber(subscriber);
    await this.#closeClient(this.#client);
  }

  async #closeSubscriber(subscriber: Promise<RedisClient>): Promise<void> {
    let connection: RedisClient | undefined;
    try {
      connection = await withDeadline(subscriber, this.#timeoutMs);
    } catch (error) {
      // Still connecting (an outage) or never connected: drop it whenever it settles.
      this.#logger.debug?.('RedisStore: subscriber not connected at close', { error: String(error) });
      subscriber
        .then((late) => {
          late.destroy();
        })
        .catch(() => undefined);
      return;
    }
    await this.#closeClient(connection);
  }

  // A graceful close waits for every pending reply, which a frozen server never sends.
  async #closeClient(client: RedisClient): Promise<void> {
    try {
      await withDeadline(client.close(), this.#timeoutMs);
    } catch {
      client.destroy();
    }
  }
}

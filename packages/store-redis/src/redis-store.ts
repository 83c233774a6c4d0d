/** `RedisStore`: the `Store` interface on Redis, and its factory. */
import { canonicalJson } from '@ext/core/kit';
import { StoreAvailability, StoreUnavailableError } from '@ext/core';
import type {
  AppendOptions,
  Logger,
  ReadOptions,
  SetOptions,
  Store,
  StoreHealth,
  StreamEntry,
  Unsubscribe,
} from '@ext/core';
import type { JsonValue } from '@ext/core/kit';
import { closeClient, connect, type RedisClient } from './connection.js';
import { DEFAULT_COMMAND_TIMEOUT_MS, resolveOptions, type RedisStoreOptions } from './options.js';
import { isOutage, ReplyWatch, unavailableReason } from './redis-faults.js';
import { runScript, SCRIPTS } from './scripts.js';
import { Subscriptions } from './subscriptions.js';

/** What clients are told to wait during an outage: about one reconnection attempt. */
const RETRY_AFTER_SECONDS = 1;

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

function isNotInteger(error: unknown): boolean {
  return error instanceof Error && error.message.includes('not an integer');
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
  const resolved = resolveOptions(options);
  const client = await connect(resolved);
  return new RedisStore(client, resolved.keyPrefix, resolved.logger, resolved.commandTimeoutMs);
}

/** A `Store` on Redis. Build it with `createRedisStore`. */
export class RedisStore implements Store {
  readonly #client: RedisClient;
  readonly #prefix: string;
  readonly #logger: Logger;
  readonly #timeoutMs: number;
  readonly #availability: StoreAvailability;
  readonly #subscriptions: Subscriptions;
  readonly #replies = new ReplyWatch();
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
    this.#subscriptions = new Subscriptions({
      client,
      logger,
      timeoutMs: commandTimeoutMs,
      call: (work) => this.#call(work),
      closed: () => this.#closed,
    });
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
   * and otherwise fails once Redis has been silent for `commandTimeoutMs`
   * while it waits (a process too busy to read the replies is not an outage).
   */
  async #call<T>(work: () => Promise<T>): Promise<T> {
    this.#assertOpen();
    const outage = this.#availability.outage;
    if (outage !== undefined)
      throw new StoreUnavailableError({ reason: outage.reason, retryAfterSeconds: RETRY_AFTER_SECONDS });
    try {
      return await this.#replies.bound(work(), this.#timeoutMs);
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
      await this.#replies.bound(this.#client.ping(), this.#timeoutMs);
    } catch (error) {
      return this.#failure(error);
    }
    this.#stopProbing();
    this.#availability.recovered();
    return performance.now() - started;
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
    const reply = await this.#call(() => runScript(this.#client, SCRIPTS.compareAndSet, [this.#valueKey(key)], args));
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
        runScript(
          this.#client,
          SCRIPTS.increment,
          [this.#valueKey(key)],
          [String(by), ttl === undefined ? '' : String(ttl)],
        ),
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

  subscribe(channel: string, listener: (message: JsonValue) => void): Promise<Unsubscribe> {
    return this.#subscriptions.subscribe(this.#channel(channel), channel, listener);
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
    await this.#subscriptions.close();
    await closeClient(this.#client, this.#timeoutMs);
  }
}

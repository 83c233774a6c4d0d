import { createHash } from 'node:crypto';
import { createClient } from 'redis';
import { canonicalJson, consoleLogger } from '@ext/core';
import type { AppendOptions, JsonValue, Logger, ReadOptions, SetOptions, Store, StreamEntry, Unsubscribe } from '@ext/core';

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
  /** Where connection errors and listener failures are reported. Default: stderr. */
  readonly logger?: Logger | undefined;
}

type RedisClient = ReturnType<typeof newClient>;
type Listener = (message: string) => void;

/** The default `keyPrefix`. */
export const DEFAULT_KEY_PREFIX = 'mcp-ext:';

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

// Named so the client's type is what this call returns: `createClient`'s own generics do not narrow.
function newClient(url: string, socket: { connectTimeout: number; reconnectStrategy: (retries: number, cause: Error) => number | Error }) {
  return createClient({ url, socket });
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
  const connectTimeoutMs = options.connectTimeoutMs ?? 5000;
  if (!Number.isFinite(connectTimeoutMs) || connectTimeoutMs <= 0) {
    throw new RangeError('RedisStore: connectTimeoutMs must be a positive number');
  }
  const logger = options.logger ?? consoleLogger;
  const url = options.url ?? 'redis://127.0.0.1:6379';
  const startedAt = Date.now();
  let connected = false;
  const client = newClient(url, {
    connectTimeout: connectTimeoutMs,
    // Before the first connection, give up on time so startup fails loudly;
    // afterwards keep reconnecting with a capped backoff, commands waiting meanwhile.
    reconnectStrategy: (retries, cause) => {
      const backoff = Math.min(50 * 2 ** Math.min(retries, 6), 2000);
      if (connected) return backoff;
      const remaining = connectTimeoutMs - (Date.now() - startedAt);
      if (remaining <= 0) return new Error(`RedisStore: cannot reach Redis within ${connectTimeoutMs} ms: ${cause.message}`);
      return Math.min(backoff, remaining);
    },
  });
  // Without an 'error' listener node-redis would crash the process on a dropped connection.
  client.on('error', (error: unknown) => {
    logger.warn('RedisStore: connection error', { error: String(error) });
  });
  client.on('ready', () => {
    connected = true;
  });
  await client.connect();
  return new RedisStore(client, keyPrefix, logger);
}

/** A `Store` on Redis. Build it with `createRedisStore`. */
export class RedisStore implements Store {
  readonly #client: RedisClient;
  readonly #prefix: string;
  readonly #logger: Logger;
  #subscriber: Promise<RedisClient> | undefined;
  #closed = false;

  /** @internal Use `createRedisStore`, which connects first. */
  constructor(client: RedisClient, keyPrefix: string, logger: Logger) {
    this.#client = client;
    this.#prefix = keyPrefix;
    this.#logger = logger;
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
    this.#assertOpen();
    const text = await this.#client.get(this.#valueKey(key));
    return text === null ? undefined : parse(text);
  }

  async set(key: string, value: JsonValue, options?: SetOptions): Promise<void> {
    this.#assertOpen();
    const ttl = ttlArgument(options);
    const text = canonicalJson(value);
    await this.#client.set(this.#valueKey(key), text, ttl === undefined ? undefined : { expiration: { type: 'PX', value: ttl } });
  }

  async setIfAbsent(key: string, value: JsonValue, options?: SetOptions): Promise<boolean> {
    this.#assertOpen();
    const ttl = ttlArgument(options);
    const text = canonicalJson(value);
    const reply = await this.#client.set(this.#valueKey(key), text, {
      condition: 'NX',
      ...(ttl === undefined ? {} : { expiration: { type: 'PX' as const, value: ttl } }),
    });
    return reply !== null;
  }

  async compareAndSet(key: string, expected: JsonValue | undefined, next: JsonValue, options?: SetOptions): Promise<boolean> {
    this.#assertOpen();
    const ttl = ttlArgument(options);
    const args =
      expected === undefined
        ? ['absent', '', canonicalJson(next), ttl === undefined ? '' : String(ttl)]
        : ['equal', canonicalJson(expected), canonicalJson(next), ttl === undefined ? '' : String(ttl)];
    const reply = await this.#run(SCRIPTS.compareAndSet, [this.#valueKey(key)], args);
    return reply === 1;
  }

  /** Removes the value and the stream stored under `key`. */
  async delete(key: string): Promise<boolean> {
    this.#assertOpen();
    return (await this.#client.del([this.#valueKey(key), this.#streamKey(key)])) > 0;
  }

  async increment(key: string, by = 1, options?: SetOptions): Promise<number> {
    this.#assertOpen();
    if (!Number.isSafeInteger(by)) throw new RangeError('increment: by must be a safe integer');
    const ttl = ttlArgument(options);
    try {
      const reply = await this.#run(SCRIPTS.increment, [this.#valueKey(key)], [String(by), ttl === undefined ? '' : String(ttl)]);
      return Number(reply);
    } catch (error) {
      if (isNotInteger(error)) throw new TypeError(`increment: value at "${key}" is not an integer`, { cause: error });
      throw error;
    }
  }

  async append(stream: string, value: JsonValue, options?: AppendOptions): Promise<string> {
    this.#assertOpen();
    positiveInteger('maxLength', options?.maxLength);
    const ttl = ttlArgument(options);
    const text = canonicalJson(value);
    const key = this.#streamKey(stream);
    // MULTI keeps the entry and its stream's TTL in step: no reader sees one without the other.
    const transaction = this.#client.multi().xAdd(
      key,
      '*',
      { v: text },
      options?.maxLength === undefined ? undefined : { TRIM: { strategy: 'MAXLEN', strategyModifier: '=', threshold: options.maxLength } },
    );
    if (ttl === undefined) transaction.persist(key);
    else transaction.pExpire(key, ttl);
    const [id] = await transaction.exec();
    if (typeof id !== 'string') throw new Error('RedisStore: XADD returned no entry id');
    return id;
  }

  async read(stream: string, options?: ReadOptions): Promise<StreamEntry[]> {
    this.#assertOpen();
    positiveInteger('limit', options?.limit);
    const after = options?.after;
    if (after !== undefined && !CURSOR.test(after)) throw new RangeError(`read: "${after}" is not a cursor of this store`);
    // "(" makes the start exclusive: strictly after the cursor.
    const entries = await this.#client.xRange(this.#streamKey(stream), after === undefined ? '-' : `(${after}`, '+', {
      COUNT: options?.limit ?? 100,
    });
    return (entries ?? []).map((entry) => {
      const text = entry.message.v;
      if (text === undefined) throw new Error(`RedisStore: stream entry ${entry.id} has no value field`);
      return { id: entry.id, value: parse(text) };
    });
  }

  async publish(channel: string, message: JsonValue): Promise<void> {
    this.#assertOpen();
    await this.#client.publish(this.#channel(channel), canonicalJson(message));
  }

  // A connection in subscriber mode cannot run other commands, so pub/sub gets its own.
  #subscriberClient(): Promise<RedisClient> {
    if (!this.#subscriber) {
      const subscriber = this.#client.duplicate();
      subscriber.on('error', (error: unknown) => {
        this.#logger.warn('RedisStore: subscriber connection error', { error: String(error) });
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
    this.#assertOpen();
    const subscriber = await this.#subscriberClient();
    const name = this.#channel(channel);
    // One wrapper per subscription: unsubscribing removes this listener only.
    const wrapped: Listener = (text) => {
      try {
        listener(parse(text));
      } catch (error) {
        this.#logger.warn('RedisStore: a subscriber threw; other subscribers are unaffected', { channel, error: String(error) });
      }
    };
    await subscriber.subscribe(name, wrapped);
    let active = true;
    return async () => {
      if (!active || this.#closed) return;
      active = false;
      await subscriber.unsubscribe(name, wrapped);
    };
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const subscriber = this.#subscriber;
    this.#subscriber = undefined;
    if (subscriber) {
      await subscriber.then(
        (connection) => connection.close(),
        // Its failure already rejected the subscribe call that started it.
        (error: unknown) => {
          this.#logger.debug?.('RedisStore: subscriber never connected', { error: String(error) });
        },
      );
    }
    await this.#client.close();
  }
}

import type Database from 'better-sqlite3';
import { canonicalJson, consoleLogger, StoreAvailability, StoreUnavailableError } from '@ext/core';
import type {
  AppendOptions,
  JsonValue,
  Logger,
  ReadOptions,
  SetOptions,
  Store,
  StoreHealth,
  StoreUnavailableReason,
  StreamEntry,
  Unsubscribe,
} from '@ext/core';
import { DatabaseFile } from './database-file.js';
import { openDatabase } from './driver.js';
import { describeReason, isPermanentLoss, retryAfterSeconds, sqliteReason } from './sqlite-faults.js';

/** The schema this version writes; a file from a newer version is refused rather than misread. */
export const SCHEMA_VERSION = 1;

export interface SqliteStoreOptions {
  /** Database file; created when missing. `':memory:'` gives a private, non-durable database. */
  readonly path: string;
  /** How often expired rows are deleted, in ms; `0` turns the timer off (expiry on read still applies). Default 60000. */
  readonly sweepIntervalMs?: number | undefined;
  /** How long a write waits for another process's lock before failing, in ms. Default 5000. */
  readonly busyTimeoutMs?: number | undefined;
  /**
   * `'process'` (default): publish reaches subscribers of this store object only.
   * `'poll'`: messages go through a table that every store on the same file polls, so
   * other processes receive them too, with up to `pollIntervalMs` of delay.
   */
  readonly pubsub?: 'process' | 'poll' | undefined;
  /** Poll period for `pubsub: 'poll'`, in ms. Default 50. */
  readonly pollIntervalMs?: number | undefined;
  /** How long published messages stay in the table for `pubsub: 'poll'`, in ms. Default 60000. */
  readonly messageRetentionMs?: number | undefined;
  /**
   * The most the database may grow to, in bytes (SQLite's `max_page_count`);
   * a write past it is refused like one on a full disk. Default: no limit
   * but the disk's.
   */
  readonly maxSizeBytes?: number | undefined;
  /** Where outages (once each) and listener failures are reported. Default: stderr. */
  readonly logger?: Logger | undefined;
  /** Clock in ms since the epoch, for tests. Default `Date.now`. */
  readonly now?: (() => number) | undefined;
}

type Listener = (message: JsonValue) => void;

interface ValueRow {
  readonly value: string;
  readonly expires_at: number | null;
}

interface EntryRow {
  readonly id: number;
  readonly value: string;
}

interface MessageRow {
  readonly id: number;
  readonly channel: string;
  readonly message: string;
}

// Each step takes the file from version N to N + 1; index 0 creates version 1.
const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE store_kv (
    key TEXT PRIMARY KEY NOT NULL,
    value TEXT NOT NULL,
    expires_at INTEGER
  );
  CREATE INDEX store_kv_expiry ON store_kv (expires_at) WHERE expires_at IS NOT NULL;
  CREATE TABLE store_streams (
    name TEXT PRIMARY KEY NOT NULL,
    expires_at INTEGER
  );
  CREATE TABLE store_stream_entries (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    stream TEXT NOT NULL,
    value TEXT NOT NULL
  );
  CREATE INDEX store_stream_entries_by_stream ON store_stream_entries (stream, id);
  CREATE TABLE store_messages (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    channel TEXT NOT NULL,
    message TEXT NOT NULL,
    created_at INTEGER NOT NULL
  );
  `,
];

function prepareStatements(db: Database.Database) {
  return {
    get: db.prepare<[string, number], ValueRow>(
      'SELECT value, expires_at FROM store_kv WHERE key = ? AND (expires_at IS NULL OR expires_at > ?)',
    ),
    put: db.prepare<[string, string, number | null]>(
      'INSERT OR REPLACE INTO store_kv (key, value, expires_at) VALUES (?, ?, ?)',
    ),
    deleteKey: db.prepare<[string]>('DELETE FROM store_kv WHERE key = ?'),
    streamAlive: db.prepare<[string, number], { readonly name: string }>(
      'SELECT name FROM store_streams WHERE name = ? AND (expires_at IS NULL OR expires_at > ?)',
    ),
    putStream: db.prepare<[string, number | null]>(
      'INSERT OR REPLACE INTO store_streams (name, expires_at) VALUES (?, ?)',
    ),
    deleteStream: db.prepare<[string]>('DELETE FROM store_streams WHERE name = ?'),
    deleteEntries: db.prepare<[string]>('DELETE FROM store_stream_entries WHERE stream = ?'),
    addEntry: db.prepare<[string, string]>('INSERT INTO store_stream_entries (stream, value) VALUES (?, ?)'),
    // Deletes everything older than the newest `maxLength` entries.
    trimEntries: db.prepare<[string, string, number]>(
      `DELETE FROM store_stream_entries WHERE stream = ? AND id <= (
         SELECT id FROM store_stream_entries WHERE stream = ? ORDER BY id DESC LIMIT 1 OFFSET ?
       )`,
    ),
    readEntries: db.prepare<[string, number, number], EntryRow>(
      'SELECT id, value FROM store_stream_entries WHERE stream = ? AND id > ? ORDER BY id LIMIT ?',
    ),
    sweepKeys: db.prepare<[number]>('DELETE FROM store_kv WHERE expires_at IS NOT NULL AND expires_at <= ?'),
    sweepEntries: db.prepare<[number]>(
      'DELETE FROM store_stream_entries WHERE stream IN (SELECT name FROM store_streams WHERE expires_at IS NOT NULL AND expires_at <= ?)',
    ),
    sweepStreams: db.prepare<[number]>('DELETE FROM store_streams WHERE expires_at IS NOT NULL AND expires_at <= ?'),
    addMessage: db.prepare<[string, string, number]>(
      'INSERT INTO store_messages (channel, message, created_at) VALUES (?, ?, ?)',
    ),
    lastMessage: db.prepare<[], { readonly id: number | null }>('SELECT MAX(id) AS id FROM store_messages'),
    messagesAfter: db.prepare<[number], MessageRow>(
      'SELECT id, channel, message FROM store_messages WHERE id > ? ORDER BY id LIMIT 1000',
    ),
    sweepMessages: db.prepare<[number]>('DELETE FROM store_messages WHERE created_at <= ?'),
    schemaVersion: db.prepare<[], { readonly version: number }>('SELECT version FROM store_schema'),
  };
}

type Statements = ReturnType<typeof prepareStatements>;

function expiry(now: number, options: SetOptions | undefined): number | null {
  const ttl = options?.ttlMs;
  if (ttl === undefined) return null;
  if (!Number.isFinite(ttl) || ttl <= 0) throw new RangeError('ttlMs must be a positive number');
  return now + Math.ceil(ttl);
}

function positiveInteger(name: string, value: number | undefined): void {
  if (value !== undefined && (!Number.isSafeInteger(value) || value <= 0)) {
    throw new RangeError(`${name} must be a positive integer`);
  }
}

function nonNegative(name: string, value: number): number {
  if (!Number.isFinite(value) || value < 0) throw new RangeError(`SqliteStore: ${name} must be a non-negative number`);
  return value;
}

function positiveSize(value: number | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isFinite(value) || value <= 0)
    throw new RangeError('SqliteStore: maxSizeBytes must be a positive number');
  return value;
}

function parseCursor(cursor: string | undefined): number {
  if (cursor === undefined) return 0;
  if (!/^\d{1,16}$/.test(cursor)) throw new RangeError(`read: "${cursor}" is not a cursor of this store`);
  return Number(cursor);
}

// Synchronous database work reported as a promise, so a throw becomes a rejection like any other store's.
function settle<T>(operation: () => T): Promise<T> {
  return new Promise<T>((resolve) => {
    resolve(operation());
  });
}

/**
 * Creates a durable store in one SQLite file (WAL mode), on better-sqlite3
 * (13 on Node >= 22.14, 12 on older Nodes: driver.ts).
 * Several processes may open the same file; their writes are serialized by
 * SQLite's lock. Pub/sub stays inside the process unless `pubsub: 'poll'`.
 */
export function createSqliteStore(options: SqliteStoreOptions): SqliteStore {
  return new SqliteStore(options);
}

/** A `Store` on one SQLite file. Build it with `createSqliteStore`. */
export class SqliteStore implements Store {
  readonly #db: Database.Database;
  readonly #now: () => number;
  readonly #logger: Logger;
  readonly #pubsub: 'process' | 'poll';
  readonly #pollIntervalMs: number;
  readonly #retentionMs: number;
  readonly #channels = new Map<string, Set<Listener>>();
  readonly #sweepTimer: NodeJS.Timeout | undefined;
  /** `undefined` for `':memory:'`: no file to lose. */
  readonly #file: DatabaseFile | undefined;
  readonly #availability: StoreAvailability;
  /** Set once the file this connection writes to is gone: no write can be kept until the store is reopened. */
  #lost: StoreUnavailableReason | undefined;
  #pollTimer: NodeJS.Timeout | undefined;
  #lastMessageId = 0;
  #closed = false;
  readonly #sql: Statements;

  constructor(options: SqliteStoreOptions) {
    if (typeof options.path !== 'string' || options.path === '')
      throw new TypeError('SqliteStore: path must be a non-empty string');
    const sweepIntervalMs = nonNegative('sweepIntervalMs', options.sweepIntervalMs ?? 60_000);
    const busyTimeoutMs = nonNegative('busyTimeoutMs', options.busyTimeoutMs ?? 5000);
    const maxSizeBytes = positiveSize(options.maxSizeBytes);
    this.#pollIntervalMs = nonNegative('pollIntervalMs', options.pollIntervalMs ?? 50);
    this.#retentionMs = nonNegative('messageRetentionMs', options.messageRetentionMs ?? 60_000);
    // Checked at run time too: JavaScript callers get no help from the type.
    const pubsub: unknown = options.pubsub ?? 'process';
    if (pubsub !== 'process' && pubsub !== 'poll')
      throw new TypeError("SqliteStore: pubsub must be 'process' or 'poll'");
    this.#pubsub = pubsub;
    this.#now = options.now ?? Date.now;
    this.#logger = options.logger ?? consoleLogger;
    this.#availability = new StoreAvailability('SqliteStore', this.#logger, this.#now);

    this.#db = openDatabase(options.path, { timeout: busyTimeoutMs });
    try {
      this.#db.pragma('journal_mode = WAL');
      // WAL with NORMAL survives a process crash; only an OS crash can lose the last transactions.
      this.#db.pragma('synchronous = NORMAL');
      this.#migrate();
      if (maxSizeBytes !== undefined) this.#limitSize(maxSizeBytes);
      this.#file = options.path === ':memory:' ? undefined : new DatabaseFile(options.path);
    } catch (error) {
      this.#db.close();
      throw error;
    }

    this.#sql = prepareStatements(this.#db);
    this.#sweepTimer = sweepIntervalMs > 0 ? this.#startSweeping(sweepIntervalMs) : undefined;
  }

  #limitSize(maxSizeBytes: number): void {
    const pageSize = Number(this.#db.pragma('page_size', { simple: true }));
    // SQLite never shrinks the limit below the current size, so an existing file keeps working.
    this.#db.pragma(`max_page_count = ${Math.max(1, Math.floor(maxSizeBytes / pageSize))}`);
  }

  #startSweeping(intervalMs: number): NodeJS.Timeout {
    const timer = setInterval(() => {
      try {
        this.sweep();
      } catch (error) {
        // An outage is logged once by the availability; anything else each time.
        if (!StoreUnavailableError.isInstance(error)) {
          this.#logger.warn('SqliteStore: expiry sweep failed; it will be retried', { error: String(error) });
        }
      }
    }, intervalMs);
    // The sweep is housekeeping: it must not keep the process alive.
    timer.unref();
    return timer;
  }

  #migrate(): void {
    const migrate = this.#db.transaction(() => {
      this.#db.exec('CREATE TABLE IF NOT EXISTS store_schema (version INTEGER NOT NULL)');
      const row = this.#db.prepare<[], { version: number }>('SELECT version FROM store_schema').get();
      const current = row?.version ?? 0;
      if (current > SCHEMA_VERSION) {
        throw new Error(
          `SqliteStore: the database uses schema version ${current}, newer than this package supports (${SCHEMA_VERSION}); upgrade @ext/store-sqlite`,
        );
      }
      for (const migration of MIGRATIONS.slice(current)) this.#db.exec(migration);
      if (row === undefined) this.#db.prepare('INSERT INTO store_schema (version) VALUES (?)').run(SCHEMA_VERSION);
      else if (current !== SCHEMA_VERSION) this.#db.prepare('UPDATE store_schema SET version = ?').run(SCHEMA_VERSION);
    });
    // IMMEDIATE takes the write lock first, so two processes opening a new file cannot both create the schema.
    migrate.immediate();
  }

  #assertOpen(): void {
    if (this.#closed) throw new Error('SqliteStore is closed');
  }

  /** An outage error for `reason`, recorded (the first of an outage is logged). */
  #unavailable(reason: StoreUnavailableReason, cause?: unknown): StoreUnavailableError {
    if (isPermanentLoss(reason)) this.#lost ??= reason;
    const error = new StoreUnavailableError({
      reason,
      retryAfterSeconds: retryAfterSeconds(reason),
      cause: cause ?? new Error(`SqliteStore: ${describeReason(reason)} (${this.#file?.path ?? ':memory:'})`),
    });
    return this.#availability.failed(error);
  }

  /** A database error as the caller should see it: an outage as `StoreUnavailableError`, anything else unchanged. */
  #failure(error: unknown): unknown {
    const reason = sqliteReason(error);
    return reason === undefined ? error : this.#unavailable(reason, error);
  }

  /** Refuses a write the file could not keep: it is known to be gone, or it is read-only now. */
  #guard(): void {
    if (this.#lost !== undefined) throw this.#unavailable(this.#lost);
    if (this.#file !== undefined && !this.#file.writable()) throw this.#unavailable('read_only');
  }

  /**
   * Every write. Writability is checked before it starts: a write to a file
   * made read-only would go through the open handle, and must not be both
   * applied and reported as failed. Identity is checked after it committed
   * (that one check also covers a file that went away just before): a write
   * that landed in a file no longer at the path would vanish at the next
   * restart, so it is refused, and so is every later one. Only a write that
   * went through ends an outage, and not the sweep's: deleting rows proves
   * nothing about a full disk.
   */
  #write<T>(work: () => T): Promise<T> {
    return settle(() => this.#writeNow(work));
  }

  #writeNow<T>(work: () => T, endsOutage = true): T {
    this.#assertOpen();
    this.#guard();
    let result: T;
    try {
      result = work();
    } catch (error) {
      throw this.#failure(error);
    }
    const moved = this.#file?.moved();
    if (moved !== undefined) throw this.#unavailable(moved);
    if (endsOutage) this.#availability.recovered();
    return result;
  }

  #readNow<T>(work: () => T): Promise<T> {
    return settle(() => {
      this.#assertOpen();
      try {
        return work();
      } catch (error) {
        throw this.#failure(error);
      }
    });
  }

  // Read-modify-write operations run as IMMEDIATE transactions: the write lock is
  // taken before the read, so another process cannot change the row in between.
  #atomic<T>(work: () => T): Promise<T> {
    return this.#write(() => this.#db.transaction(work).immediate());
  }

  #read(key: string): ValueRow | undefined {
    return this.#sql.get.get(key, this.#now());
  }

  get(key: string): Promise<JsonValue | undefined> {
    return this.#readNow(() => {
      const row = this.#read(key);
      return row === undefined ? undefined : (JSON.parse(row.value) as JsonValue);
    });
  }

  set(key: string, value: JsonValue, options?: SetOptions): Promise<void> {
    return this.#write(() => {
      this.#sql.put.run(key, canonicalJson(value), expiry(this.#now(), options));
    });
  }

  setIfAbsent(key: string, value: JsonValue, options?: SetOptions): Promise<boolean> {
    return this.#atomic(() => {
      const text = canonicalJson(value);
      const expiresAt = expiry(this.#now(), options);
      if (this.#read(key) !== undefined) return false;
      this.#sql.put.run(key, text, expiresAt);
      return true;
    });
  }

  compareAndSet(key: string, expected: JsonValue | undefined, next: JsonValue, options?: SetOptions): Promise<boolean> {
    return this.#atomic(() => {
      // Values are stored canonically, so canonical equality is string equality.
      const wanted = expected === undefined ? undefined : canonicalJson(expected);
      const text = canonicalJson(next);
      const expiresAt = expiry(this.#now(), options);
      if (this.#read(key)?.value !== wanted) return false;
      this.#sql.put.run(key, text, expiresAt);
      return true;
    });
  }

  /** Removes the value and the stream stored under `key`. */
  delete(key: string): Promise<boolean> {
    return this.#atomic(() => {
      const now = this.#now();
      const existed = this.#sql.get.get(key, now) !== undefined || this.#sql.streamAlive.get(key, now) !== undefined;
      this.#sql.deleteKey.run(key);
      this.#sql.deleteStream.run(key);
      this.#sql.deleteEntries.run(key);
      return existed;
    });
  }

  increment(key: string, by = 1, options?: SetOptions): Promise<number> {
    return this.#atomic(() => {
      if (!Number.isSafeInteger(by)) throw new RangeError('increment: by must be a safe integer');
      const expiresAt = expiry(this.#now(), options);
      const row = this.#read(key);
      let current = 0;
      if (row !== undefined) {
        const value = JSON.parse(row.value) as JsonValue;
        if (typeof value !== 'number') throw new TypeError(`increment: value at "${key}" is not a number`);
        current = value;
      }
      const next = current + by;
      this.#sql.put.run(key, canonicalJson(next), row === undefined ? expiresAt : row.expires_at);
      return next;
    });
  }

  append(stream: string, value: JsonValue, options?: AppendOptions): Promise<string> {
    return this.#atomic(() => {
      positiveInteger('maxLength', options?.maxLength);
      const text = canonicalJson(value);
      const now = this.#now();
      const expiresAt = expiry(now, options);
      // An expired stream that the sweep has not reached yet starts afresh.
      if (this.#sql.streamAlive.get(stream, now) === undefined) this.#sql.deleteEntries.run(stream);
      this.#sql.putStream.run(stream, expiresAt);
      const id = this.#sql.addEntry.run(stream, text).lastInsertRowid;
      if (options?.maxLength !== undefined) this.#sql.trimEntries.run(stream, stream, options.maxLength);
      return String(id);
    });
  }

  read(stream: string, options?: ReadOptions): Promise<StreamEntry[]> {
    return this.#readNow(() => {
      positiveInteger('limit', options?.limit);
      const after = parseCursor(options?.after);
      if (this.#sql.streamAlive.get(stream, this.#now()) === undefined) return [];
      return this.#sql.readEntries
        .all(stream, after, options?.limit ?? 100)
        .map((row) => ({ id: String(row.id), value: JSON.parse(row.value) as JsonValue }));
    });
  }

  publish(channel: string, message: JsonValue): Promise<void> {
    const text = canonicalJson(message);
    // With 'poll' a message is a row: a write like any other.
    if (this.#pubsub === 'poll') return this.#write(() => void this.#sql.addMessage.run(channel, text, this.#now()));
    return settle(() => {
      this.#assertOpen();
      this.#deliver(channel, text);
    });
  }

  subscribe(channel: string, listener: (message: JsonValue) => void): Promise<Unsubscribe> {
    return settle(() => {
      this.#assertOpen();
      if (this.#pubsub === 'poll' && this.#pollTimer === undefined) this.#startPolling();
      let listeners = this.#channels.get(channel);
      if (!listeners) {
        listeners = new Set();
        this.#channels.set(channel, listeners);
      }
      // A fresh wrapper per call, so subscribing the same function twice gives two independent subscriptions.
      const wrapped: Listener = (message) => {
        listener(message);
      };
      listeners.add(wrapped);
      return (): Promise<void> => {
        const current = this.#channels.get(channel);
        current?.delete(wrapped);
        if (current?.size === 0) this.#channels.delete(channel);
        if (this.#channels.size === 0) this.#stopPolling();
        return Promise.resolve();
      };
    });
  }

  #deliver(channel: string, text: string): void {
    for (const listener of this.#channels.get(channel) ?? []) {
      // Each listener parses its own copy, so one cannot alter what another sees.
      const message = JSON.parse(text) as JsonValue;
      queueMicrotask(() => {
        try {
          listener(message);
        } catch (error) {
          this.#logger.warn('SqliteStore: a subscriber threw; other subscribers are unaffected', {
            channel,
            error: String(error),
          });
        }
      });
    }
  }

  #startPolling(): void {
    // Only messages published from now on are delivered, as with any pub/sub.
    this.#lastMessageId = this.#sql.lastMessage.get()?.id ?? 0;
    const poll = (): void => {
      this.#pollTimer = undefined;
      if (this.#closed || this.#channels.size === 0) return;
      try {
        for (const row of this.#sql.messagesAfter.all(this.#lastMessageId)) {
          this.#lastMessageId = row.id;
          this.#deliver(row.channel, row.message);
        }
      } catch (error) {
        // An outage is logged once (by #failure); anything else each time, as before.
        const failure = this.#failure(error);
        if (!StoreUnavailableError.isInstance(failure)) {
          this.#logger.warn('SqliteStore: polling for messages failed; it will be retried', { error: String(error) });
        }
      }
      this.#pollTimer = setTimeout(poll, this.#pollIntervalMs);
      this.#pollTimer.unref();
    };
    this.#pollTimer = setTimeout(poll, this.#pollIntervalMs);
    this.#pollTimer.unref();
  }

  #stopPolling(): void {
    if (this.#pollTimer !== undefined) clearTimeout(this.#pollTimer);
    this.#pollTimer = undefined;
  }

  /**
   * Deletes every expired value, stream and old message now; returns how many
   * rows went. A write like the others (refused when the file cannot keep
   * it), so the timer also notices a file lost while no one writes.
   */
  sweep(): number {
    const now = this.#now();
    return this.#writeNow(
      () =>
        this.#db.transaction(() => {
          let removed = this.#sql.sweepKeys.run(now).changes;
          removed += this.#sql.sweepEntries.run(now).changes;
          removed += this.#sql.sweepStreams.run(now).changes;
          removed += this.#sql.sweepMessages.run(now - this.#retentionMs).changes;
          return removed;
        })(),
      false,
    );
  }

  /**
   * Whether the store can take writes now, for a readiness check: the file is
   * the one opened and writable, it can be read, and no write has failed
   * since the last one that went through (a full disk shows only on a write).
   * The detail names the problem, never the path.
   */
  health(): Promise<StoreHealth> {
    return settle(() => this.#healthNow());
  }

  #healthNow(): StoreHealth {
    if (this.#closed) return { ok: false, detail: 'SqliteStore is closed' };
    try {
      const moved = this.#file?.moved();
      if (moved !== undefined) throw this.#unavailable(moved);
      this.#guard();
      this.#sql.schemaVersion.get();
    } catch (error) {
      const failure = this.#failure(error);
      return {
        ok: false,
        detail: StoreUnavailableError.isInstance(failure) ? describeReason(failure.reason) : String(failure),
      };
    }
    const outage = this.#availability.outage;
    // The guard has just found the file writable again: that outage is over.
    if (outage?.reason === 'read_only') this.#availability.recovered();
    else if (outage !== undefined)
      return { ok: false, detail: `the last write failed: ${describeReason(outage.reason)}` };
    return { ok: true, detail: this.#file === undefined ? 'sqlite in memory' : 'sqlite file in place and writable' };
  }

  close(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    this.#closed = true;
    if (this.#sweepTimer !== undefined) clearInterval(this.#sweepTimer);
    this.#stopPolling();
    this.#channels.clear();
    this.#db.close();
    return Promise.resolve();
  }
}

/** `SqliteStore`: the `Store` interface on one SQLite file, and its factory. */
import type Database from 'better-sqlite3';
import { canonicalJson } from '@ext/core/kit';
import { StoreUnavailableError } from '@ext/core';
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
import { Channels } from './channels.js';
import { DatabaseFile } from './database-file.js';
import { openDatabase } from './driver.js';
import { FileOutages } from './file-outages.js';
import { GroupCommit, type Outcome } from './group-commit.js';
import { resolveOptions, type SqliteStoreOptions } from './options.js';
import { migrate, prepareStatements, type Statements, type ValueRow } from './schema.js';
import { Transactions } from './transactions.js';

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
  readonly #retentionMs: number;
  readonly #channels: Channels;
  readonly #sweepTimer: NodeJS.Timeout | undefined;
  readonly #outages: FileOutages;
  #closed = false;
  readonly #sql: Statements;
  readonly #transactions: Transactions;
  /** The writes waiting for the end of this turn of the event loop, to be committed as one transaction. */
  readonly #group = new GroupCommit((works) => this.#commitGroup(works));

  constructor(options: SqliteStoreOptions) {
    const resolved = resolveOptions(options);
    this.#retentionMs = resolved.messageRetentionMs;
    this.#pubsub = resolved.pubsub;
    this.#now = resolved.now;
    this.#logger = resolved.logger;

    this.#db = openDatabase(resolved.path, { timeout: resolved.busyTimeoutMs });
    let file: DatabaseFile | undefined;
    try {
      this.#db.pragma('journal_mode = WAL');
      // WAL with NORMAL survives a process crash; only an OS crash can lose the last transactions.
      this.#db.pragma('synchronous = NORMAL');
      migrate(this.#db);
      if (resolved.maxSizeBytes !== undefined) this.#limitSize(resolved.maxSizeBytes);
      file = resolved.path === ':memory:' ? undefined : new DatabaseFile(resolved.path);
    } catch (error) {
      this.#db.close();
      throw error;
    }
    this.#outages = new FileOutages(file, this.#logger, this.#now);

    this.#sql = prepareStatements(this.#db);
    this.#transactions = new Transactions(this.#db);
    this.#channels = new Channels({
      logger: this.#logger,
      polling: this.#pubsub === 'poll',
      pollIntervalMs: resolved.pollIntervalMs,
      sql: this.#sql,
      failure: (error) => this.#outages.failure(error),
      closed: () => this.#closed,
    });
    this.#sweepTimer = resolved.sweepIntervalMs > 0 ? this.#startSweeping(resolved.sweepIntervalMs) : undefined;
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

  #assertOpen(): void {
    if (this.#closed) throw new Error('SqliteStore is closed');
  }

  /**
   * Every write but the sweep: queued, and committed with the others issued
   * in the same turn of the event loop (SQLITE-17). Read-modify-write
   * operations run inside the group's IMMEDIATE transaction: the write lock
   * is taken before the read, so another process cannot change the row in
   * between.
   */
  #write<T>(work: () => T): Promise<T> {
    if (this.#closed) return Promise.reject(new Error('SqliteStore is closed'));
    return this.#group.enqueue(work);
  }

  /**
   * One group of writes, as one `BEGIN IMMEDIATE` transaction with a
   * savepoint per write: a write that throws is rolled back alone. Writability
   * is checked before the group starts: a write to a file made read-only
   * would go through the open handle, and must not be both applied and
   * reported as failed. Identity is checked after it committed (that one
   * check also covers a file that went away just before): writes that landed
   * in a file no longer at the path would vanish at the next restart, so they
   * are refused, and so is every later one. Only a group in which a write went
   * through ends an outage, and not the sweep: deleting rows proves nothing
   * about a full disk.
   */
  #commitGroup(works: readonly (() => unknown)[]): Outcome[] {
    // A write alone needs no savepoint: its transaction is rolled back whole when it throws.
    const [only] = works;
    if (works.length === 1 && only !== undefined)
      return [{ ok: true, value: this.#writeNow(() => this.#transactions.immediate(only), true) }];
    const outcomes = this.#writeNow(
      () => this.#transactions.immediate(() => works.map((work) => this.#transactions.savepoint(work))),
      false,
    );
    const settled = outcomes.map<Outcome>((outcome) =>
      outcome.ok ? outcome : { ok: false, error: this.#outages.failure(outcome.error) },
    );
    // The group committed: a write in it that went through ends an outage, one of its own included.
    if (outcomes.some((outcome) => outcome.ok)) this.#outages.recovered();
    return settled;
  }

  #writeNow<T>(work: () => T, endsOutage: boolean): T {
    this.#assertOpen();
    this.#outages.assertWritable();
    let result: T;
    try {
      result = work();
    } catch (error) {
      throw this.#outages.failure(error);
    }
    this.#outages.assertInPlace();
    if (endsOutage) this.#outages.recovered();
    return result;
  }

  /** A read sees every write issued before it: what is queued is committed first. */
  #readNow<T>(work: () => T): Promise<T> {
    return settle(() => {
      this.#assertOpen();
      this.#group.flush();
      try {
        return work();
      } catch (error) {
        throw this.#outages.failure(error);
      }
    });
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
    return this.#write(() => {
      const text = canonicalJson(value);
      const expiresAt = expiry(this.#now(), options);
      if (this.#read(key) !== undefined) return false;
      this.#sql.put.run(key, text, expiresAt);
      return true;
    });
  }

  compareAndSet(key: string, expected: JsonValue | undefined, next: JsonValue, options?: SetOptions): Promise<boolean> {
    return this.#write(() => {
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
    return this.#write(() => {
      const now = this.#now();
      const existed = this.#sql.get.get(key, now) !== undefined || this.#sql.streamAlive.get(key, now) !== undefined;
      this.#sql.deleteKey.run(key);
      this.#sql.deleteStream.run(key);
      this.#sql.deleteEntries.run(key);
      return existed;
    });
  }

  increment(key: string, by = 1, options?: SetOptions): Promise<number> {
    return this.#write(() => {
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
    return this.#write(() => {
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
      this.#channels.deliver(channel, text);
    });
  }

  subscribe(channel: string, listener: (message: JsonValue) => void): Promise<Unsubscribe> {
    return settle(() => {
      this.#assertOpen();
      return this.#channels.subscribe(channel, listener);
    });
  }

  /**
   * Deletes every expired value, stream and old message now; returns how many
   * rows went. A write like the others (refused when the file cannot keep
   * it), so the timer also notices a file lost while no one writes.
   */
  sweep(): number {
    this.#group.flush();
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
    return settle(() =>
      this.#closed
        ? { ok: false, detail: 'SqliteStore is closed' }
        : this.#outages.health(() => this.#sql.schemaVersion.get()),
    );
  }

  /** Commits the writes still queued, then closes the file. */
  close(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    this.#group.flush();
    this.#closed = true;
    if (this.#sweepTimer !== undefined) clearInterval(this.#sweepTimer);
    this.#channels.close();
    this.#db.close();
    return Promise.resolve();
  }
}

/** The options of `createSqliteStore`, their defaults, and the checks they pass at construction. */
import { consoleLogger, type Resolved } from '@ext/core/kit';
import { type Logger } from '@ext/core';

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

/** The options checked, with every default filled in (`maxSizeBytes` has none: no limit). */
export type ResolvedOptions = Resolved<SqliteStoreOptions, 'maxSizeBytes'>;

function nonNegative(name: string, value: number): void {
  if (!Number.isFinite(value) || value < 0) throw new RangeError(`SqliteStore: ${name} must be a non-negative number`);
}

function positiveSize(value: number | undefined): void {
  if (value !== undefined && (!Number.isFinite(value) || value <= 0))
    throw new RangeError('SqliteStore: maxSizeBytes must be a positive number');
}

/** `options` checked (each problem a `TypeError` or `RangeError` naming the option) and completed. */
export function resolveOptions(options: SqliteStoreOptions): ResolvedOptions {
  const {
    path,
    sweepIntervalMs = 60_000,
    busyTimeoutMs = 5000,
    pubsub = 'process',
    pollIntervalMs = 50,
    messageRetentionMs = 60_000,
    maxSizeBytes,
    logger = consoleLogger,
    now = Date.now,
  } = options;
  if (typeof path !== 'string' || path === '') throw new TypeError('SqliteStore: path must be a non-empty string');
  nonNegative('sweepIntervalMs', sweepIntervalMs);
  nonNegative('busyTimeoutMs', busyTimeoutMs);
  positiveSize(maxSizeBytes);
  nonNegative('pollIntervalMs', pollIntervalMs);
  nonNegative('messageRetentionMs', messageRetentionMs);
  // Checked at run time too: JavaScript callers get no help from the type.
  const given: unknown = pubsub;
  if (given !== 'process' && given !== 'poll') throw new TypeError("SqliteStore: pubsub must be 'process' or 'poll'");
  return {
    path,
    sweepIntervalMs,
    busyTimeoutMs,
    pubsub,
    pollIntervalMs,
    messageRetentionMs,
    maxSizeBytes,
    logger,
    now,
  };
}

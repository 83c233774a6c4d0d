/**
 * What a failure of the database means for the caller: which SQLite errors
 * and file problems are an outage (core's `StoreUnavailableError`), and what
 * the client is told to wait. Pure.
 */
import type { StoreUnavailableReason } from '@ext/core';

const SQLITE_REASONS: readonly (readonly [RegExp, StoreUnavailableReason])[] = [
  [/^SQLITE_(BUSY|LOCKED)/, 'busy'],
  [/^SQLITE_FULL/, 'full'],
  [/^SQLITE_READONLY/, 'read_only'],
  [/^SQLITE_(IOERR|CANTOPEN)/, 'io_error'],
];

/** The outage an error of better-sqlite3 stands for (by its `code`), or `undefined` for anything else. */
export function sqliteReason(error: unknown): StoreUnavailableReason | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return undefined;
  return SQLITE_REASONS.find(([pattern]) => pattern.test(code))?.[1];
}

/**
 * What a client is told to wait, in seconds: a lock clears by itself; a full
 * disk or a permission needs someone to act; a file deleted or replaced
 * under the store needs the server restarted on the right file, which a
 * supervisor does once `health()` reports it.
 */
export function retryAfterSeconds(reason: StoreUnavailableReason): number {
  if (reason === 'busy') return 1;
  if (reason === 'file_deleted' || reason === 'file_replaced') return 30;
  return 5;
}

/** Whether the store can never write again without being reopened: the file it holds is gone. */
export function isPermanentLoss(reason: StoreUnavailableReason): boolean {
  return reason === 'file_deleted' || reason === 'file_replaced';
}

const DESCRIPTIONS: Partial<Record<StoreUnavailableReason, string>> = {
  file_deleted: 'the database file (or its -wal) was deleted under the running store; restart it on a good file',
  file_replaced: 'the database file (or its -wal) was replaced under the running store; restart it to use the new file',
  read_only: 'the database file is read-only or on a read-only file system',
  full: 'the database is full (disk full or maxSizeBytes reached)',
  io_error: 'the disk reported an I/O error',
  busy: 'another connection holds the write lock',
};

/** A line for logs and `health()`: names the problem, not the path. */
export function describeReason(reason: StoreUnavailableReason): string {
  return DESCRIPTIONS[reason] ?? reason;
}

/**
 * The file under a running store, watched for what SQLite cannot see: a
 * connection keeps writing to the inode it opened, so a file deleted or
 * swapped under it (a cleanup script, a restore) takes every later write with
 * it at the next restart, and a file made read-only still takes writes that
 * a restarted store could not make. Each check is a few `stat` calls.
 */
import { accessSync, constants, statSync } from 'node:fs';
import { resolve } from 'node:path';

/** What can be wrong with the file, as core's `StoreUnavailableReason`. */
export type FileProblem = 'file_deleted' | 'file_replaced' | 'read_only';

/** Device and inode: the same path with another identity is another file. */
type Identity = string;

function identityAt(path: string): Identity | undefined {
  try {
    const stats = statSync(path, { bigint: true });
    return `${stats.dev}:${stats.ino}`;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** How a file now compares with the one opened. Pure. */
export function compareIdentity(
  opened: Identity,
  now: Identity | undefined,
): 'file_deleted' | 'file_replaced' | undefined {
  if (now === undefined) return 'file_deleted';
  return now === opened ? undefined : 'file_replaced';
}

function writable(path: string): boolean {
  try {
    accessSync(path, constants.W_OK);
    return true;
  } catch (error) {
    // Nothing there is not read-only: `moved()` reports a deleted file.
    return (error as NodeJS.ErrnoException).code === 'ENOENT';
  }
}

/** The database file and its write-ahead log, as they were when the store opened them. */
export class DatabaseFile {
  readonly path: string;
  readonly #database: Identity;
  readonly #wal: Identity | undefined;

  /** Call right after opening (and migrating), while the files are the ones the connection holds. */
  constructor(path: string) {
    this.path = resolve(path);
    const database = identityAt(this.path);
    if (database === undefined) throw new Error(`SqliteStore: ${this.path} vanished while it was opened`);
    this.#database = database;
    // The -wal lives as long as a connection is open; without it (another journal mode) there is nothing to watch.
    this.#wal = identityAt(`${this.path}-wal`);
  }

  /** Whether the files are still the ones opened: `undefined` when they are. */
  moved(): 'file_deleted' | 'file_replaced' | undefined {
    const database = compareIdentity(this.#database, identityAt(this.path));
    if (database !== undefined || this.#wal === undefined) return database;
    return compareIdentity(this.#wal, identityAt(`${this.path}-wal`));
  }

  /** Whether this process could open the file for writing now (root can, whatever the mode bits). */
  writable(): boolean {
    return writable(this.path);
  }

  /** `moved()`, then `writable()`: everything that can be wrong with the file. */
  check(): FileProblem | undefined {
    return this.moved() ?? (this.writable() ? undefined : 'read_only');
  }
}

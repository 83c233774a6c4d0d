/**
 * The transaction of a group of writes and the savepoint of each write in
 * it, on statements prepared once per connection: better-sqlite3's
 * `db.transaction(fn)` builds a new wrapper on every call, which costs more
 * than the `BEGIN` it runs.
 */
import type Database from 'better-sqlite3';
import type { Outcome } from './group-commit.js';

export class Transactions {
  readonly #db: Database.Database;
  readonly #begin: Database.Statement;
  readonly #commit: Database.Statement;
  readonly #rollback: Database.Statement;
  readonly #savepoint: Database.Statement;
  readonly #release: Database.Statement;
  readonly #rollbackTo: Database.Statement;

  constructor(db: Database.Database) {
    this.#db = db;
    this.#begin = db.prepare('BEGIN IMMEDIATE');
    this.#commit = db.prepare('COMMIT');
    this.#rollback = db.prepare('ROLLBACK');
    this.#savepoint = db.prepare('SAVEPOINT write');
    this.#release = db.prepare('RELEASE write');
    this.#rollbackTo = db.prepare('ROLLBACK TO write');
  }

  /** `work` in one `BEGIN IMMEDIATE` transaction: committed when it returns, rolled back when it (or the commit) throws. */
  immediate<T>(work: () => T): T {
    this.#begin.run();
    try {
      const result = work();
      this.#commit.run();
      return result;
    } catch (error) {
      // SQLite may have ended the transaction itself (a full disk, an I/O error).
      if (this.#db.inTransaction) this.#rollback.run();
      throw error;
    }
  }

  /**
   * `work` in a savepoint of the open transaction: a throw rolls back what
   * it wrote and becomes its outcome. When SQLite ended the whole
   * transaction, that throws: nothing of the transaction is kept.
   */
  savepoint(work: () => unknown): Outcome {
    this.#savepoint.run();
    try {
      const value = work();
      this.#release.run();
      return { ok: true, value };
    } catch (error) {
      if (!this.#db.inTransaction) throw error;
      this.#rollbackTo.run();
      this.#release.run();
      return { ok: false, error };
    }
  }
}

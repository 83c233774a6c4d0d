/**
 * The outages of a running store: what a database error or a problem with
 * the file means for the caller (core's `StoreUnavailableError`, the first
 * of an outage logged, the last ended), the checks made around each write,
 * and what `health()` reports. The store holds one; nothing here runs SQL
 * but the probe `health` is given.
 */
import { StoreAvailability, StoreUnavailableError } from '@ext/core';
import type { Logger, StoreHealth, StoreUnavailableReason } from '@ext/core';
import type { DatabaseFile } from './database-file.js';
import { describeReason, isPermanentLoss, retryAfterSeconds, sqliteReason } from './sqlite-faults.js';

export class FileOutages {
  /** `undefined` for `':memory:'`: no file to lose. */
  readonly #file: DatabaseFile | undefined;
  readonly #availability: StoreAvailability;
  /** Set once the file this connection writes to is gone: no write can be kept until the store is reopened. */
  #lost: StoreUnavailableReason | undefined;

  constructor(file: DatabaseFile | undefined, logger: Logger, now: () => number) {
    this.#file = file;
    this.#availability = new StoreAvailability('SqliteStore', logger, now);
  }

  /** An outage error for `reason`, recorded (the first of an outage is logged). */
  unavailable(reason: StoreUnavailableReason, cause?: unknown): StoreUnavailableError {
    if (isPermanentLoss(reason)) this.#lost ??= reason;
    const error = new StoreUnavailableError({
      reason,
      retryAfterSeconds: retryAfterSeconds(reason),
      cause: cause ?? new Error(`SqliteStore: ${describeReason(reason)} (${this.#file?.path ?? ':memory:'})`),
    });
    return this.#availability.failed(error);
  }

  /** A database error as the caller should see it: an outage as `StoreUnavailableError`, anything else unchanged. */
  failure(error: unknown): unknown {
    const reason = sqliteReason(error);
    return reason === undefined ? error : this.unavailable(reason, error);
  }

  /** Before a write: refuses one the file could not keep (it is known to be gone, or it is read-only now). */
  assertWritable(): void {
    if (this.#lost !== undefined) throw this.unavailable(this.#lost);
    if (this.#file !== undefined && !this.#file.writable()) throw this.unavailable('read_only');
  }

  /** After a write committed: refuses it when the file at the path is no longer the one it went to. */
  assertInPlace(): void {
    const moved = this.#file?.moved();
    if (moved !== undefined) throw this.unavailable(moved);
  }

  /** A write went through: an outage, if one was on, is over. */
  recovered(): void {
    this.#availability.recovered();
  }

  /**
   * Whether the store can take writes now: the file is the one opened and
   * writable, `probe` can read it, and no write has failed since the last one
   * that went through. The detail names the problem, never the path.
   */
  health(probe: () => void): StoreHealth {
    try {
      this.assertInPlace();
      this.assertWritable();
      probe();
    } catch (error) {
      const failure = this.failure(error);
      return {
        ok: false,
        detail: StoreUnavailableError.isInstance(failure) ? describeReason(failure.reason) : String(failure),
      };
    }
    const outage = this.#availability.outage;
    // The file has just been found writable again: that outage is over.
    if (outage?.reason === 'read_only') this.#availability.recovered();
    else if (outage !== undefined)
      return { ok: false, detail: `the last write failed: ${describeReason(outage.reason)}` };
    return { ok: true, detail: this.#file === undefined ? 'sqlite in memory' : 'sqlite file in place and writable' };
  }
}

/**
 * The sweeper: a pass over the log's index that rolls back timed-out
 * transactions and finishes rollbacks whose run died, and the timers that
 * repeat it for each store.
 */
import { deprecatedAliases } from '@ext/core/kit';
import { StoreUnavailableError, type Logger, type Store, type StructuredError } from '@ext/core';
import type { TransactionEngine } from './engine.js';
import { indexLowKey, indexStream, readIndexEntry } from './log.js';
import { isExpired, isTerminal } from './record.js';
import { structuredFrom } from './structured-errors.js';

/** One transaction a sweeper pass dealt with. */
export interface SweptTransaction {
  readonly principal: string;
  readonly transactionId: string;
  /** @deprecated Use `transactionId`; the snake_case spelling goes in the next major. */
  readonly transaction_id: string;
}

/** A transaction a pass settled, and the status it reached. */
export interface RecoveredTransaction extends SweptTransaction {
  readonly status: string;
}

/** A transaction a pass could not settle, and why. */
export interface UnsettledTransaction extends SweptTransaction {
  readonly error: StructuredError;
}

/** What one pass of the sweeper did. */
export interface RecoveryReport {
  /** Transactions rolled back because they timed out. */
  readonly rolledBack: RecoveredTransaction[];
  /** Rollbacks a dead run had left unfinished, finished now. */
  readonly resumed: RecoveredTransaction[];
  /** Transactions the pass could not settle (logged; retried on the next pass). */
  readonly failed: UnsettledTransaction[];
}

function swept<T extends SweptTransaction>(entry: Omit<T, 'transaction_id'>): T {
  return deprecatedAliases('@ext/transactions RecoveryReport entry', entry, { transaction_id: 'transactionId' }) as T;
}

/** Index entries read at a time. */
const PAGE = 200;

/**
 * One pass over the log: rolls back timed-out transactions and finishes
 * rollbacks whose run died. Safe to run from many instances at once.
 */
export async function sweepLog(engine: TransactionEngine, store: Store, logger?: Logger): Promise<RecoveryReport> {
  const log = logger ?? engine.options.logger;
  const report: RecoveryReport = { rolledBack: [], resumed: [], failed: [] };
  const lowKey = indexLowKey(engine.keys);
  const lowRaw = await store.get(lowKey);
  const low = typeof lowRaw === 'string' ? lowRaw : undefined;
  let cursor = low;
  let newLow = low;
  let prefixSettled = true;
  for (;;) {
    const entries = await store.read(indexStream(engine.keys), { after: cursor, limit: PAGE });
    for (const entry of entries) {
      cursor = entry.id;
      const parsed = readIndexEntry(entry.value);
      let settled = true;
      if (parsed) settled = await sweepOne(engine, store, parsed.principal, parsed.transactionId, report, log);
      if (prefixSettled && settled) newLow = entry.id;
      else prefixSettled = false;
    }
    if (entries.length < PAGE) break;
  }
  if (newLow !== undefined && newLow !== low) {
    // Another sweeper may have moved it already; both moves are correct.
    await store.compareAndSet(lowKey, low, newLow);
  }
  return report;
}

/** Settles one transaction if it is due; `true` once it needs no further pass. */
async function sweepOne(
  engine: TransactionEngine,
  store: Store,
  principal: string,
  transactionId: string,
  report: RecoveryReport,
  logger: Logger | undefined,
): Promise<boolean> {
  try {
    const record = await engine.load(store, principal, transactionId);
    if (!record || isTerminal(record)) return true;
    const now = engine.options.now();
    const expired = isExpired(record, now);
    const abandoned = record.status === 'rolling_back' && (record.rollback?.lease_until ?? 0) <= now;
    if (!expired && !abandoned) return false;
    const { record: after, started } = await engine.rollback(
      store,
      principal,
      transactionId,
      'timeout',
      undefined,
      logger,
    );
    if (started)
      (expired ? report.rolledBack : report.resumed).push(
        swept<RecoveredTransaction>({ principal, transactionId, status: after.status }),
      );
    return isTerminal(after);
  } catch (error) {
    logger?.warn(`transactions: sweeping ${transactionId} failed`, {
      error: error instanceof Error ? error.message : String(error),
    });
    report.failed.push(
      swept<UnsettledTransaction>({
        principal,
        transactionId,
        error: structuredFrom(error) ?? {
          code: 'SWEEP_FAILED',
          message: 'The transaction could not be settled',
          category: 'transient',
        },
      }),
    );
    return false;
  }
}

/** The sweeper timers of one `transactionsServer(...)`: at most one per store, none when the interval is `0`. */
export class Sweeper {
  readonly #engine: TransactionEngine;
  readonly #intervalMs: number;
  readonly #timers = new Map<Store, NodeJS.Timeout>();

  constructor(engine: TransactionEngine, intervalMs: number) {
    this.#engine = engine;
    this.#intervalMs = intervalMs;
  }

  /** One pass now, awaited. */
  sweep(store: Store, logger?: Logger): Promise<RecoveryReport> {
    return sweepLog(this.#engine, store, logger);
  }

  /** Starts the timer for `store` unless it runs already, with a first pass at once when `immediately`. */
  ensure(store: Store, logger: Logger, immediately = true): void {
    if (this.#intervalMs === 0 || this.#timers.has(store)) return;
    const run = (): void => {
      this.sweep(store, logger).catch((error: unknown) => {
        const details = { error: error instanceof Error ? error.message : String(error) };
        // A store outage is logged by the store, once; a line per pass would bury it.
        if (StoreUnavailableError.isInstance(error))
          logger.debug?.('transactions: sweeper pass skipped: the store is unavailable', details);
        else logger.warn('transactions: sweeper pass failed', details);
      });
    };
    const timer = setInterval(run, this.#intervalMs);
    // The sweeper must never keep a process alive on its own.
    timer.unref();
    this.#timers.set(store, timer);
    if (immediately) run();
  }

  /** Stops every timer. */
  stop(): void {
    for (const timer of this.#timers.values()) clearInterval(timer);
    this.#timers.clear();
  }
}

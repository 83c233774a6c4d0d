/**
 * The server half's descriptor type, and the key under which it carries its
 * engine, so that `registerTransactionTools` can find it in a composition.
 */
import type { Logger, ServerExtension, Store } from '@ext/core';
import type { TransactionEngine } from './engine.js';
import type { RecoveryReport } from './sweeper.js';

/** Symbol.for, so duplicate copies of this package recognise each other's descriptor. */
export const ENGINE = Symbol.for('io.github.mcp-ext/transactions/engine');

/** The server half: a plain descriptor plus the sweeper's controls. */
export interface TransactionsServerExtension extends ServerExtension {
  readonly exposeAsTools: boolean;
  /**
   * Runs one recovery pass now and starts the sweeper timer for `store`.
   * `extendServer` already does both when the extension is attached; call it
   * to wait for the pass and read its report (or with `sweepIntervalMs: 0`).
   */
  start(store: Store, logger?: Logger): Promise<RecoveryReport>;
  /** One recovery pass: rolls back timed-out transactions, finishes abandoned rollbacks. */
  sweep(store: Store, logger?: Logger): Promise<RecoveryReport>;
  /** Stops every sweeper timer this extension started. */
  stop(): void;
  readonly [ENGINE]: TransactionEngine;
}

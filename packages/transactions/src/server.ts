/**
 * The server half of `@ext/transactions`: assembles the descriptor from the
 * engine, its methods, the step middleware and the sweeper.
 */
import { consoleLogger } from '@ext/core/kit';
import { type Logger, type Store } from '@ext/core';
import { describeCompensation, emittedRecovery } from './compensation.js';
import { TransactionEngine } from './engine.js';
import { ENGINE, type TransactionsServerExtension } from './extension.js';
import { transactionMethods } from './methods.js';
import { stepMiddleware } from './middleware.js';
import { resolveEngineOptions, resolveSweepInterval, type TransactionsServerOptions } from './options.js';
import {
  ClientSettings,
  TRANSACTIONS_ID,
  TRANSACTIONS_PACKAGE,
  TRANSACTIONS_WIRE_VERSION,
  type ServerSettings,
  type ToolTransactionMeta,
} from './schema.js';
import { Sweeper, type RecoveryReport } from './sweeper.js';
import { TRANSACTION_TOOL_NAMES } from './tools.js';

export type { Compensation, CompensateFn, CompensationContext, CompensationDefinition } from './compensation.js';
export {
  bindRecoveryParameters,
  readRecovery,
  recoveryAnnotation,
  RecoveryBindingError,
  RECOVERY_ANNOTATION,
  ToolRecovery,
  type RecoveryReading,
} from './recovery-annotation.js';
export {
  recoveryCompensation,
  type CompensatingAnswer,
  type CompensatingCall,
  type RecoveryCompensationOptions,
} from './recovery-compensation.js';
export type { TransactionsServerExtension } from './extension.js';
export type { TransactionsServerOptions } from './options.js';
export type { RecoveredTransaction, RecoveryReport, UnsettledTransaction } from './sweeper.js';
export { registerTransactionTools, TRANSACTION_TOOL_NAMES } from './tools.js';

/**
 * The server half of `@ext/transactions`: serves `<id>/begin|commit|rollback|status`,
 * records tool calls that carry `params._meta[<id>].transaction_id` as steps,
 * and compensates them newest first on rollback or timeout. Requires
 * `@ext/idempotency`.
 *
 * @example
 * ```ts
 * const transactions = transactionsServer({
 *   compensations: {
 *     create_ticket: {
 *       description: (_args, result) => `Delete ticket ${String(result.structuredContent?.id)}`,
 *       compensate: async (_args, result, ctx) => tickets.delete(String(result.structuredContent?.id), ctx.idempotencyKey),
 *     },
 *   },
 * });
 * ```
 */
export function transactionsServer(options: TransactionsServerOptions = {}): TransactionsServerExtension {
  const engine = new TransactionEngine(resolveEngineOptions(options));
  const sweeper = new Sweeper(engine, resolveSweepInterval(options.sweepIntervalMs));
  const exposeAsTools = options.exposeAsTools ?? false;
  const methodTools = new Set<string>(exposeAsTools ? TRANSACTION_TOOL_NAMES : []);
  const settings: ServerSettings = {
    version: TRANSACTIONS_WIRE_VERSION,
    default_timeout_seconds: engine.options.defaultTimeoutSeconds,
    max_timeout_seconds: engine.options.maxTimeoutSeconds,
    // Read when the capabilities are built: tools that declare their compensation in annotations join as they register.
    get compensable_tools() {
      return Object.keys(engine.compensations());
    },
  };

  return {
    side: 'server',
    keepsCallerState: true,
    name: TRANSACTIONS_PACKAGE,
    ids: [TRANSACTIONS_ID],
    settings,
    peerSettings: ClientSettings,
    requires: ['@ext/idempotency'],
    stage: 'transactions',
    middleware: stepMiddleware({ engine, sweeper, methodTools }),
    methods: transactionMethods(engine, sweeper),
    toolMeta: (tool) => {
      engine.learn(tool);
      const description = describeCompensation(engine.compensations(), tool.name);
      if (description === undefined) return undefined;
      const meta: ToolTransactionMeta = { compensable: true, compensation: description };
      return meta;
    },
    // A compensation declared here with its undo tool and bindings is also said in the draft's shape (TXN-25).
    toolAnnotations: (tool) => emittedRecovery(engine.options.compensations, tool.name),
    exposeAsTools,
    // Startup recovery (TXN-22): what a previous run left active past its
    // timeout is rolled back now, not when some later request happens to
    // start the sweeper.
    attach: ({ store, logger, runTool }) => {
      engine.useRunTool(runTool);
      sweeper.ensure(store, logger);
    },
    async start(store, logger) {
      const log = logger ?? engine.options.logger ?? consoleLogger;
      const report = await sweeper.sweep(store, log);
      sweeper.ensure(store, log, false);
      return report;
    },
    sweep: (store, logger) => sweeper.sweep(store, logger),
    stop() {
      sweeper.stop();
    },
    [ENGINE]: engine,
  };
}

/**
 * Runs one recovery pass over `store` with the compensations of `extension`:
 * what a restarted server calls before serving (or use `extension.start(store)`,
 * which also starts the sweeper timer).
 */
export function recoverTransactions(
  store: Store,
  extension: TransactionsServerExtension,
  logger?: Logger,
): Promise<RecoveryReport> {
  return extension.sweep(store, logger);
}

import { randomUUID } from 'node:crypto';
import {
  ConfigurationError,
  ExtensionError,
  StoreUnavailableError,
  consoleLogger,
  registerMethodTools,
  type CallContext,
  type ExtendedServer,
  type Logger,
  type RequestContext,
  type ServerExtension,
  type Store,
  type ToolCall,
  type ToolResult,
} from '@ext/core';
import * as z from 'zod';
import {
  TransactionEngine,
  errorOfResult,
  resolveEngineOptions,
  structuredFrom,
  type RawEngineOptions,
  type RecoveryReport,
} from './engine.js';
import {
  BeginParams,
  ClientSettings,
  CommitParams,
  EXTENSION_ID,
  ID_PATTERN,
  META_POINTER,
  PACKAGE_NAME,
  RollbackParams,
  StatusParams,
  StepRequestMeta,
  WIRE_VERSION,
  parseInput,
  type ServerSettings,
  type StepResultMeta,
  type ToolTransactionMeta,
} from './schema.js';

export type {
  Compensation,
  CompensateFn,
  CompensationContext,
  CompensationDefinition,
  RecoveryReport,
} from './engine.js';

export interface TransactionsServerOptions extends RawEngineOptions {
  /**
   * Compensations by tool name. Only these tools can be steps of a
   * transaction; a read-only tool (`readOnlyHint`) may also be called inside
   * one and is not recorded. Default: none.
   */
  readonly compensations?: RawEngineOptions['compensations'];
  /** Serve the four operations as tools too (see `registerTransactionTools`). Default `false`. */
  readonly exposeAsTools?: boolean | undefined;
  /**
   * How often the sweeper looks for timed-out transactions and abandoned
   * rollbacks. It starts, with a first pass at once, when the extension is
   * attached to a server and its store (`extendServer`), before any request.
   * `0` disables it: call `start(store)` or `sweep(store)` yourself.
   * Default 5000 ms.
   */
  readonly sweepIntervalMs?: number | undefined;
}

const ENGINE = Symbol.for('io.github.mcp-ext/transactions/engine');

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

/** The tool names of `registerTransactionTools`; calls to them are never recorded as steps. */
export const TRANSACTION_TOOL_NAMES = [
  'begin_transaction',
  'commit_transaction',
  'rollback_transaction',
  'transaction_status',
] as const;

function withStepMeta(result: ToolResult, meta: StepResultMeta): ToolResult {
  return { ...result, _meta: { ...(result._meta ?? {}), [EXTENSION_ID]: meta } };
}

// Results go into the log as JSON; the round trip drops what JSON cannot hold.
function jsonResult(result: ToolResult): Record<string, unknown> {
  return JSON.parse(JSON.stringify(result)) as Record<string, unknown>;
}

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
  const sweepIntervalMs = options.sweepIntervalMs ?? 5000;
  if (!Number.isSafeInteger(sweepIntervalMs) || sweepIntervalMs < 0) {
    throw new ConfigurationError(
      'INVALID_OPTION',
      'transactionsServer: "sweepIntervalMs" must be a non-negative integer',
    );
  }
  const exposeAsTools = options.exposeAsTools ?? false;
  const timers = new Map<Store, NodeJS.Timeout>();
  const toolNames = new Set<string>(exposeAsTools ? TRANSACTION_TOOL_NAMES : []);

  const sweep = (store: Store, logger?: Logger): Promise<RecoveryReport> => engine.sweep(store, logger);

  const ensureSweeper = (store: Store, logger: Logger, immediately = true): void => {
    if (sweepIntervalMs === 0 || timers.has(store)) return;
    const run = (): void => {
      sweep(store, logger).catch((error: unknown) => {
        const details = { error: error instanceof Error ? error.message : String(error) };
        // A store outage is logged by the store, once; a line per pass would bury it.
        if (StoreUnavailableError.isInstance(error))
          logger.debug?.('transactions: sweeper pass skipped: the store is unavailable', details);
        else logger.warn('transactions: sweeper pass failed', details);
      });
    };
    const timer = setInterval(run, sweepIntervalMs);
    // The sweeper must never keep a process alive on its own.
    timer.unref();
    timers.set(store, timer);
    if (immediately) run();
  };

  const methods = {
    begin: async (params: Record<string, unknown>, ctx: RequestContext) => {
      ensureSweeper(ctx.store, ctx.logger);
      return engine.begin(ctx.store, ctx.principal, parseInput(BeginParams, params, '/params'));
    },
    commit: async (params: Record<string, unknown>, ctx: RequestContext) => {
      ensureSweeper(ctx.store, ctx.logger);
      const { transaction_id } = parseInput(CommitParams, params, '/params');
      return engine.commit(ctx.store, ctx.principal, transaction_id, ctx.logger);
    },
    rollback: async (params: Record<string, unknown>, ctx: RequestContext) => {
      ensureSweeper(ctx.store, ctx.logger);
      const { transaction_id, reason } = parseInput(RollbackParams, params, '/params');
      return engine.rollbackForClient(ctx.store, ctx.principal, transaction_id, reason, ctx.logger);
    },
    status: async (params: Record<string, unknown>, ctx: RequestContext) => {
      ensureSweeper(ctx.store, ctx.logger);
      const { transaction_id } = parseInput(StatusParams, params, '/params');
      return engine.status(ctx.store, ctx.principal, transaction_id, ctx.logger);
    },
  };

  const middleware = async (
    call: ToolCall,
    ctx: CallContext,
    next: (call?: ToolCall) => Promise<ToolResult>,
  ): Promise<ToolResult> => {
    ensureSweeper(ctx.store, ctx.logger);
    const raw = call.meta[EXTENSION_ID];
    if (raw === undefined || toolNames.has(call.name)) return next();
    const { transaction_id: transactionId, step_id: requestedStepId } = parseInput(StepRequestMeta, raw, META_POINTER);
    if (!engine.compensable(call.name)) {
      // A read changes nothing, so there is nothing to undo and nothing to record.
      if (ctx.tool.annotations?.readOnlyHint === true) return next();
      throw new ExtensionError(
        'invalid_input',
        'TOOL_NOT_TRANSACTIONAL',
        `${call.name} has no registered compensation, so it cannot be a step of a transaction`,
        {
          details: { tool: call.name, transaction_id: transactionId },
          suggestion: 'Call this tool outside the transaction.',
        },
      );
    }
    const store = ctx.store;
    const stepId = await engine.reserve(
      store,
      ctx.principal,
      transactionId,
      { step_id: requestedStepId, tool: call.name, arguments: call.arguments },
      ctx.logger,
    );
    let result: ToolResult;
    try {
      result = await next();
    } catch (error) {
      try {
        await engine.complete(
          store,
          ctx.principal,
          transactionId,
          stepId,
          { ok: false, error: structuredFromThrown(error) },
          ctx.logger,
        );
      } catch (recordError) {
        ctx.logger.warn('transactions: recording a failed step failed', {
          transaction_id: transactionId,
          step_id: stepId,
          error: recordError instanceof Error ? recordError.message : String(recordError),
        });
      }
      throw error;
    }
    if (result.isError === true) {
      const error = errorOfResult(result);
      await engine.complete(store, ctx.principal, transactionId, stepId, { ok: false, error }, ctx.logger);
      const meta: StepResultMeta = { transaction_id: transactionId, step_id: stepId, status: 'failed' };
      if (error) meta.error = error;
      return withStepMeta(result, meta);
    }
    const compensation = engine.compensationInfo(call.name, call.arguments, result, ctx.logger);
    await engine.complete(
      store,
      ctx.principal,
      transactionId,
      stepId,
      { ok: true, result: jsonResult(result), compensation },
      ctx.logger,
    );
    return withStepMeta(result, { transaction_id: transactionId, step_id: stepId, status: 'ok', compensation });
  };

  const settings: ServerSettings = {
    version: WIRE_VERSION,
    default_timeout_seconds: engine.options.defaultTimeoutSeconds,
    max_timeout_seconds: engine.options.maxTimeoutSeconds,
    compensable_tools: Object.keys(engine.options.compensations),
  };

  return {
    side: 'server',
    keepsCallerState: true,
    name: PACKAGE_NAME,
    ids: [EXTENSION_ID],
    settings,
    peerSettings: ClientSettings,
    requires: ['@ext/idempotency'],
    stage: 'transactions',
    middleware,
    methods,
    toolMeta: (tool) => {
      const description = engine.describeCompensation(tool.name);
      if (description === undefined) return undefined;
      const meta: ToolTransactionMeta = { compensable: true, compensation: description };
      return meta;
    },
    exposeAsTools,
    // Startup recovery (TXN-22): what a previous run left active past its
    // timeout is rolled back now, not when some later request happens to
    // start the sweeper.
    attach: ({ store, logger }) => {
      ensureSweeper(store, logger);
    },
    async start(store, logger) {
      const log = logger ?? engine.options.logger ?? consoleLogger;
      const report = await sweep(store, log);
      ensureSweeper(store, log, false);
      return report;
    },
    sweep,
    stop() {
      for (const timer of timers.values()) clearInterval(timer);
      timers.clear();
    },
    [ENGINE]: engine,
  };
}

function structuredFromThrown(error: unknown): ReturnType<typeof structuredFrom> | undefined {
  return ExtensionError.isInstance(error) ? error.toStructured() : undefined;
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

function findExtension(server: Pick<ExtendedServer, 'composed'>): TransactionsServerExtension {
  const found = server.composed.extensions.find((half) => half.name === PACKAGE_NAME && ENGINE in half);
  if (!found) {
    throw new ConfigurationError(
      'MISSING_DEPENDENCY',
      'registerTransactionTools: compose transactionsServer({ exposeAsTools: true }) into this server first',
    );
  }
  return found as TransactionsServerExtension;
}

const TransactionIdArg = z.string().regex(new RegExp(ID_PATTERN));

function statusLine(result: Record<string, unknown>): string {
  return `Transaction ${String(result.transaction_id)} is ${String(result.status).replaceAll('_', ' ')}.`;
}

/**
 * Registers `begin_transaction`, `commit_transaction`, `rollback_transaction`
 * and `transaction_status` on a server whose composed `transactionsServer`
 * was created with `exposeAsTools: true`, for clients that can only call
 * tools. They run the methods' own handlers (core `registerMethodTools`).
 */
export function registerTransactionTools(server: Pick<ExtendedServer, 'registerTool' | 'composed'>): void {
  const extension = findExtension(server);
  if (!extension.exposeAsTools) {
    throw new ConfigurationError(
      'INVALID_OPTION',
      'registerTransactionTools: create transactionsServer with "exposeAsTools: true"',
    );
  }
  registerMethodTools(server, PACKAGE_NAME, [
    {
      verb: 'begin',
      name: 'begin_transaction',
      description:
        'Begin a transaction. Tool calls that name it are undone, newest first, if it is rolled back or left idle past its timeout.',
      inputSchema: z.object({
        transaction_id: TransactionIdArg.optional().describe(
          'Your id for the transaction; one is generated when absent.',
        ),
        timeout_seconds: z
          .number()
          .int()
          .min(1)
          .optional()
          .describe('Roll back automatically after this much inactivity.'),
        description: z.string().max(1024).optional(),
      }),
      // The method requires an id; a tool caller may leave it to the server.
      params: (args) => ({ ...args, transaction_id: args.transaction_id ?? `tx-${randomUUID()}` }),
      summary: (result) => `Transaction ${String(result.transaction_id)} is active until ${String(result.expires_at)}.`,
    },
    {
      verb: 'commit',
      name: 'commit_transaction',
      description: 'Commit a transaction: its steps stay done and can no longer be rolled back.',
      inputSchema: z.object({ transaction_id: TransactionIdArg }),
      summary: (result) => `Transaction ${String(result.transaction_id)} is committed.`,
    },
    {
      verb: 'rollback',
      name: 'rollback_transaction',
      description: 'Roll a transaction back: undo its steps, newest first, and report each compensation.',
      annotations: { destructiveHint: true },
      inputSchema: z.object({ transaction_id: TransactionIdArg, reason: z.string().max(1024).optional() }),
      summary: statusLine,
    },
    {
      verb: 'status',
      name: 'transaction_status',
      description: 'Show a transaction: its state, its steps and their compensations.',
      annotations: { readOnlyHint: true },
      inputSchema: z.object({ transaction_id: TransactionIdArg }),
      summary: statusLine,
    },
  ]);
}

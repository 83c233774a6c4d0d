/**
 * The tool-call middleware: a call marked with `params._meta[<id>].transaction_id`
 * becomes a step, reserved in the log before the tool runs and completed after,
 * its result marked with the step and its compensation.
 */
import { ExtensionError, type CallContext, type ToolCall, type ToolMiddleware, type ToolResult } from '@ext/core';
import { compensationInfo } from './compensation.js';
import type { TransactionEngine } from './engine.js';
import type { RecoveryReading } from './recovery-annotation.js';
import { META_POINTER, parseInput } from './input.js';
import { StepRequestMeta, TRANSACTIONS_ID, type StepResultMeta } from './schema.js';
import { errorOfResult, structuredFrom } from './structured-errors.js';
import type { Sweeper } from './sweeper.js';

/** What the middleware works with. */
export interface StepDeps {
  readonly engine: TransactionEngine;
  readonly sweeper: Sweeper;
  /** The tools that serve the methods (`registerTransactionTools`): never recorded as steps. */
  readonly methodTools: ReadonlySet<string>;
}

function withStepMeta(result: ToolResult, meta: StepResultMeta): ToolResult {
  return { ...result, _meta: { ...(result._meta ?? {}), [TRANSACTIONS_ID]: meta } };
}

// Results go into the log as JSON; the round trip drops what JSON cannot hold.
function jsonResult(result: ToolResult): Record<string, unknown> {
  return JSON.parse(JSON.stringify(result)) as Record<string, unknown>;
}

function notTransactional(tool: string, transactionId: string, reading: RecoveryReading): ExtensionError {
  // An annotation that declares a compensation this server cannot run says why, naming the field (TXN-24).
  const why =
    reading.kind === 'invalid'
      ? `: its annotations${reading.pointer} ${reading.message}`
      : reading.kind === 'declared'
        ? ': this server cannot call its own tools to run the compensation its annotations declare'
        : '';
  return new ExtensionError(
    'invalid_input',
    'TOOL_NOT_TRANSACTIONAL',
    `${tool} has no registered compensation, so it cannot be a step of a transaction${why}`,
    {
      details: {
        tool,
        transaction_id: transactionId,
        ...(reading.kind === 'invalid' ? { pointer: `/annotations${reading.pointer}` } : {}),
      },
      suggestion: 'Call this tool outside the transaction.',
    },
  );
}

/** The middleware of the `transactions` stage. */
export function stepMiddleware(deps: StepDeps): ToolMiddleware {
  return async (call, ctx, next) => {
    deps.sweeper.ensure(ctx.store, ctx.logger);
    const raw = call.meta[TRANSACTIONS_ID];
    if (raw === undefined || deps.methodTools.has(call.name)) return next();
    const { transaction_id: transactionId, step_id: stepId } = parseInput(StepRequestMeta, raw, META_POINTER);
    const reading = deps.engine.learn(ctx.tool);
    if (!deps.engine.compensable(call.name)) {
      // A read changes nothing, so there is nothing to undo and nothing to record.
      if (ctx.tool.annotations?.readOnlyHint === true) return next();
      throw notTransactional(call.name, transactionId, reading);
    }
    return runStep(deps.engine, call, ctx, next, transactionId, stepId);
  };
}

/** Reserves the step, runs the tool, and records how it ended. */
async function runStep(
  engine: TransactionEngine,
  call: ToolCall,
  ctx: CallContext,
  next: () => Promise<ToolResult>,
  transactionId: string,
  requestedStepId: string | undefined,
): Promise<ToolResult> {
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
        { ok: false, error: structuredFrom(error) },
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
  const compensation = compensationInfo(engine.compensations(), call.name, call.arguments, result, ctx.logger);
  await engine.complete(
    store,
    ctx.principal,
    transactionId,
    stepId,
    { ok: true, result: jsonResult(result), compensation },
    ctx.logger,
  );
  return withStepMeta(result, { transaction_id: transactionId, step_id: stepId, status: 'ok', compensation });
}

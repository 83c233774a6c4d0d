/**
 * Compensations: how an author declares the undo of a tool, what the client
 * is told about it, and one run of it under a timeout.
 */
import { ExtensionError, type Logger, type StructuredError, type Store, type ToolResult } from '@ext/core';
import { compensationKey, type CompensationOutcome } from './machine.js';
import type { RollbackTrigger, StepRecord, TransactionRecord } from './record.js';
import { bindRecoveryParameters, recoveryAnnotation, RECOVERY_ANNOTATION } from './recovery-annotation.js';
import type { CompensationInfo } from './schema.js';
import { structuredFrom } from './structured-errors.js';

/** What a compensation gets besides the step's arguments and result. */
export interface CompensationContext {
  readonly transactionId: string;
  readonly stepId: string;
  /** The tool whose effect is undone. */
  readonly tool: string;
  /**
   * Stable for this step of this transaction of this caller: pass it to the
   * downstream API (or check it in your own records) so a compensation
   * re-run after a crash has no second effect.
   */
  readonly idempotencyKey: string;
  readonly principal: string;
  /** What `parameters(args, result)` returned when the step ran. */
  readonly parameters: Readonly<Record<string, unknown>> | undefined;
  /** 1 for the first run; more after a crash or a retried rollback. */
  readonly attempt: number;
  readonly trigger: RollbackTrigger;
  readonly reason: string | undefined;
  readonly store: Store;
  readonly logger: Logger;
  /** Aborted when the compensation exceeds `compensationTimeoutSeconds`. */
  readonly signal: AbortSignal;
}

/** Undoes one step. Throw (ideally an `ExtensionError`) to report `compensation_failed`. */
export type CompensateFn = (
  args: Record<string, unknown>,
  result: ToolResult,
  ctx: CompensationContext,
) => void | Promise<void>;

/** A compensation with what the client is told about it. */
export interface CompensationDefinition {
  readonly compensate: CompensateFn;
  /** Shown in `result._meta[<id>].compensation.description`. Default: `Undo <tool>`. */
  readonly description?: string | ((args: Record<string, unknown>, result: ToolResult) => string) | undefined;
  /** The tool that performs the undo, when there is one, for display (seed `compensation.tool`). */
  readonly tool?: string | undefined;
  /** Parameters of the undo, computed when the step ran; shown to the client and passed back in `ctx.parameters`. */
  readonly parameters?: ((args: Record<string, unknown>, result: ToolResult) => Record<string, unknown>) | undefined;
  /**
   * The undo tool's arguments as SEP-3172 runtime expressions
   * (`$response.body#/id` reads the result's `structuredContent`,
   * `$request.body#/id` the arguments; other strings are constants). With
   * `tool`, the server also writes `annotations.recovery` on the tool, so a
   * host that reads the draft sees the compensation; without `parameters`,
   * the parameters are bound from these.
   */
  readonly bindings?: Readonly<Record<string, string>> | undefined;
}

export type Compensation = CompensateFn | CompensationDefinition;

/** The compensations of a server, by tool name. */
export type Compensations = Readonly<Record<string, Compensation>>;

function definitionOf(entry: Compensation): CompensationDefinition {
  return typeof entry === 'function' ? { compensate: entry } : entry;
}

/** What `Tool._meta[<id>].compensation` says of `tool`'s undo; `undefined` when it has none. */
export function describeCompensation(compensations: Compensations, tool: string): string | undefined {
  const entry = compensations[tool];
  if (!entry) return undefined;
  const definition = definitionOf(entry);
  return typeof definition.description === 'string' ? definition.description : `Undo ${tool}`;
}

/**
 * `annotations.recovery` (SEP-3172) for `tool` when its compensation names
 * its undo tool and binds that tool's arguments; `undefined` otherwise (a
 * function cannot be said in the draft's shape).
 */
export function emittedRecovery(compensations: Compensations, tool: string): Record<string, unknown> | undefined {
  const entry = compensations[tool];
  if (!entry) return undefined;
  const definition = definitionOf(entry);
  if (definition.tool === undefined || definition.bindings === undefined) return undefined;
  return { [RECOVERY_ANNOTATION]: recoveryAnnotation(definition.tool, definition.bindings) };
}

/** The compensation as the client sees it, computed from the step's arguments and result. */
export function compensationInfo(
  compensations: Compensations,
  tool: string,
  args: Record<string, unknown>,
  result: ToolResult,
  logger: Logger | undefined,
): CompensationInfo {
  const entry = compensations[tool];
  const definition = entry ? definitionOf(entry) : undefined;
  const info: CompensationInfo = { description: `Undo ${tool}` };
  try {
    if (typeof definition?.description === 'string') info.description = definition.description;
    else if (definition?.description) info.description = definition.description(args, result);
    if (definition?.tool !== undefined) info.tool = definition.tool;
    if (definition?.parameters) info.parameters = definition.parameters(args, result);
    else if (definition?.bindings) info.parameters = bindRecoveryParameters(definition.bindings, args, result);
  } catch (error) {
    // The step already happened; a failing description must not lose it, so it is reported and defaulted.
    logger?.warn(`transactions: describing the compensation of ${tool} failed`, {
      error: error instanceof Error ? error.message : String(error),
    });
  }
  return info;
}

const silentFallback: Logger = {
  warn() {
    // No logger configured anywhere: the failure is still in the record and the rollback result.
  },
};

function notRegistered(tool: string): StructuredError {
  return {
    code: 'COMPENSATION_NOT_REGISTERED',
    message: `No compensation is registered for ${tool} on this server any more`,
    category: 'permanent',
    user_actionable: true,
    suggestion: `Undo the effect of ${tool} by hand.`,
  };
}

/** How one compensation run is made: the server's compensations, its time limit, where failures are logged. */
export interface CompensationRun {
  readonly compensations: Compensations;
  readonly timeoutSeconds: number;
  readonly logger: Logger | undefined;
}

/** Runs the compensation of `step` once, aborting it past the time limit; never throws. */
export async function runCompensation(
  run: CompensationRun,
  store: Store,
  record: TransactionRecord,
  step: StepRecord,
): Promise<CompensationOutcome> {
  const log = run.logger;
  const entry = run.compensations[step.tool];
  if (!entry) return { ok: false, error: notRegistered(step.tool) };
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const ctx: CompensationContext = {
    transactionId: record.transaction_id,
    stepId: step.step_id,
    tool: step.tool,
    idempotencyKey: compensationKey(record.principal, record.transaction_id, step.step_id),
    principal: record.principal,
    parameters: step.compensation?.parameters,
    attempt: step.attempts,
    trigger: record.rollback?.trigger ?? 'client',
    reason: record.rollback?.reason,
    store,
    logger: log ?? silentFallback,
    signal: controller.signal,
  };
  try {
    const done = Promise.resolve(
      definitionOf(entry).compensate(step.arguments, (step.result ?? { content: [] }) as ToolResult, ctx),
    );
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        controller.abort();
        reject(
          new ExtensionError(
            'transient',
            'OPERATION_TIMEOUT',
            `The compensation for ${step.tool} took longer than ${run.timeoutSeconds} s`,
            { retryAfterSeconds: 1 },
          ),
        );
      }, run.timeoutSeconds * 1000);
    });
    await Promise.race([done, timedOut]);
    return { ok: true };
  } catch (error) {
    log?.warn(`transactions: compensation for ${step.tool} in ${record.transaction_id} failed`, {
      step_id: step.step_id,
      error: error instanceof Error ? error.message : String(error),
    });
    return {
      ok: false,
      error: structuredFrom(error) ?? {
        code: 'COMPENSATION_FAILED',
        message: `The compensation for ${step.tool} failed`,
        category: 'transient',
        suggestion: 'Roll the transaction back again to retry the failed compensations.',
      },
    };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The transaction operations on a store: what the methods, the tools, the
 * tool-call middleware and the sweeper share. The decisions are the pure
 * functions of `machine.ts`; this file only loads, applies with
 * compare-and-set, and runs compensations.
 */
import { randomUUID } from 'node:crypto';
import {
  ConfigurationError,
  ExtensionError,
  type Logger,
  type Store,
  type StructuredError,
  type ToolResult,
} from '@ext/core';
import {
  claimCompensation,
  commit,
  compensationKey,
  completeStep,
  createTransaction,
  expiresAt,
  finishCompensation,
  finishRollback,
  isExpired,
  isTerminal,
  nextCompensation,
  notFound,
  reserveStep,
  rollbackResult,
  startRollback,
  statusView,
  type CompensationOutcome,
  type RollbackTrigger,
  type StepOutcome,
  type StepRecord,
  type TransactionRecord,
} from './machine.js';
import {
  indexEntryValue,
  indexLowKey,
  indexStream,
  parseRecord,
  readIndexEntry,
  recordKey,
  toJson,
  updateRecord,
  type LogKeys,
} from './log.js';
import {
  DEFAULT_TIMEOUT_SECONDS,
  type BeginParams,
  type BeginResult,
  type CommitResult,
  type CompensationInfo,
  type RollbackResult,
  type StatusResult,
} from './schema.js';

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
}

export type Compensation = CompensateFn | CompensationDefinition;

export interface EngineOptions {
  readonly compensations: Readonly<Record<string, Compensation>>;
  readonly defaultTimeoutSeconds: number;
  readonly maxTimeoutSeconds: number;
  readonly retentionSeconds: number;
  readonly leaseSeconds: number;
  readonly compensationTimeoutSeconds: number;
  readonly keyPrefix: string;
  readonly indexMaxLength: number;
  readonly now: () => number;
  readonly logger: Logger | undefined;
}

/** What one pass of the sweeper did. */
export interface RecoveryReport {
  /** Transactions rolled back because they timed out. */
  readonly rolledBack: { principal: string; transaction_id: string; status: string }[];
  /** Rollbacks a dead run had left unfinished, finished now. */
  readonly resumed: { principal: string; transaction_id: string; status: string }[];
  /** Transactions the pass could not settle (logged; retried on the next pass). */
  readonly failed: { principal: string; transaction_id: string; error: StructuredError }[];
}

function positiveInteger(name: string, value: number | undefined, fallback: number): number {
  const resolved = value ?? fallback;
  if (!Number.isSafeInteger(resolved) || resolved < 1) {
    throw new ConfigurationError(
      'INVALID_OPTION',
      `transactionsServer: "${name}" must be a positive integer, got ${String(value)}`,
    );
  }
  return resolved;
}

export interface RawEngineOptions {
  readonly compensations?: Readonly<Record<string, Compensation>> | undefined;
  readonly defaultTimeoutSeconds?: number | undefined;
  readonly maxTimeoutSeconds?: number | undefined;
  readonly retentionSeconds?: number | undefined;
  readonly leaseSeconds?: number | undefined;
  readonly compensationTimeoutSeconds?: number | undefined;
  readonly keyPrefix?: string | undefined;
  readonly indexMaxLength?: number | undefined;
  readonly now?: (() => number) | undefined;
  readonly logger?: Logger | undefined;
}

/** Resolves and validates options once, naming the option at fault. */
export function resolveEngineOptions(raw: RawEngineOptions): EngineOptions {
  const compensations = raw.compensations ?? {};
  if (typeof compensations !== 'object') {
    throw new ConfigurationError(
      'INVALID_OPTION',
      'transactionsServer: "compensations" must be an object keyed by tool name',
    );
  }
  for (const [tool, entry] of Object.entries(compensations)) {
    const fn = typeof entry === 'function' ? entry : (entry as Partial<CompensationDefinition> | undefined)?.compensate;
    if (typeof fn !== 'function') {
      throw new ConfigurationError(
        'INVALID_OPTION',
        `transactionsServer: "compensations.${tool}" must be a function or an object with a "compensate" function`,
      );
    }
  }
  const defaultTimeoutSeconds = positiveInteger(
    'defaultTimeoutSeconds',
    raw.defaultTimeoutSeconds,
    DEFAULT_TIMEOUT_SECONDS,
  );
  const maxTimeoutSeconds = positiveInteger(
    'maxTimeoutSeconds',
    raw.maxTimeoutSeconds,
    Math.max(3600, defaultTimeoutSeconds),
  );
  if (defaultTimeoutSeconds > maxTimeoutSeconds) {
    throw new ConfigurationError(
      'INVALID_OPTION',
      'transactionsServer: "defaultTimeoutSeconds" must not exceed "maxTimeoutSeconds"',
    );
  }
  const compensationTimeoutSeconds = positiveInteger('compensationTimeoutSeconds', raw.compensationTimeoutSeconds, 30);
  const leaseSeconds = positiveInteger('leaseSeconds', raw.leaseSeconds, Math.max(60, compensationTimeoutSeconds * 2));
  if (leaseSeconds <= compensationTimeoutSeconds) {
    throw new ConfigurationError(
      'INVALID_OPTION',
      'transactionsServer: "leaseSeconds" must exceed "compensationTimeoutSeconds"',
    );
  }
  const keyPrefix = raw.keyPrefix ?? 'transactions';
  if (typeof keyPrefix !== 'string' || keyPrefix.length === 0) {
    throw new ConfigurationError('INVALID_OPTION', 'transactionsServer: "keyPrefix" must be a non-empty string');
  }
  return {
    compensations,
    defaultTimeoutSeconds,
    maxTimeoutSeconds,
    retentionSeconds: positiveInteger('retentionSeconds', raw.retentionSeconds, 86_400),
    leaseSeconds,
    compensationTimeoutSeconds,
    keyPrefix,
    indexMaxLength: positiveInteger('indexMaxLength', raw.indexMaxLength, 100_000),
    now: raw.now ?? Date.now,
    logger: raw.logger,
  };
}

function definitionOf(entry: Compensation): CompensationDefinition {
  return typeof entry === 'function' ? { compensate: entry } : entry;
}

/** A structured error from anything thrown, leaking nothing of foreign errors. */
export function structuredFrom(error: unknown, fallback: StructuredError): StructuredError {
  return ExtensionError.isInstance(error) ? error.toStructured() : fallback;
}

const ERRORS_META_KEY = 'io.github.mcp-ext/errors';

function isStructuredError(value: unknown): value is StructuredError {
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as Record<string, unknown>;
  return (
    typeof candidate.code === 'string' &&
    typeof candidate.message === 'string' &&
    ['transient', 'permanent', 'auth_required', 'invalid_input', 'rate_limited'].includes(String(candidate.category))
  );
}

/** The structured error a failed tool result carries (`@ext/errors`), if any. */
export function errorOfResult(result: ToolResult): StructuredError | undefined {
  const candidate = result._meta?.[ERRORS_META_KEY];
  return isStructuredError(candidate) ? candidate : undefined;
}

/** The engine: one per `transactionsServer(...)`, shared by every server instance built from it. */
export class TransactionEngine {
  readonly options: EngineOptions;
  readonly keys: LogKeys;
  readonly #instance = randomUUID();

  constructor(options: EngineOptions) {
    this.options = options;
    this.keys = { prefix: options.keyPrefix };
  }

  compensable(tool: string): boolean {
    return Object.hasOwn(this.options.compensations, tool);
  }

  describeCompensation(tool: string): string | undefined {
    const entry = this.options.compensations[tool];
    if (!entry) return undefined;
    const definition = definitionOf(entry);
    return typeof definition.description === 'string' ? definition.description : `Undo ${tool}`;
  }

  #retentionMs(): number {
    return this.options.retentionSeconds * 1000;
  }

  #load(store: Store, principal: string, transactionId: string): Promise<TransactionRecord | undefined> {
    const key = recordKey(this.keys, principal, transactionId);
    return store.get(key).then((raw) => parseRecord(key, raw));
  }

  #update<T>(
    store: Store,
    principal: string,
    transactionId: string,
    apply: (record: TransactionRecord) => { record: TransactionRecord; value: T } | undefined,
  ): Promise<{ record: TransactionRecord; value: T | undefined; changed: boolean }> {
    return updateRecord(store, recordKey(this.keys, principal, transactionId), this.#retentionMs(), apply, () =>
      notFound(transactionId),
    );
  }

  async begin(store: Store, principal: string, params: BeginParams): Promise<BeginResult> {
    const timeout = params.timeout_seconds ?? this.options.defaultTimeoutSeconds;
    if (timeout > this.options.maxTimeoutSeconds) {
      throw new ExtensionError(
        'invalid_input',
        'INVALID_INPUT',
        `timeout_seconds ${timeout} exceeds this server's maximum of ${this.options.maxTimeoutSeconds}`,
        { details: { pointer: '/params/timeout_seconds', maximum: this.options.maxTimeoutSeconds } },
      );
    }
    const record = createTransaction({
      transaction_id: params.transaction_id,
      principal,
      timeout_seconds: timeout,
      description: params.description,
      now: this.options.now(),
    });
    // Index first: a crash after it leaves an entry the sweeper skips; the reverse would hide a live transaction.
    await store.append(indexStream(this.keys), indexEntryValue({ principal, transactionId: params.transaction_id }), {
      maxLength: this.options.indexMaxLength,
    });
    const stored = await store.setIfAbsent(recordKey(this.keys, principal, params.transaction_id), toJson(record));
    if (!stored) {
      throw new ExtensionError(
        'permanent',
        'TRANSACTION_CONFLICT',
        `Transaction "${params.transaction_id}" already exists`,
        {
          details: { transaction_id: params.transaction_id },
          suggestion: 'Use a new transaction id for a new transaction.',
        },
      );
    }
    const result: BeginResult = {
      transaction_id: record.transaction_id,
      status: 'active',
      timeout_seconds: timeout,
      expires_at: new Date(expiresAt(record)).toISOString(),
    };
    if (record.description !== undefined) result.description = record.description;
    return result;
  }

  /** Loads a transaction, rolling it back first when it has timed out. */
  async #current(
    store: Store,
    principal: string,
    transactionId: string,
    logger: Logger | undefined,
  ): Promise<TransactionRecord> {
    const record = await this.#load(store, principal, transactionId);
    if (!record) throw notFound(transactionId);
    if (isExpired(record, this.options.now())) {
      return this.rollback(store, principal, transactionId, 'timeout', undefined, logger).then(
        (outcome) => outcome.record,
      );
    }
    return record;
  }

  async commit(store: Store, principal: string, transactionId: string, logger?: Logger): Promise<CommitResult> {
    await this.#current(store, principal, transactionId, logger);
    const { record } = await this.#update(store, principal, transactionId, (current) => {
      const outcome = commit(current, this.options.now());
      return { record: outcome.record, value: undefined };
    });
    return {
      transaction_id: record.transaction_id,
      status: 'committed',
      steps_committed: record.steps.filter((step) => step.status === 'applied').length,
      committed_at: new Date(record.committed_at ?? record.last_activity_at).toISOString(),
    };
  }

  async status(store: Store, principal: string, transactionId: string, logger?: Logger): Promise<StatusResult> {
    return statusView(await this.#current(store, principal, transactionId, logger));
  }

  /**
   * Runs (or resumes, or retries) the rollback of a transaction: claims the
   * run under a lease, then compensates newest first, writing each claim
   * before the compensation runs and its outcome after.
   */
  async rollback(
    store: Store,
    principal: string,
    transactionId: string,
    trigger: RollbackTrigger,
    reason: string | undefined,
    logger: Logger | undefined,
  ): Promise<{ record: TransactionRecord; started: boolean }> {
    const owner = `${this.#instance}:${randomUUID()}`;
    const leaseMs = this.options.leaseSeconds * 1000;
    const start = await this.#update(store, principal, transactionId, (current) => {
      const outcome = startRollback(current, { trigger, reason, owner, now: this.options.now(), leaseMs });
      return { record: outcome.record, value: outcome.started };
    });
    if (start.value !== true) return { record: start.record, started: false };
    for (;;) {
      const claim = await this.#update(store, principal, transactionId, (current) => {
        const next = nextCompensation(current, owner);
        const now = this.options.now();
        if (next) return { record: claimCompensation(current, next.step_id, owner, now, leaseMs), value: next.step_id };
        return { record: finishRollback(current, owner, now), value: undefined };
      });
      const record = claim.record;
      const stepId = claim.value;
      if (stepId === undefined) return { record, started: true };
      const step = record.steps.find((candidate) => candidate.step_id === stepId);
      if (!step) throw new Error(`claimed step ${stepId} vanished from the record`);
      const outcome = await this.#compensate(store, record, step, logger);
      await this.#update(store, principal, transactionId, (current) => ({
        record: finishCompensation(current, stepId, outcome),
        value: undefined,
      }));
    }
  }

  async #compensate(
    store: Store,
    record: TransactionRecord,
    step: StepRecord,
    logger: Logger | undefined,
  ): Promise<CompensationOutcome> {
    const log = logger ?? this.options.logger;
    const entry = this.options.compensations[step.tool];
    if (!entry) {
      return {
        ok: false,
        error: {
          code: 'COMPENSATION_NOT_REGISTERED',
          message: `No compensation is registered for ${step.tool} on this server any more`,
          category: 'permanent',
          user_actionable: true,
          suggestion: `Undo the effect of ${step.tool} by hand.`,
        },
      };
    }
    const controller = new AbortController();
    const timeoutMs = this.options.compensationTimeoutSeconds * 1000;
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
      const run = Promise.resolve(
        definitionOf(entry).compensate(step.arguments, (step.result ?? { content: [] }) as ToolResult, ctx),
      );
      const timedOut = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          controller.abort();
          reject(
            new ExtensionError(
              'transient',
              'OPERATION_TIMEOUT',
              `The compensation for ${step.tool} took longer than ${this.options.compensationTimeoutSeconds} s`,
              {
                retryAfterSeconds: 1,
              },
            ),
          );
        }, timeoutMs);
      });
      await Promise.race([run, timedOut]);
      return { ok: true };
    } catch (error) {
      log?.warn(`transactions: compensation for ${step.tool} in ${record.transaction_id} failed`, {
        step_id: step.step_id,
        error: error instanceof Error ? error.message : String(error),
      });
      return {
        ok: false,
        error: structuredFrom(error, {
          code: 'COMPENSATION_FAILED',
          message: `The compensation for ${step.tool} failed`,
          category: 'transient',
          suggestion: 'Roll the transaction back again to retry the failed compensations.',
        }),
      };
    } finally {
      clearTimeout(timer);
    }
  }

  async rollbackForClient(
    store: Store,
    principal: string,
    transactionId: string,
    reason: string | undefined,
    logger?: Logger,
  ): Promise<RollbackResult> {
    const existing = await this.#load(store, principal, transactionId);
    if (!existing) throw notFound(transactionId);
    const { record } = await this.rollback(store, principal, transactionId, 'client', reason, logger);
    return rollbackResult(record);
  }

  /** Reserves a step before the tool runs. */
  async reserve(
    store: Store,
    principal: string,
    transactionId: string,
    input: { step_id?: string | undefined; tool: string; arguments: Record<string, unknown> },
    logger: Logger | undefined,
  ): Promise<string> {
    await this.#current(store, principal, transactionId, logger);
    const { value } = await this.#update(store, principal, transactionId, (current) => {
      const outcome = reserveStep(current, { ...input, now: this.options.now() });
      return { record: outcome.record, value: outcome.stepId };
    });
    if (value === undefined) throw new Error('reserveStep returned no step id');
    return value;
  }

  /** The compensation as the client sees it, computed from the step's arguments and result. */
  compensationInfo(
    tool: string,
    args: Record<string, unknown>,
    result: ToolResult,
    logger: Logger | undefined,
  ): CompensationInfo {
    const entry = this.options.compensations[tool];
    const definition = entry ? definitionOf(entry) : undefined;
    const info: CompensationInfo = { description: `Undo ${tool}` };
    try {
      if (typeof definition?.description === 'string') info.description = definition.description;
      else if (definition?.description) info.description = definition.description(args, result);
      if (definition?.tool !== undefined) info.tool = definition.tool;
      if (definition?.parameters) info.parameters = definition.parameters(args, result);
    } catch (error) {
      // The step already happened; a failing description must not lose it, so it is reported and defaulted.
      (logger ?? this.options.logger)?.warn(`transactions: describing the compensation of ${tool} failed`, {
        error: error instanceof Error ? error.message : String(error),
      });
    }
    return info;
  }

  /**
   * Records how a step ended. When its transaction was abandoned while it
   * ran and it did have an effect, the effect is compensated at once and the
   * caller is told with `TRANSACTION_CONFLICT`.
   */
  async complete(
    store: Store,
    principal: string,
    transactionId: string,
    stepId: string,
    outcome: StepOutcome,
    logger: Logger | undefined,
  ): Promise<void> {
    const { value: late } = await this.#update(store, principal, transactionId, (current) => {
      const done = completeStep(current, stepId, outcome, this.options.now());
      return { record: done.record, value: done.late };
    });
    if (late !== true) return;
    const { record } = await this.rollback(store, principal, transactionId, 'late_step', undefined, logger);
    const step = record.steps.find((candidate) => candidate.step_id === stepId);
    throw new ExtensionError(
      'permanent',
      'TRANSACTION_CONFLICT',
      `Transaction "${transactionId}" was rolled back while step "${stepId}" ran; the step's effect was ${
        step?.status === 'compensated' ? 'compensated' : 'not compensated yet'
      }`,
      {
        details: {
          transaction_id: transactionId,
          step_id: stepId,
          status: record.status,
          step_status: step?.status ?? 'unknown',
        },
      },
    );
  }

  /**
   * One pass over the log: rolls back timed-out transactions and finishes
   * rollbacks whose run died. Safe to run from many instances at once.
   */
  async sweep(store: Store, logger?: Logger): Promise<RecoveryReport> {
    const log = logger ?? this.options.logger;
    const report: RecoveryReport = { rolledBack: [], resumed: [], failed: [] };
    const lowKey = indexLowKey(this.keys);
    const lowRaw = await store.get(lowKey);
    const low = typeof lowRaw === 'string' ? lowRaw : undefined;
    let cursor = low;
    let newLow = low;
    let prefixSettled = true;
    for (;;) {
      const entries = await store.read(indexStream(this.keys), { after: cursor, limit: 200 });
      for (const entry of entries) {
        cursor = entry.id;
        const parsed = readIndexEntry(entry.value);
        let settled = true;
        if (parsed) settled = await this.#sweepOne(store, parsed.principal, parsed.transactionId, report, log);
        if (prefixSettled && settled) newLow = entry.id;
        else prefixSettled = false;
      }
      if (entries.length < 200) break;
    }
    if (newLow !== undefined && newLow !== low) {
      // Another sweeper may have moved it already; both moves are correct.
      await store.compareAndSet(lowKey, low, newLow);
    }
    return report;
  }

  async #sweepOne(
    store: Store,
    principal: string,
    transactionId: string,
    report: RecoveryReport,
    logger: Logger | undefined,
  ): Promise<boolean> {
    try {
      const record = await this.#load(store, principal, transactionId);
      if (!record || isTerminal(record)) return true;
      const now = this.options.now();
      const expired = isExpired(record, now);
      const abandoned = record.status === 'rolling_back' && (record.rollback?.lease_until ?? 0) <= now;
      if (!expired && !abandoned) return false;
      const { record: after, started } = await this.rollback(
        store,
        principal,
        transactionId,
        'timeout',
        undefined,
        logger,
      );
      if (started)
        (expired ? report.rolledBack : report.resumed).push({
          principal,
          transaction_id: transactionId,
          status: after.status,
        });
      return isTerminal(after);
    } catch (error) {
      logger?.warn(`transactions: sweeping ${transactionId} failed`, {
        error: error instanceof Error ? error.message : String(error),
      });
      report.failed.push({
        principal,
        transaction_id: transactionId,
        error: structuredFrom(error, {
          code: 'SWEEP_FAILED',
          message: 'The transaction could not be settled',
          category: 'transient',
        }),
      });
      return false;
    }
  }
}

const silentFallback: Logger = {
  warn() {
    // No logger configured anywhere: the failure is still in the record and the rollback result.
  },
};

/**
 * The transaction operations on a store: what the methods, the tool-call
 * middleware and the sweeper share. The decisions are the pure functions of
 * `machine.ts`; this file only loads, applies with compare-and-set, and has
 * compensations run.
 */
import { randomUUID } from 'node:crypto';
import { ExtensionError, type Logger, type ServerAttachment, type Store, type ToolInfo } from '@ext/core';
import type { Compensations } from './compensation.js';
import { DeclaredCompensations } from './declared-compensations.js';
import type { RecoveryReading } from './recovery-annotation.js';
import { runCompensation } from './compensation.js';
import { indexEntryValue, indexStream, parseRecord, recordKey, toJson, updateRecord, type LogKeys } from './log.js';
import {
  claimCompensation,
  commit,
  completeStep,
  createTransaction,
  finishCompensation,
  finishRollback,
  nextCompensation,
  reserveStep,
  startRollback,
  type StepOutcome,
} from './machine.js';
import type { EngineOptions } from './options.js';
import { expiresAt, isExpired, notFound, type RollbackTrigger, type TransactionRecord } from './record.js';
import { rollbackResult, statusView } from './results.js';
import type { BeginParams, BeginResult, CommitResult, RollbackResult, StatusResult } from './schema.js';

/** The engine: one per `transactionsServer(...)`, shared by every server instance built from it. */
export class TransactionEngine {
  readonly options: EngineOptions;
  readonly keys: LogKeys;
  readonly #instance = randomUUID();
  readonly #declared = new DeclaredCompensations();

  constructor(options: EngineOptions) {
    this.options = options;
    this.keys = { prefix: options.keyPrefix };
  }

  /** Whether `tool` has a compensation, so a call of it can be a step. */
  compensable(tool: string): boolean {
    return Object.hasOwn(this.compensations(), tool);
  }

  /**
   * The compensations in effect: those declared in the options, then those
   * that tools declare in `annotations.recovery` (SEP-3172); a tool in the
   * options keeps its own (TXN-24).
   */
  compensations(): Compensations {
    return this.#declared.compensations(this.options.compensations);
  }

  /** Reads the `annotations.recovery` of `tool` (again when it was registered anew). */
  learn(tool: ToolInfo): RecoveryReading {
    return this.#declared.learn(tool);
  }

  /** How the server calls its own tools (core's `runTool`, SDK v2 only): without it, annotations declare nothing. */
  useRunTool(runTool: ServerAttachment['runTool']): void {
    this.#declared.useRunTool(runTool);
  }

  #retentionMs(): number {
    return this.options.retentionSeconds * 1000;
  }

  /** The record of a caller's transaction, as stored (`undefined` when there is none). */
  load(store: Store, principal: string, transactionId: string): Promise<TransactionRecord | undefined> {
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
        {
          details: {
            field: 'timeout_seconds',
            pointer: '/params/timeout_seconds',
            maximum: this.options.maxTimeoutSeconds,
          },
        },
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
    const record = await this.load(store, principal, transactionId);
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
      const outcome = await runCompensation(
        {
          compensations: this.compensations(),
          timeoutSeconds: this.options.compensationTimeoutSeconds,
          logger: logger ?? this.options.logger,
        },
        store,
        record,
        step,
      );
      await this.#update(store, principal, transactionId, (current) => ({
        record: finishCompensation(current, stepId, outcome),
        value: undefined,
      }));
    }
  }

  async rollbackForClient(
    store: Store,
    principal: string,
    transactionId: string,
    reason: string | undefined,
    logger?: Logger,
  ): Promise<RollbackResult> {
    const existing = await this.load(store, principal, transactionId);
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
}

/**
 * The transaction state machine: plain functions from a record to the next
 * record, no I/O. The store layer applies them with compare-and-set, so two
 * processes racing on one transaction each see a consistent record and one
 * of them retries. Every refusal is an `ExtensionError` with the seed's codes.
 *
 * Transaction: active -> committed
 *              active -> rolling_back -> rolled_back | partially_rolled_back
 *              partially_rolled_back -> rolling_back (a retry of the failed compensations)
 * Step:        running -> applied | failed
 *              applied -> compensating -> compensated | compensation_failed
 *              running -> compensation_failed (outcome unknown: its transaction was abandoned mid-step)
 */
import { canonicalHash } from '@ext/core/kit';
import { type StructuredError } from '@ext/core';
import {
  busy,
  conflict,
  finalStatus,
  findStep,
  isExpired,
  isTerminal,
  notActive,
  replaceStep,
  timedOut,
  type RollbackInfo,
  type RollbackTrigger,
  type StepRecord,
  type TransactionRecord,
} from './record.js';
import type { CompensationInfo } from './schema.js';

export interface BeginInput {
  transaction_id: string;
  principal: string;
  timeout_seconds: number;
  description?: string | undefined;
  now: number;
}

export function createTransaction(input: BeginInput): TransactionRecord {
  const record: TransactionRecord = {
    v: 1,
    transaction_id: input.transaction_id,
    principal: input.principal,
    timeout_seconds: input.timeout_seconds,
    status: 'active',
    created_at: input.now,
    last_activity_at: input.now,
    step_seq: 0,
    steps: [],
  };
  if (input.description !== undefined) record.description = input.description;
  return record;
}

export interface ReserveInput {
  step_id?: string | undefined;
  tool: string;
  arguments: Record<string, unknown>;
  now: number;
}

/**
 * Writes the step into the log before the tool runs, so a crash while it
 * runs leaves a trace that recovery can see.
 */
export function reserveStep(
  record: TransactionRecord,
  input: ReserveInput,
): { record: TransactionRecord; stepId: string } {
  if (record.status !== 'active') throw notActive(record, 'add a step');
  if (isExpired(record, input.now)) throw timedOut(record);
  const seq = record.step_seq + 1;
  const stepId = input.step_id ?? `step-${seq}`;
  if (record.steps.some((step) => step.step_id === stepId)) {
    throw conflict(record, `Step "${stepId}" already exists in transaction "${record.transaction_id}"`, {
      step_id: stepId,
    });
  }
  const step: StepRecord = {
    step_id: stepId,
    tool: input.tool,
    status: 'running',
    started_at: input.now,
    arguments: input.arguments,
    attempts: 0,
  };
  return {
    record: { ...record, step_seq: seq, last_activity_at: input.now, steps: [...record.steps, step] },
    stepId,
  };
}

export type StepOutcome =
  | { ok: true; result: Record<string, unknown>; compensation: CompensationInfo }
  | { ok: false; error?: StructuredError | undefined };

/**
 * Records how a reserved step ended. `late` is true when the transaction was
 * abandoned while the step ran and the step turned out to have an effect:
 * the caller must then roll it back (trigger `late_step`).
 */
export function completeStep(
  record: TransactionRecord,
  stepId: string,
  outcome: StepOutcome,
  now: number,
): { record: TransactionRecord; late: boolean } {
  const step = findStep(record, stepId);
  const stillRunning = step.status === 'running';
  const abandoned = step.status === 'compensation_failed' && step.outcome_unknown === true;
  if (!stillRunning && !abandoned) return { record, late: false };
  const next = replaceStep(record, stepId, (current) => {
    const done: StepRecord = { ...current, finished_at: now };
    delete done.outcome_unknown;
    delete done.error;
    if (outcome.ok) {
      done.status = 'applied';
      done.result = outcome.result;
      done.compensation = outcome.compensation;
    } else {
      done.status = 'failed';
      if (outcome.error) done.error = outcome.error;
    }
    return done;
  });
  if (stillRunning && record.status === 'active') return { record: { ...next, last_activity_at: now }, late: false };
  if (!outcome.ok && isTerminal(next)) {
    // The outcome is known now and nothing happened: the rollback may be complete after all.
    return { record: { ...next, status: finalStatus(next) }, late: false };
  }
  return { record: next, late: outcome.ok };
}

export function commit(record: TransactionRecord, now: number): { record: TransactionRecord; changed: boolean } {
  if (record.status === 'committed') return { record, changed: false };
  if (record.status !== 'active') throw notActive(record, 'commit');
  if (isExpired(record, now)) throw timedOut(record);
  if (record.steps.some((step) => step.status === 'running')) {
    throw busy(record, `Cannot commit transaction "${record.transaction_id}" while a step is still running`);
  }
  return { record: { ...record, status: 'committed', committed_at: now, last_activity_at: now }, changed: true };
}

export interface StartRollbackInput {
  trigger: RollbackTrigger;
  reason?: string | undefined;
  owner: string;
  now: number;
  leaseMs: number;
}

const STEP_OUTCOME_UNKNOWN = 'STEP_OUTCOME_UNKNOWN';

/** The lease a rollback run holds while it compensates: its owner, until when, and what started the rollback. */
function lease(
  input: StartRollbackInput,
  trigger: RollbackTrigger,
  reason: string | undefined,
  startedAt: number,
): RollbackInfo {
  const info: RollbackInfo = {
    trigger,
    owner: input.owner,
    lease_until: input.now + input.leaseMs,
    started_at: startedAt,
  };
  if (reason !== undefined) info.reason = reason;
  return info;
}

type RollbackStart = { record: TransactionRecord; started: boolean };

/**
 * Claims the rollback for one run (`owner`) under a lease. Returns
 * `started: false` when there is nothing to do (already rolled back, or a
 * timeout that no longer applies). A run whose lease expired (its process
 * died) is taken over; its half-done compensation is re-run under the same
 * idempotency key.
 */
export function startRollback(record: TransactionRecord, input: StartRollbackInput): RollbackStart {
  switch (record.status) {
    case 'committed':
      if (input.trigger === 'client') throw notActive(record, 'roll back');
      return { record, started: false };
    case 'active':
      return rollbackActive(record, input);
    case 'rolling_back':
      return takeOverRollback(record, input);
    case 'rolled_back':
    case 'partially_rolled_back':
      return rollbackAgain(record, input);
  }
}

/** An active transaction starts rolling back; past its timeout a running step is presumed abandoned. */
function rollbackActive(record: TransactionRecord, input: StartRollbackInput): RollbackStart {
  const expired = isExpired(record, input.now);
  if (input.trigger === 'timeout' && !expired) return { record, started: false };
  if (input.trigger === 'late_step') return { record, started: false };
  const running = record.steps.some((step) => step.status === 'running');
  if (running && !expired) {
    throw busy(record, `Cannot roll back transaction "${record.transaction_id}" while a step is still running`);
  }
  // Past the timeout a running step is presumed abandoned; whether it had an effect is unknown.
  const steps = record.steps.map((step): StepRecord => {
    if (step.status !== 'running') return step;
    return {
      ...step,
      status: 'compensation_failed',
      outcome_unknown: true,
      error: {
        code: STEP_OUTCOME_UNKNOWN,
        message: `Step "${step.step_id}" (${step.tool}) was still running when the transaction was abandoned; its effect is unknown`,
        category: 'permanent',
        user_actionable: true,
        suggestion: `Check whether ${step.tool} took effect and undo it by hand if it did.`,
      },
    };
  });
  const trigger: RollbackTrigger =
    input.trigger === 'client' && !expired ? 'client' : expired ? 'timeout' : input.trigger;
  return {
    record: { ...record, status: 'rolling_back', steps, rollback: lease(input, trigger, input.reason, input.now) },
    started: true,
  };
}

/** A rollback already running: taken over when its run's lease expired, else left to that run. */
function takeOverRollback(record: TransactionRecord, input: StartRollbackInput): RollbackStart {
  const current = record.rollback;
  if (current && current.owner !== input.owner && current.lease_until > input.now) {
    if (input.trigger === 'client') {
      throw busy(record, `Transaction "${record.transaction_id}" is being rolled back; ask again shortly`);
    }
    return { record, started: false };
  }
  return {
    record: {
      ...record,
      rollback: lease(
        input,
        current?.trigger ?? input.trigger,
        current?.reason ?? input.reason,
        current?.started_at ?? input.now,
      ),
    },
    started: true,
  };
}

/** A finished rollback runs again for a late step's effect, or for a client retrying failed compensations. */
function rollbackAgain(record: TransactionRecord, input: StartRollbackInput): RollbackStart {
  const hasApplied = record.steps.some((step) => step.status === 'applied');
  const retriable = record.steps.some(
    (step) => step.status === 'compensation_failed' && step.outcome_unknown !== true && step.result !== undefined,
  );
  const wanted = input.trigger === 'late_step' ? hasApplied : input.trigger === 'client' && (hasApplied || retriable);
  if (!wanted) return { record, started: false };
  // A client asking again retries the compensations that failed, under the same keys.
  const steps =
    input.trigger === 'client'
      ? record.steps.map((step): StepRecord => {
          if (step.status !== 'compensation_failed' || step.outcome_unknown === true || step.result === undefined)
            return step;
          const retried: StepRecord = { ...step, status: 'applied' };
          delete retried.error;
          return retried;
        })
      : record.steps;
  const previous = record.rollback;
  return {
    record: {
      ...record,
      status: 'rolling_back',
      steps,
      rollback: lease(
        input,
        previous?.trigger ?? input.trigger,
        input.reason ?? previous?.reason,
        previous?.started_at ?? input.now,
      ),
    },
    started: true,
  };
}

function assertOwner(record: TransactionRecord, owner: string, now: number): void {
  if (record.status !== 'rolling_back' || record.rollback?.owner !== owner) {
    throw busy(record, `This rollback run of transaction "${record.transaction_id}" lost its lease`);
  }
  if (record.rollback.lease_until <= now) {
    throw busy(record, `This rollback run of transaction "${record.transaction_id}" outlived its lease`);
  }
}

/**
 * The next step to compensate, newest first: an applied step, or one whose
 * compensation a previous (dead) run claimed but never finished.
 */
export function nextCompensation(record: TransactionRecord, owner: string): StepRecord | undefined {
  for (let index = record.steps.length - 1; index >= 0; index -= 1) {
    const step = record.steps[index];
    if (!step) continue;
    if (step.status === 'applied') return step;
    if (step.status === 'compensating' && step.claimed_by !== owner) return step;
  }
  return undefined;
}

/** Marks a step's compensation as started (write-ahead) and renews the run's lease. */
export function claimCompensation(
  record: TransactionRecord,
  stepId: string,
  owner: string,
  now: number,
  leaseMs: number,
): TransactionRecord {
  assertOwner(record, owner, now);
  const step = findStep(record, stepId);
  const claimable = step.status === 'applied' || (step.status === 'compensating' && step.claimed_by !== owner);
  if (!claimable)
    throw conflict(record, `Step "${stepId}" cannot be compensated now: it is ${step.status}`, { step_id: stepId });
  const renewed = { ...record, rollback: { ...record.rollback, lease_until: now + leaseMs } as RollbackInfo };
  return replaceStep(renewed, stepId, (current) => ({
    ...current,
    status: 'compensating',
    attempts: current.attempts + 1,
    claimed_by: owner,
  }));
}

export type CompensationOutcome = { ok: true } | { ok: false; error: StructuredError };

/**
 * Records how a compensation ended. A success is kept even when another run
 * took the step over meanwhile: the effect is undone either way.
 */
export function finishCompensation(
  record: TransactionRecord,
  stepId: string,
  outcome: CompensationOutcome,
): TransactionRecord {
  const step = findStep(record, stepId);
  if (step.status !== 'compensating') return record;
  return replaceStep(record, stepId, (current) => {
    const done: StepRecord = { ...current, status: outcome.ok ? 'compensated' : 'compensation_failed' };
    if (outcome.ok) delete done.error;
    else done.error = outcome.error;
    return done;
  });
}

/** Ends a rollback run once no step is left to compensate. */
export function finishRollback(record: TransactionRecord, owner: string, now: number): TransactionRecord {
  assertOwner(record, owner, now);
  const pending = record.steps.find((step) => ['applied', 'compensating', 'running'].includes(step.status));
  if (pending)
    throw conflict(record, `Step "${pending.step_id}" is still ${pending.status}`, { step_id: pending.step_id });
  const rollback: RollbackInfo = { ...(record.rollback as RollbackInfo), finished_at: now };
  return { ...record, status: finalStatus(record), rollback };
}

/**
 * The idempotency key a step's compensation runs under: stable for a
 * (principal, transaction, step), so a re-run after a crash can be
 * recognised downstream, and within the idempotency key alphabet.
 */
export function compensationKey(principal: string, transactionId: string, stepId: string): string {
  return `txc-${canonicalHash([principal, transactionId, stepId]).slice(0, 48)}`;
}

/**
 * The transaction record as the log keeps it: its types, what can be read
 * off it, and the refusals the transitions share (`ExtensionError`s with the seed's codes).
 */
import { ExtensionError, type StructuredError } from '@ext/core';
import type { CompensationInfo } from './schema.js';

export type TransactionStatus = 'active' | 'rolling_back' | 'committed' | 'rolled_back' | 'partially_rolled_back';
export type StepStatus = 'running' | 'applied' | 'failed' | 'compensating' | 'compensated' | 'compensation_failed';
export type RollbackTrigger = 'client' | 'timeout' | 'late_step';

export interface StepRecord {
  step_id: string;
  tool: string;
  status: StepStatus;
  started_at: number;
  finished_at?: number;
  /** The arguments the tool ran with, for its compensation. */
  arguments: Record<string, unknown>;
  /** The tool's result, for its compensation. */
  result?: Record<string, unknown>;
  compensation?: CompensationInfo;
  /** How many times a compensation was started for this step. */
  attempts: number;
  /** The rollback run that claimed the compensation last. */
  claimed_by?: string;
  /** The step's failure, or its compensation's. */
  error?: StructuredError;
  /** The step was running when its transaction was abandoned: it may or may not have had an effect. */
  outcome_unknown?: boolean;
}

export interface RollbackInfo {
  trigger: RollbackTrigger;
  reason?: string;
  /** The rollback run that holds the lease. */
  owner: string;
  lease_until: number;
  started_at: number;
  finished_at?: number;
}

export interface TransactionRecord {
  v: 1;
  transaction_id: string;
  principal: string;
  description?: string;
  timeout_seconds: number;
  status: TransactionStatus;
  created_at: number;
  last_activity_at: number;
  committed_at?: number;
  step_seq: number;
  steps: StepRecord[];
  rollback?: RollbackInfo;
}

const TERMINAL: readonly TransactionStatus[] = ['committed', 'rolled_back', 'partially_rolled_back'];

export function isTerminal(record: TransactionRecord): boolean {
  return TERMINAL.includes(record.status);
}

export function conflict(
  record: TransactionRecord,
  message: string,
  extra: Record<string, unknown> = {},
): ExtensionError {
  return new ExtensionError('permanent', 'TRANSACTION_CONFLICT', message, {
    details: { transaction_id: record.transaction_id, status: record.status, ...extra },
    userActionable: false,
  });
}

export function busy(record: TransactionRecord, message: string): ExtensionError {
  return new ExtensionError('transient', 'TRANSACTION_CONFLICT', message, {
    details: { transaction_id: record.transaction_id, status: record.status },
    retryAfterSeconds: 1,
  });
}

export function notFound(transactionId: string): ExtensionError {
  return new ExtensionError(
    'permanent',
    'RESOURCE_NOT_FOUND',
    `No transaction "${transactionId}" exists for this caller`,
    {
      details: { transaction_id: transactionId },
      suggestion: 'Begin a transaction first, or check the transaction id.',
    },
  );
}

/** When an active transaction times out: its timeout after the last activity (begin, a step starting or finishing). */
export function expiresAt(record: TransactionRecord): number {
  return record.last_activity_at + record.timeout_seconds * 1000;
}

export function isExpired(record: TransactionRecord, now: number): boolean {
  return record.status === 'active' && now >= expiresAt(record);
}

export function timedOut(record: TransactionRecord): ExtensionError {
  return conflict(
    record,
    `Transaction "${record.transaction_id}" timed out after ${record.timeout_seconds} s without activity`,
    {
      timed_out: true,
    },
  );
}

export function notActive(record: TransactionRecord, action: string): ExtensionError {
  return conflict(
    record,
    `Cannot ${action}: transaction "${record.transaction_id}" is ${record.status.replaceAll('_', ' ')}`,
  );
}

export function replaceStep(
  record: TransactionRecord,
  stepId: string,
  update: (step: StepRecord) => StepRecord,
): TransactionRecord {
  return { ...record, steps: record.steps.map((step) => (step.step_id === stepId ? update(step) : step)) };
}

export function findStep(record: TransactionRecord, stepId: string): StepRecord {
  const step = record.steps.find((candidate) => candidate.step_id === stepId);
  if (!step)
    throw conflict(record, `Step "${stepId}" is not part of transaction "${record.transaction_id}"`, {
      step_id: stepId,
    });
  return step;
}

export function finalStatus(record: TransactionRecord): TransactionStatus {
  // Anything not provably undone (a failed compensation, a late step still waiting for one) makes it partial.
  return record.steps.every((step) => step.status === 'failed' || step.status === 'compensated')
    ? 'rolled_back'
    : 'partially_rolled_back';
}

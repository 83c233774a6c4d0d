/**
 * Sagas across servers: one transaction per server, every step marked,
 * everything committed at the end, or rolled back, the server used last first.
 */
import { randomUUID } from 'node:crypto';
import { deprecatedAliases } from '@ext/core/kit';
import { type ExtendedClient, type StructuredError, type ToolResult } from '@ext/core';
import type { CompensatedStep } from './schema.js';
import { structuredErrorOf } from './structured-errors.js';
import { beginTransaction, readStepMeta, type ClientTransaction } from './transaction.js';

/** One step of a saga: a tool call on one of the participating servers. */
export interface SagaStep {
  readonly client: ExtendedClient;
  /** How the report names this server. Default: `server-<n>` in order of first use. */
  readonly server?: string | undefined;
  readonly tool: string;
  /** The arguments, or a function of the results of the previous steps. */
  readonly arguments?:
    Record<string, unknown> | ((previous: readonly ToolResult[]) => Record<string, unknown>) | undefined;
  readonly stepId?: string | undefined;
}

export interface SagaOptions {
  /** Prefix of the transaction ids (one per server). Default `saga-<uuid>`. */
  readonly idPrefix?: string | undefined;
  readonly timeoutSeconds?: number | undefined;
  readonly description?: string | undefined;
  /** Sent with every rollback. Default: names the failed step. */
  readonly reason?: string | undefined;
}

/** What became of one server's transaction. */
export interface SagaParticipant {
  readonly server: string;
  readonly transactionId: string;
  /** `unknown` when the server could not be asked (its rollback or commit request failed). */
  readonly status: 'active' | 'committed' | 'rolled_back' | 'partially_rolled_back' | 'unknown';
  /** Step ids recorded on this server, in order. */
  readonly steps: readonly string[];
  /** What the server's rollback undid, as its rollback result or status reports it. */
  readonly stepsCompensated?: readonly CompensatedStep[] | undefined;
  readonly error?: StructuredError | undefined;
  /** @deprecated Use `transactionId`; the snake_case spelling goes in the next major. */
  readonly transaction_id: string;
  /** @deprecated Use `stepsCompensated`; the snake_case spelling goes in the next major. */
  readonly steps_compensated?: readonly CompensatedStep[] | undefined;
}

export interface SagaFailure {
  readonly phase: 'begin' | 'step' | 'commit';
  /** Index in the steps array (for `step`), or of the first step on the server (for `begin`/`commit`). */
  readonly index: number;
  readonly server: string;
  readonly tool?: string | undefined;
  readonly error: StructuredError;
}

export type SagaOutcome =
  | {
      readonly status: 'committed';
      readonly results: readonly ToolResult[];
      readonly participants: readonly SagaParticipant[];
    }
  | {
      /** `rolled_back` when every effect was undone; `partially_rolled_back` when something was not. */
      readonly status: 'rolled_back' | 'partially_rolled_back';
      readonly failure: SagaFailure;
      readonly results: readonly ToolResult[];
      readonly participants: readonly SagaParticipant[];
    };

interface Participant {
  server: string;
  transaction: ClientTransaction | undefined;
  firstIndex: number;
  lastIndex: number;
  steps: string[];
  status: SagaParticipant['status'];
  stepsCompensated?: CompensatedStep[];
  error?: StructuredError;
}

function report(participant: Participant): SagaParticipant {
  const entry: Omit<SagaParticipant, 'transaction_id' | 'steps_compensated'> = {
    server: participant.server,
    transactionId: participant.transaction?.id ?? '',
    status: participant.status,
    steps: [...participant.steps],
    ...(participant.stepsCompensated ? { stepsCompensated: participant.stepsCompensated } : {}),
    ...(participant.error ? { error: participant.error } : {}),
  };
  return deprecatedAliases('@ext/transactions SagaParticipant', entry, {
    transaction_id: 'transactionId',
    steps_compensated: 'stepsCompensated',
  }) as SagaParticipant;
}

/**
 * Runs steps across several servers as one saga: one transaction per server
 * (begun at its first step), each call marked as a step, every transaction
 * committed at the end. When a step fails, the transactions are rolled back,
 * the server used last first, and the outcome says what each server undid.
 */
export async function runSaga(steps: readonly SagaStep[], options: SagaOptions = {}): Promise<SagaOutcome> {
  const participants = new Map<ExtendedClient, Participant>();
  const results: ToolResult[] = [];
  const failedStep = await runSteps(steps, options, participants, results);
  const ordered = [...participants.values()];
  const failure = failedStep ?? (await commitAll(ordered));
  if (!failure) return { status: 'committed', results, participants: ordered.map(report) };

  const reason =
    options.reason ?? `saga step ${failure.index} (${failure.tool ?? failure.phase}) on ${failure.server} failed`;
  const toUndo = ordered
    .filter(
      (participant) =>
        participant.status === 'active' || (participant.status === 'unknown' && failure.phase === 'commit'),
    )
    .sort((a, b) => b.lastIndex - a.lastIndex);
  for (const participant of toUndo) await rollBack(participant, reason);
  const undone = ordered.every(
    (participant) =>
      participant.status === 'rolled_back' || (participant.steps.length === 0 && participant.status !== 'committed'),
  );
  return {
    status: undone ? 'rolled_back' : 'partially_rolled_back',
    failure,
    results,
    participants: ordered.map(report),
  };
}

/** Runs the steps in order, each server's transaction begun at its first step; the first failure stops them. */
async function runSteps(
  steps: readonly SagaStep[],
  options: SagaOptions,
  participants: Map<ExtendedClient, Participant>,
  results: ToolResult[],
): Promise<SagaFailure | undefined> {
  const prefix = options.idPrefix ?? `saga-${randomUUID()}`;
  for (const [index, step] of steps.entries()) {
    let participant = participants.get(step.client);
    if (!participant) {
      const joined = await join(step, index, `${prefix}-${participants.size + 1}`, options, participants);
      if ('failure' in joined) return joined.failure;
      participant = joined.participant;
    }
    participant.lastIndex = index;
    const transaction = participant.transaction;
    if (!transaction) return undefined;
    const args = typeof step.arguments === 'function' ? step.arguments(results) : (step.arguments ?? {});
    try {
      const result = await transaction.callTool(step.tool, args, { stepId: step.stepId });
      const meta = readStepMeta(result);
      if (meta?.status === 'ok') participant.steps.push(meta.step_id);
      if (result.isError === true) {
        return { phase: 'step', index, server: participant.server, tool: step.tool, error: structuredErrorOf(result) };
      }
      results.push(result);
    } catch (error) {
      return { phase: 'step', index, server: participant.server, tool: step.tool, error: structuredErrorOf(error) };
    }
  }
  return undefined;
}

/** Adds the server of `step` to the saga and begins its transaction; a server that refuses is left out. */
async function join(
  step: SagaStep,
  index: number,
  transactionId: string,
  options: SagaOptions,
  participants: Map<ExtendedClient, Participant>,
): Promise<{ participant: Participant } | { failure: SagaFailure }> {
  const participant: Participant = {
    server: step.server ?? `server-${participants.size + 1}`,
    transaction: undefined,
    firstIndex: index,
    lastIndex: index,
    steps: [],
    status: 'active',
  };
  participants.set(step.client, participant);
  try {
    participant.transaction = await beginTransaction(step.client, {
      transactionId,
      timeoutSeconds: options.timeoutSeconds,
      description: options.description,
    });
    return { participant };
  } catch (error) {
    participants.delete(step.client);
    const failure: SagaFailure = {
      phase: 'begin',
      index,
      server: participant.server,
      tool: step.tool,
      error: structuredErrorOf(error),
    };
    return { failure };
  }
}

/** Commits every transaction in order; the first that fails stops the others. */
async function commitAll(ordered: readonly Participant[]): Promise<SagaFailure | undefined> {
  for (const participant of ordered) {
    const transaction = participant.transaction;
    if (!transaction) continue;
    try {
      await transaction.commit();
      participant.status = 'committed';
    } catch (error) {
      participant.status = 'unknown';
      participant.error = structuredErrorOf(error);
      return { phase: 'commit', index: participant.firstIndex, server: participant.server, error: participant.error };
    }
  }
  return undefined;
}

/** Rolls one server's transaction back, or, when that fails, reads what became of it. */
async function rollBack(participant: Participant, reason: string): Promise<void> {
  const transaction = participant.transaction;
  if (!transaction) return;
  try {
    const outcome = await transaction.rollback(reason);
    participant.status = outcome.status;
    participant.stepsCompensated = outcome.steps_compensated;
  } catch (error) {
    // A transaction the server already settled (e.g. timed out and rolled back) reports its state instead.
    const structured = structuredErrorOf(error);
    participant.error = structured;
    participant.status = 'unknown';
    try {
      const status = await transaction.status();
      if (
        status.status === 'rolled_back' ||
        status.status === 'partially_rolled_back' ||
        status.status === 'committed'
      ) {
        participant.status = status.status;
        if (status.steps_compensated) participant.stepsCompensated = status.steps_compensated;
      }
    } catch (statusError) {
      participant.error = {
        ...structured,
        details: { ...(structured.details ?? {}), status_error: structuredErrorOf(statusError).code },
      };
    }
  }
}

import { randomUUID } from 'node:crypto';
import type { TSchema, Static } from 'typebox';
import { Compile } from 'typebox/compile';
import {
  ERROR_CATEGORIES,
  ExtensionError,
  WireError,
  type CallToolOptions,
  type ClientExtension,
  type ExtendedClient,
  type NegotiatedExtension,
  type StructuredError,
  type ToolResult,
} from '@ext/core';
import {
  BeginResult,
  CommitResult,
  EXTENSION_ID,
  PACKAGE_NAME,
  RollbackResult,
  ServerSettings,
  StatusResult,
  StepResultMeta,
  WIRE_VERSION,
  type CompensatedStep,
} from './schema.js';

/** The client half: advertises the extension so the server knows steps will be marked. */
export function transactionsClient(): ClientExtension {
  return {
    side: 'client',
    name: PACKAGE_NAME,
    ids: [EXTENSION_ID],
    settings: { version: WIRE_VERSION },
    peerSettings: ServerSettings,
    requires: ['@ext/idempotency'],
  };
}

/** The server's transactions settings, or `undefined` when the extension was not negotiated. */
export function getTransactionsSettings(
  client: Pick<ExtendedClient, 'negotiated'>,
): NegotiatedExtension<ServerSettings> | undefined {
  return client.negotiated<ServerSettings>(PACKAGE_NAME);
}

const validators = new WeakMap<TSchema, ReturnType<typeof Compile>>();

function validatorOf(schema: TSchema): ReturnType<typeof Compile> {
  let validator = validators.get(schema);
  if (!validator) {
    validator = Compile(schema);
    validators.set(schema, validator);
  }
  return validator;
}

function checkResponse<S extends TSchema>(schema: S, value: unknown, method: string): Static<S> {
  const validator = validatorOf(schema);
  if (validator.Check(value)) return value as Static<S>;
  const first = validator.Errors(value)[0];
  throw new ExtensionError(
    'permanent',
    'INVALID_RESPONSE',
    `${method} answered with an invalid result at ${first?.instancePath || '/'}`,
    {
      details: { pointer: first?.instancePath ?? '' },
    },
  );
}

function isStructured(value: unknown): value is StructuredError {
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as Record<string, unknown>;
  return (
    typeof candidate.code === 'string' &&
    typeof candidate.message === 'string' &&
    (ERROR_CATEGORIES as readonly unknown[]).includes(candidate.category)
  );
}

/** An `ExtensionError` for a structured error object received from a peer. */
function fromStructured(error: StructuredError, cause: unknown): ExtensionError {
  return new ExtensionError(error.category, error.code, error.message, {
    cause,
    ...(error.retry_after_seconds !== undefined ? { retryAfterSeconds: error.retry_after_seconds } : {}),
    ...(error.user_actionable !== undefined ? { userActionable: error.user_actionable } : {}),
    ...(error.suggestion !== undefined ? { suggestion: error.suggestion } : {}),
    ...(error.details !== undefined ? { details: error.details } : {}),
    ...(error.documentation_url !== undefined ? { documentationUrl: error.documentation_url } : {}),
  });
}

/**
 * The structured error behind any failure: a method's JSON-RPC error data,
 * a tool result's `_meta["io.github.mcp-ext/errors"]`, an `ExtensionError`.
 */
export function structuredErrorOf(failure: unknown): StructuredError {
  if (ExtensionError.isInstance(failure)) return failure.toStructured();
  if (WireError.isInstance(failure)) {
    if (isStructured(failure.data)) return failure.data;
    return { code: 'PROTOCOL_ERROR', message: failure.message, category: 'permanent', details: { code: failure.code } };
  }
  if (typeof failure === 'object' && failure !== null && 'content' in failure) {
    const result = failure as ToolResult;
    const meta = result._meta?.['io.github.mcp-ext/errors'];
    if (isStructured(meta)) return meta;
    const text = result.content.find((block) => block.type === 'text')?.text;
    return { code: 'TOOL_FAILED', message: typeof text === 'string' ? text : 'The tool failed', category: 'permanent' };
  }
  return {
    code: 'UNKNOWN_ERROR',
    message: failure instanceof Error ? failure.message : String(failure),
    category: 'transient',
  };
}

function negotiatedId(client: ExtendedClient): string {
  const negotiated = getTransactionsSettings(client);
  if (!negotiated) {
    throw new ExtensionError('permanent', 'TRANSACTIONS_NOT_SUPPORTED', 'The server does not support transactions', {
      suggestion: 'Run the calls without a transaction, or use a server that composes @ext/transactions.',
    });
  }
  return negotiated.id;
}

async function call(client: ExtendedClient, method: string, params: Record<string, unknown>): Promise<unknown> {
  try {
    return await client.request(method, params);
  } catch (error) {
    if (WireError.isInstance(error) && isStructured(error.data)) throw fromStructured(error.data, error);
    throw error;
  }
}

/** `result._meta[<id>]` of a step, when the result carries a valid one. */
export function readStepMeta(result: ToolResult): StepResultMeta | undefined {
  const meta = result._meta?.[EXTENSION_ID];
  if (meta === undefined) return undefined;
  return validatorOf(StepResultMeta).Check(meta) ? (meta as StepResultMeta) : undefined;
}

export interface BeginTransactionOptions {
  /** Default: `tx-<uuid>`. */
  readonly transactionId?: string | undefined;
  /** Default: the server's default (300 s unless configured). */
  readonly timeoutSeconds?: number | undefined;
  readonly description?: string | undefined;
}

export interface StepCallOptions extends CallToolOptions {
  /** Your id for the step; the server numbers steps when absent. */
  readonly stepId?: string | undefined;
}

/** An open transaction on one server. */
export interface ClientTransaction {
  readonly id: string;
  readonly client: ExtendedClient;
  readonly begun: BeginResult;
  /** The recorded steps so far, as the server reported them. */
  readonly steps: readonly StepResultMeta[];
  /** Calls a tool as a step of this transaction. */
  callTool(name: string, args?: Record<string, unknown>, options?: StepCallOptions): Promise<ToolResult>;
  commit(): Promise<CommitResult>;
  rollback(reason?: string): Promise<RollbackResult>;
  status(): Promise<StatusResult>;
}

/**
 * Begins a transaction on the server behind `client`. Throws
 * `TRANSACTIONS_NOT_SUPPORTED` when the server did not negotiate the
 * extension, and the server's structured error (as an `ExtensionError`)
 * when it refuses.
 */
export async function beginTransaction(
  client: ExtendedClient,
  options: BeginTransactionOptions = {},
): Promise<ClientTransaction> {
  const id = negotiatedId(client);
  const transactionId = options.transactionId ?? `tx-${randomUUID()}`;
  const params: Record<string, unknown> = { transaction_id: transactionId };
  if (options.timeoutSeconds !== undefined) params.timeout_seconds = options.timeoutSeconds;
  if (options.description !== undefined) params.description = options.description;
  const begun = checkResponse(BeginResult, await call(client, `${id}/begin`, params), `${id}/begin`);
  const steps: StepResultMeta[] = [];
  return {
    id: transactionId,
    client,
    begun,
    steps,
    async callTool(name, args = {}, stepOptions = {}) {
      const marker: Record<string, unknown> = { transaction_id: transactionId };
      if (stepOptions.stepId !== undefined) marker.step_id = stepOptions.stepId;
      const result = await client.callTool(name, args, {
        ...stepOptions,
        meta: { ...(stepOptions.meta ?? {}), [id]: marker },
      });
      const meta = readStepMeta(result);
      if (meta?.status === 'ok') steps.push(meta);
      return result;
    },
    async commit() {
      return checkResponse(
        CommitResult,
        await call(client, `${id}/commit`, { transaction_id: transactionId }),
        `${id}/commit`,
      );
    },
    async rollback(reason) {
      const params: Record<string, unknown> = { transaction_id: transactionId };
      if (reason !== undefined) params.reason = reason;
      return checkResponse(RollbackResult, await call(client, `${id}/rollback`, params), `${id}/rollback`);
    },
    async status() {
      return checkResponse(
        StatusResult,
        await call(client, `${id}/status`, { transaction_id: transactionId }),
        `${id}/status`,
      );
    },
  };
}

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
  readonly transaction_id: string;
  /** `unknown` when the server could not be asked (its rollback or commit request failed). */
  readonly status: 'active' | 'committed' | 'rolled_back' | 'partially_rolled_back' | 'unknown';
  /** Step ids recorded on this server, in order. */
  readonly steps: readonly string[];
  readonly steps_compensated?: readonly CompensatedStep[] | undefined;
  readonly error?: StructuredError | undefined;
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
  return {
    server: participant.server,
    transaction_id: participant.transaction?.id ?? '',
    status: participant.status,
    steps: [...participant.steps],
    ...(participant.stepsCompensated ? { steps_compensated: participant.stepsCompensated } : {}),
    ...(participant.error ? { error: participant.error } : {}),
  };
}

/**
 * Runs steps across several servers as one saga: one transaction per server
 * (begun at its first step), each call marked as a step, every transaction
 * committed at the end. When a step fails, the transactions are rolled back,
 * the server used last first, and the outcome says what each server undid.
 */
export async function runSaga(steps: readonly SagaStep[], options: SagaOptions = {}): Promise<SagaOutcome> {
  const prefix = options.idPrefix ?? `saga-${randomUUID()}`;
  const participants = new Map<ExtendedClient, Participant>();
  const results: ToolResult[] = [];
  let failure: SagaFailure | undefined;

  for (const [index, step] of steps.entries()) {
    let participant = participants.get(step.client);
    if (!participant) {
      participant = {
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
          transactionId: `${prefix}-${participants.size}`,
          timeoutSeconds: options.timeoutSeconds,
          description: options.description,
        });
      } catch (error) {
        participants.delete(step.client);
        failure = {
          phase: 'begin',
          index,
          server: participant.server,
          tool: step.tool,
          error: structuredErrorOf(error),
        };
        break;
      }
    }
    participant.lastIndex = index;
    const transaction = participant.transaction;
    if (!transaction) break;
    const args = typeof step.arguments === 'function' ? step.arguments(results) : (step.arguments ?? {});
    try {
      const result = await transaction.callTool(step.tool, args, { stepId: step.stepId });
      const meta = readStepMeta(result);
      if (meta?.status === 'ok') participant.steps.push(meta.step_id);
      if (result.isError === true) {
        failure = {
          phase: 'step',
          index,
          server: participant.server,
          tool: step.tool,
          error: structuredErrorOf(result),
        };
        break;
      }
      results.push(result);
    } catch (error) {
      failure = { phase: 'step', index, server: participant.server, tool: step.tool, error: structuredErrorOf(error) };
      break;
    }
  }

  const ordered = [...participants.values()];
  if (!failure) {
    for (const participant of ordered) {
      const transaction = participant.transaction;
      if (!transaction) continue;
      try {
        await transaction.commit();
        participant.status = 'committed';
      } catch (error) {
        participant.status = 'unknown';
        participant.error = structuredErrorOf(error);
        failure = {
          phase: 'commit',
          index: participant.firstIndex,
          server: participant.server,
          error: participant.error,
        };
        break;
      }
    }
    if (!failure) return { status: 'committed', results, participants: ordered.map(report) };
  }

  const reason =
    options.reason ?? `saga step ${failure.index} (${failure.tool ?? failure.phase}) on ${failure.server} failed`;
  const toUndo = ordered
    .filter(
      (participant) =>
        participant.status === 'active' || (participant.status === 'unknown' && failure.phase === 'commit'),
    )
    .sort((a, b) => b.lastIndex - a.lastIndex);
  for (const participant of toUndo) {
    const transaction = participant.transaction;
    if (!transaction) continue;
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

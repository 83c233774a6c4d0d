/**
 * One transaction on one server, from the client: begin it, call tools as
 * its steps, commit, roll back or ask for its status; every answer checked.
 */
import { randomUUID } from 'node:crypto';
import type { Static, TSchema } from 'typebox';
import { ExtensionError, WireError, type CallToolOptions, type ExtendedClient, type ToolResult } from '@ext/core';
import { validatorOf } from './input.js';
import { BeginResult, CommitResult, RollbackResult, StatusResult, StepResultMeta, TRANSACTIONS_ID } from './schema.js';
import { getTransactionsSettings } from './settings.js';
import { fromStructured, isStructuredError } from './structured-errors.js';

function checkResponse<S extends TSchema>(schema: S, value: unknown, method: string): Static<S> {
  const validator = validatorOf(schema);
  if (validator.Check(value)) return value;
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
    if (WireError.isInstance(error) && isStructuredError(error.data)) throw fromStructured(error.data, error);
    throw error;
  }
}

/** `result._meta[<id>]` of a step, when the result carries a valid one. */
export function readStepMeta(result: ToolResult): StepResultMeta | undefined {
  const meta = result._meta?.[TRANSACTIONS_ID];
  if (meta === undefined) return undefined;
  return validatorOf(StepResultMeta).Check(meta) ? meta : undefined;
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

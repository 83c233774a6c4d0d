/**
 * What the client half asks the host's user about: the `ConfirmCallback`
 * request in its three kinds, built camelCase, with the snake_case spellings
 * of 0.1 kept as deprecated getters that warn once.
 */
import { deprecatedAliases } from '@ext/core/kit';
import type { RiskLevel } from './schema.js';

/** One call waiting for the user's decision. */
export interface PendingConfirmation {
  readonly tool: string;
  readonly arguments: Readonly<Record<string, unknown>>;
  /** The server's message, placeholders filled in with the arguments. */
  readonly message: string;
  readonly riskLevel: RiskLevel;
  /** When the approval lapses (ISO 8601); absent for in-band prompts. */
  readonly expiresAt?: string | undefined;
  /** @deprecated Use `riskLevel`; the snake_case spelling goes in the next major. */
  readonly risk_level: RiskLevel;
  /** @deprecated Use `expiresAt`; the snake_case spelling goes in the next major. */
  readonly expires_at?: string | undefined;
}

/** A batch of held calls, approved or declined together. */
export interface BatchConfirmation {
  readonly kind: 'batch';
  readonly calls: readonly PendingConfirmation[];
  /** The highest risk level among the calls. */
  readonly riskLevel: RiskLevel;
  /** @deprecated Use `riskLevel`; the snake_case spelling goes in the next major. */
  readonly risk_level: RiskLevel;
}

/** A bounded, time-boxed approval of several calls of one tool. */
export interface GrantConfirmation {
  readonly kind: 'grant';
  readonly tool: string;
  readonly maxCalls: number;
  readonly durationSeconds: number;
  /** @deprecated Use `maxCalls`; the snake_case spelling goes in the next major. */
  readonly max_calls: number;
  /** @deprecated Use `durationSeconds`; the snake_case spelling goes in the next major. */
  readonly duration_seconds: number;
}

/** What the host is asked to show its user: one dialog, whatever the path. */
export type ConfirmationRequest =
  | ({ readonly kind: 'call'; readonly via: 'token' | 'elicitation' } & PendingConfirmation)
  | BatchConfirmation
  | GrantConfirmation;

/** Implemented by the host (terminal prompt, web dialog): `true` only when the user explicitly approved. */
export type ConfirmCallback = (request: ConfirmationRequest) => Promise<boolean>;

/** The fields of a request as the package fills them in: the camelCase ones. */
type Fields<T> = Omit<T, 'risk_level' | 'expires_at' | 'max_calls' | 'duration_seconds'>;

const WHERE = '@ext/confirmation ConfirmCallback request';

const PENDING_RENAMES = { risk_level: 'riskLevel', expires_at: 'expiresAt' };

/** A pending call, with its deprecated spellings. */
export function pendingConfirmation(fields: Fields<PendingConfirmation>): PendingConfirmation {
  return deprecatedAliases(WHERE, { ...fields }, PENDING_RENAMES) as PendingConfirmation;
}

/** The request for one call, with its deprecated spellings. */
export function callConfirmation(
  via: 'token' | 'elicitation',
  fields: Fields<PendingConfirmation>,
): Extract<ConfirmationRequest, { kind: 'call' }> {
  const { tool, arguments: args, message, riskLevel, expiresAt } = fields;
  const request = {
    kind: 'call' as const,
    via,
    tool,
    arguments: args,
    message,
    riskLevel,
    ...(expiresAt === undefined ? {} : { expiresAt }),
  };
  return deprecatedAliases(WHERE, request, PENDING_RENAMES) as Extract<ConfirmationRequest, { kind: 'call' }>;
}

export function batchConfirmation(calls: readonly PendingConfirmation[], riskLevel: RiskLevel): BatchConfirmation {
  return deprecatedAliases(
    WHERE,
    { kind: 'batch', calls, riskLevel },
    { risk_level: 'riskLevel' },
  ) as BatchConfirmation;
}

export function grantConfirmation(tool: string, maxCalls: number, durationSeconds: number): GrantConfirmation {
  return deprecatedAliases(
    WHERE,
    { kind: 'grant', tool, maxCalls, durationSeconds },
    { max_calls: 'maxCalls', duration_seconds: 'durationSeconds' },
  ) as GrantConfirmation;
}

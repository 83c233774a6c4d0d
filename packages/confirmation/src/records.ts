/**
 * What the server keeps per token, grant and in-band question, the store
 * keys (digests of the secrets), and the checks that decide whether a
 * stored approval covers a use. Pure: the store I/O is the server's.
 */
import { createHash } from 'node:crypto';
import { isRecord, type JsonValue } from '@ext/core/kit';
import { isRiskLevel } from './logic.js';
import type { RiskLevel } from './schema.js';

/** Store keys hold a digest of the token, so a copy of the store cannot approve anything. */
export function secretDigest(secret: string): string {
  return createHash('sha256').update(secret).digest('base64url');
}

/** Store key of one issued token. */
export function tokenKey(prefix: string, token: string): string {
  return `${prefix}:token:${secretDigest(token)}`;
}

/** Store key of one grant. */
export function grantKey(prefix: string, grantId: string): string {
  return `${prefix}:grant:${secretDigest(grantId)}`;
}

/** Store key of a grant's use counter. */
export function grantUsesKey(prefix: string, grantId: string): string {
  return `${grantKey(prefix, grantId)}:uses`;
}

/** Store key of a question asked in-band on 2026-07-28, by a digest of the `requestState` it went out with. */
export function questionKey(prefix: string, requestState: string): string {
  return `${prefix}:question:${secretDigest(requestState)}`;
}

/** What the server keeps for one question asked through `input_required` (CONF-6a). Times in epoch milliseconds. */
export interface QuestionRecord {
  readonly v: 1;
  readonly tool: string;
  /** `canonicalHash` of the arguments (RFC 8785). */
  readonly args_hash: string;
  readonly principal: string;
  readonly expires_at: number;
}

/** A stored question, or `undefined` for anything not written by this version. */
export function parseQuestionRecord(value: JsonValue | undefined): QuestionRecord | undefined {
  if (!isRecord(value) || value.v !== 1) return undefined;
  const ok =
    typeof value.tool === 'string' &&
    typeof value.args_hash === 'string' &&
    typeof value.principal === 'string' &&
    typeof value.expires_at === 'number';
  return ok ? (value as unknown as QuestionRecord) : undefined;
}

/** Whether a stored question is the one this retried call answers: same caller, tool and arguments, still open. */
export function answersQuestion(
  record: QuestionRecord | undefined,
  call: { readonly principal: string; readonly tool: string; readonly argsHash: string; readonly now: number },
): boolean {
  return (
    record !== undefined &&
    record.principal === call.principal &&
    record.tool === call.tool &&
    record.args_hash === call.argsHash &&
    call.now < record.expires_at
  );
}

/** The store stream the audit log is appended to. */
export function auditStream(prefix: string): string {
  return `${prefix}:audit`;
}

/** What the server keeps for one issued token. Times in epoch milliseconds. */
export interface TokenRecord {
  readonly v: 1;
  readonly tool: string;
  /** `canonicalHash` of the arguments (RFC 8785). */
  readonly args_hash: string;
  readonly principal: string;
  readonly message: string;
  readonly risk_level: RiskLevel;
  readonly issued_at: number;
  readonly expires_at: number;
  readonly state: 'pending' | 'approved' | 'used';
  readonly batch_id?: string | undefined;
  readonly used_at?: number | undefined;
}

/** A stored token, or `undefined` for anything not written by this version. */
export function parseTokenRecord(value: JsonValue | undefined): TokenRecord | undefined {
  if (!isRecord(value) || value.v !== 1) return undefined;
  const ok =
    typeof value.tool === 'string' &&
    typeof value.args_hash === 'string' &&
    typeof value.principal === 'string' &&
    typeof value.message === 'string' &&
    isRiskLevel(value.risk_level) &&
    typeof value.issued_at === 'number' &&
    typeof value.expires_at === 'number' &&
    (value.state === 'pending' || value.state === 'approved' || value.state === 'used');
  return ok ? (value as unknown as TokenRecord) : undefined;
}

/** A record as plain JSON for the store. */
export function recordJson(record: TokenRecord | GrantRecord | QuestionRecord): JsonValue {
  return JSON.parse(JSON.stringify(record)) as JsonValue;
}

/** Why a token cannot be used; each has its own error (CONF-9). */
export type TokenRefusal =
  | 'CONFIRMATION_TOKEN_INVALID'
  | 'CONFIRMATION_PRINCIPAL_MISMATCH'
  | 'CONFIRMATION_TOKEN_REPLAYED'
  | 'CONFIRMATION_TOKEN_EXPIRED'
  | 'CONFIRMATION_ARGUMENTS_MISMATCH';

/** Who uses a token, when, and for which call. */
export interface TokenUse {
  readonly principal: string;
  readonly now: number;
  /** The call the token is redeemed for; absent when only approving it. */
  readonly call?: { readonly tool: string; readonly argsHash: string } | undefined;
}

/**
 * Decides whether a stored token may be used, in a fixed order: unknown,
 * another principal (before anything else is revealed), already used,
 * expired, then bound to another tool or other arguments.
 */
export function checkToken(record: TokenRecord | undefined, use: TokenUse): TokenRefusal | undefined {
  if (record === undefined) return 'CONFIRMATION_TOKEN_INVALID';
  if (record.principal !== use.principal) return 'CONFIRMATION_PRINCIPAL_MISMATCH';
  if (record.state === 'used') return 'CONFIRMATION_TOKEN_REPLAYED';
  if (use.now >= record.expires_at) return 'CONFIRMATION_TOKEN_EXPIRED';
  if (use.call !== undefined && (record.tool !== use.call.tool || record.args_hash !== use.call.argsHash)) {
    return 'CONFIRMATION_ARGUMENTS_MISMATCH';
  }
  return undefined;
}

/** A bounded, time-boxed approval of N calls of one tool. */
export interface GrantRecord {
  readonly v: 1;
  readonly tool: string;
  readonly principal: string;
  readonly max_calls: number;
  readonly issued_at: number;
  readonly expires_at: number;
  /** The tool's definition when the grant was given (CONF-21); absent in grants written before it was kept. */
  readonly tool_digest?: string | undefined;
}

/** A stored grant, or `undefined` for anything not written by this version. */
export function parseGrantRecord(value: JsonValue | undefined): GrantRecord | undefined {
  if (!isRecord(value) || value.v !== 1) return undefined;
  const ok =
    typeof value.tool === 'string' &&
    typeof value.principal === 'string' &&
    typeof value.max_calls === 'number' &&
    typeof value.issued_at === 'number' &&
    typeof value.expires_at === 'number' &&
    (value.tool_digest === undefined || typeof value.tool_digest === 'string');
  return ok ? (value as unknown as GrantRecord) : undefined;
}

/** Why a grant cannot cover a call. */
export type GrantRefusal =
  | 'CONFIRMATION_GRANT_INVALID'
  | 'CONFIRMATION_PRINCIPAL_MISMATCH'
  | 'CONFIRMATION_GRANT_EXPIRED'
  | 'CONFIRMATION_GRANT_TOOL_MISMATCH';

/** Whether a grant covers a call (the use counter is checked separately, atomically). */
export function checkGrant(
  record: GrantRecord | undefined,
  use: { principal: string; tool: string; toolDigest: string; now: number },
): GrantRefusal | undefined {
  if (record === undefined) return 'CONFIRMATION_GRANT_INVALID';
  if (record.principal !== use.principal) return 'CONFIRMATION_PRINCIPAL_MISMATCH';
  if (use.now >= record.expires_at) return 'CONFIRMATION_GRANT_EXPIRED';
  if (record.tool !== use.tool) return 'CONFIRMATION_GRANT_TOOL_MISMATCH';
  // A grant given for one definition of the tool never covers another (CONF-21).
  if (record.tool_digest !== undefined && record.tool_digest !== use.toolDigest)
    return 'CONFIRMATION_GRANT_TOOL_MISMATCH';
  return undefined;
}

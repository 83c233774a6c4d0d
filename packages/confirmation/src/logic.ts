import { createHash } from 'node:crypto';
import { ConfigurationError, ExtensionError, type JsonValue, type ToolInfo, type ToolResult } from '@ext/core';
import { displayText } from './display.js';
import { RISK_LEVELS, TOKEN_PATTERN_SOURCE, type ConfirmationToolMeta, type RiskLevel } from './schema.js';

/** Longest rendering of one argument inside a confirmation message. */
export const MAX_PLACEHOLDER_LENGTH = 200;

const TOKEN_PATTERN = new RegExp(TOKEN_PATTERN_SOURCE);
const PLACEHOLDER = /\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** The gate of one tool, normalized from what its author wrote in `Tool._meta[id]`. */
export interface ToolGate {
  readonly requiresConfirmation: boolean;
  readonly riskLevel: RiskLevel;
  /** The author's template, `{param}` placeholders unfilled; absent = a generated message. */
  readonly message: string | undefined;
}

/** A JSON object (not an array, not null). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isRiskLevel(value: unknown): value is RiskLevel {
  return typeof value === 'string' && (RISK_LEVELS as readonly string[]).includes(value);
}

/**
 * Reads and checks the author's `Tool._meta[id]` (CONF-1, CONF-2, CONF-3).
 * `undefined` when the tool declares nothing. A destructive tool always
 * requires confirmation, and MCP's `destructiveHint` must agree with the
 * risk level: both are configuration errors naming the tool.
 */
export function readToolGate(tool: ToolInfo, id: string): ToolGate | undefined {
  const raw = tool._meta?.[id];
  if (raw === undefined) return undefined;
  const where = `confirmation: tool "${tool.name}" _meta["${id}"]`;
  if (!isRecord(raw)) throw new ConfigurationError('INVALID_TOOL_META', `${where} must be an object`);
  const { requires_confirmation: requires, risk_level: risk, confirmation_message: message } = raw;
  if (risk !== undefined && !isRiskLevel(risk)) {
    throw new ConfigurationError('INVALID_TOOL_META', `${where}.risk_level must be one of ${RISK_LEVELS.join(', ')}`);
  }
  if (requires !== undefined && typeof requires !== 'boolean') {
    throw new ConfigurationError('INVALID_TOOL_META', `${where}.requires_confirmation must be a boolean`);
  }
  if (message !== undefined && (typeof message !== 'string' || message.length === 0 || message.length > 2000)) {
    throw new ConfigurationError(
      'INVALID_TOOL_META',
      `${where}.confirmation_message must be a string of 1 to 2000 characters`,
    );
  }
  const riskLevel: RiskLevel = risk ?? (requires === true ? 'destructive' : 'safe');
  if (riskLevel === 'destructive' && requires === false) {
    throw new ConfigurationError(
      'INVALID_TOOL_META',
      `${where}: a destructive tool always requires confirmation; remove requires_confirmation: false or lower the risk level`,
    );
  }
  const hint = tool.annotations?.destructiveHint;
  if (hint !== undefined && hint !== (riskLevel === 'destructive')) {
    throw new ConfigurationError(
      'INVALID_TOOL_META',
      `${where}: annotations.destructiveHint (${String(hint)}) contradicts risk_level "${riskLevel}"`,
    );
  }
  return { requiresConfirmation: requires ?? riskLevel === 'destructive', riskLevel, message };
}

/** The normalized `Tool._meta[id]` the server advertises for a gate. */
export function toolMetaOf(gate: ToolGate): ConfirmationToolMeta {
  const meta: ConfirmationToolMeta = { requires_confirmation: gate.requiresConfirmation, risk_level: gate.riskLevel };
  if (gate.message !== undefined) meta.confirmation_message = gate.message;
  return meta;
}

/** A caller's value as shown in a message: on one line, nothing hidden, at most 200 characters (CONF-4a). */
function renderArgument(value: unknown): string {
  return displayText(typeof value === 'string' ? value : JSON.stringify(value), MAX_PLACEHOLDER_LENGTH);
}

/**
 * Fills `{param}` placeholders with the call's arguments (CONF-4): strings
 * as they are, other values as JSON, each with its control, line-break,
 * bidi and invisible characters shown as escapes and cut at 200 characters
 * (CONF-4a). A placeholder naming no argument stays as written so the user
 * sees the gap. The template is the tool author's and stays as written.
 */
export function fillMessage(template: string, args: Readonly<Record<string, unknown>>): string {
  return template.replace(PLACEHOLDER, (whole, name: string) =>
    Object.hasOwn(args, name) && args[name] !== undefined ? renderArgument(args[name]) : whole,
  );
}

/** The message shown for a call: the author's template filled in, or a generated one. */
export function confirmationMessage(tool: ToolInfo, gate: ToolGate, args: Readonly<Record<string, unknown>>): string {
  if (gate.message !== undefined) return fillMessage(gate.message, args);
  const shown = Object.keys(args).length === 0 ? '' : ` with ${renderArgument(args)}`;
  return `Allow the ${gate.riskLevel} operation "${tool.title ?? tool.name}"${shown}?`;
}

/** Whether `value` is shaped like a confirmation token or grant id. */
export function isTokenShaped(value: unknown): value is string {
  return typeof value === 'string' && TOKEN_PATTERN.test(value);
}

/** Store keys hold a digest of the token, so a copy of the store cannot approve anything. */
export function secretDigest(secret: string): string {
  return createHash('sha256').update(secret).digest('base64url');
}

export function tokenKey(prefix: string, token: string): string {
  return `${prefix}:token:${secretDigest(token)}`;
}

export function grantKey(prefix: string, grantId: string): string {
  return `${prefix}:grant:${secretDigest(grantId)}`;
}

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
}

export function parseGrantRecord(value: JsonValue | undefined): GrantRecord | undefined {
  if (!isRecord(value) || value.v !== 1) return undefined;
  const ok =
    typeof value.tool === 'string' &&
    typeof value.principal === 'string' &&
    typeof value.max_calls === 'number' &&
    typeof value.issued_at === 'number' &&
    typeof value.expires_at === 'number';
  return ok ? (value as unknown as GrantRecord) : undefined;
}

export type GrantRefusal =
  | 'CONFIRMATION_GRANT_INVALID'
  | 'CONFIRMATION_PRINCIPAL_MISMATCH'
  | 'CONFIRMATION_GRANT_EXPIRED'
  | 'CONFIRMATION_GRANT_TOOL_MISMATCH';

/** Whether a grant covers a call (the use counter is checked separately, atomically). */
export function checkGrant(
  record: GrantRecord | undefined,
  use: { principal: string; tool: string; now: number },
): GrantRefusal | undefined {
  if (record === undefined) return 'CONFIRMATION_GRANT_INVALID';
  if (record.principal !== use.principal) return 'CONFIRMATION_PRINCIPAL_MISMATCH';
  if (use.now >= record.expires_at) return 'CONFIRMATION_GRANT_EXPIRED';
  if (record.tool !== use.tool) return 'CONFIRMATION_GRANT_TOOL_MISMATCH';
  return undefined;
}

const SUGGEST_NEW_TOKEN = 'Call the tool again without a confirmation token to get a new one, and ask the user again.';

/** The structured error for each refusal, with a message a person can act on. */
export function refusalError(
  code: TokenRefusal | GrantRefusal | 'CONFIRMATION_GRANT_EXHAUSTED',
  details: Record<string, unknown> = {},
): ExtensionError {
  switch (code) {
    case 'CONFIRMATION_TOKEN_INVALID':
      return new ExtensionError('invalid_input', code, 'The confirmation token is unknown to this server', {
        userActionable: false,
        suggestion: SUGGEST_NEW_TOKEN,
        details,
      });
    case 'CONFIRMATION_PRINCIPAL_MISMATCH':
      return new ExtensionError(
        'permanent',
        code,
        'This approval was given to another caller and cannot be used by this one',
        {
          userActionable: false,
          suggestion: SUGGEST_NEW_TOKEN,
          details,
        },
      );
    case 'CONFIRMATION_TOKEN_REPLAYED':
      return new ExtensionError(
        'permanent',
        code,
        'The confirmation token was already used; each approval authorises one call',
        {
          userActionable: false,
          suggestion: SUGGEST_NEW_TOKEN,
          details,
        },
      );
    case 'CONFIRMATION_TOKEN_EXPIRED':
      return new ExtensionError('permanent', code, 'The confirmation token expired before it was used', {
        userActionable: true,
        suggestion: SUGGEST_NEW_TOKEN,
        details,
      });
    case 'CONFIRMATION_ARGUMENTS_MISMATCH':
      return new ExtensionError(
        'invalid_input',
        code,
        'The confirmation token was approved for another tool or other arguments than this call',
        {
          userActionable: false,
          suggestion: 'Retry with exactly the arguments the user approved, or ask the user again.',
          details,
        },
      );
    case 'CONFIRMATION_GRANT_INVALID':
      return new ExtensionError('invalid_input', code, 'The approval grant is unknown to this server', {
        userActionable: false,
        suggestion: 'Request a new grant, or confirm the call on its own.',
        details,
      });
    case 'CONFIRMATION_GRANT_EXPIRED':
      return new ExtensionError('permanent', code, 'The approval grant expired', {
        userActionable: true,
        suggestion: 'Request a new grant, or confirm the call on its own.',
        details,
      });
    case 'CONFIRMATION_GRANT_TOOL_MISMATCH':
      return new ExtensionError('invalid_input', code, 'The approval grant covers another tool', {
        userActionable: false,
        suggestion: 'Use a grant for this tool, or confirm the call on its own.',
        details,
      });
    case 'CONFIRMATION_GRANT_EXHAUSTED':
      return new ExtensionError('permanent', code, 'The approval grant has no calls left', {
        userActionable: true,
        suggestion: 'Request a new grant, or confirm the call on its own.',
        details,
      });
  }
}

/** A copy of `result` with `_meta[id]` set. */
export function withResultMeta(result: ToolResult, id: string, value: Record<string, unknown>): ToolResult {
  return { ...result, _meta: { ...(result._meta ?? {}), [id]: value } };
}

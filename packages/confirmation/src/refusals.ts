/**
 * The structured error of every refusal a confirmation decision ends in
 * (`decisions.ts`): each reason a token or grant is refused, the fail-closed
 * refusals when nobody can be asked, and a person's "no", each with what to
 * do instead.
 */
import { ExtensionError, type ErrorCategory } from '@ext/core';
import type { GrantRefusal, TokenRefusal } from './records.js';
import { CONFIRMATION_ID, type RiskLevel } from './schema.js';

/** Every reason a token or grant does not approve a call. */
export type Refusal = TokenRefusal | GrantRefusal | 'CONFIRMATION_GRANT_EXHAUSTED';

interface Wording {
  readonly category: ErrorCategory;
  readonly message: string;
  readonly userActionable: boolean;
  readonly suggestion: string;
}

const NEW_TOKEN = 'Call the tool again without a confirmation token to get a new one, and ask the user again.';
const NEW_GRANT = 'Request a new grant, or confirm the call on its own.';

/** Why a token or grant does not approve the call, in words a person can act on. */
const REFUSALS: Readonly<Record<Refusal, Wording>> = {
  CONFIRMATION_TOKEN_INVALID: {
    category: 'invalid_input',
    message: 'The confirmation token is unknown to this server',
    userActionable: false,
    suggestion: NEW_TOKEN,
  },
  CONFIRMATION_PRINCIPAL_MISMATCH: {
    category: 'permanent',
    message: 'This approval was given to another caller and cannot be used by this one',
    userActionable: false,
    suggestion: NEW_TOKEN,
  },
  CONFIRMATION_TOKEN_REPLAYED: {
    category: 'permanent',
    message: 'The confirmation token was already used; each approval authorises one call',
    userActionable: false,
    suggestion: NEW_TOKEN,
  },
  CONFIRMATION_TOKEN_EXPIRED: {
    category: 'permanent',
    message: 'The confirmation token expired before it was used',
    userActionable: true,
    suggestion: NEW_TOKEN,
  },
  CONFIRMATION_ARGUMENTS_MISMATCH: {
    category: 'invalid_input',
    message: 'The confirmation token was approved for another tool or other arguments than this call',
    userActionable: false,
    suggestion: 'Retry with exactly the arguments the user approved, or ask the user again.',
  },
  CONFIRMATION_GRANT_INVALID: {
    category: 'invalid_input',
    message: 'The approval grant is unknown to this server',
    userActionable: false,
    suggestion: NEW_GRANT,
  },
  CONFIRMATION_GRANT_EXPIRED: {
    category: 'permanent',
    message: 'The approval grant expired',
    userActionable: true,
    suggestion: NEW_GRANT,
  },
  CONFIRMATION_GRANT_TOOL_MISMATCH: {
    category: 'invalid_input',
    message: 'The approval grant covers another tool',
    userActionable: false,
    suggestion: 'Use a grant for this tool, or confirm the call on its own.',
  },
  CONFIRMATION_GRANT_EXHAUSTED: {
    category: 'permanent',
    message: 'The approval grant has no calls left',
    userActionable: true,
    suggestion: NEW_GRANT,
  },
};

/** The structured error for each refusal of a token or grant, with a message a person can act on. */
export function refusalError(code: Refusal, details: Record<string, unknown> = {}): ExtensionError {
  const { category, message, userActionable, suggestion } = REFUSALS[code];
  return new ExtensionError(category, code, message, { userActionable, suggestion, details });
}

/** Fail closed (CONF-7): the client can neither elicit nor speak this extension, so nobody can be asked. */
export function noChannelError(tool: string, riskLevel: RiskLevel, message: string): ExtensionError {
  return new ExtensionError(
    'permanent',
    'CONFIRMATION_REQUIRED',
    `"${tool}" is a ${riskLevel} operation that needs a person's approval, and this client can neither ask its user (elicitation) nor speak the ${CONFIRMATION_ID} extension; the call was not executed`,
    {
      userActionable: true,
      suggestion: `Use a client that supports elicitation or the ${CONFIRMATION_ID} extension to perform this operation.`,
      details: { tool, risk_level: riskLevel, message },
    },
  );
}

/** Fail closed (CONF-22): an approver rule named an operator, and the server has nowhere to hold the call. */
export function noDeskError(tool: string): ExtensionError {
  return new ExtensionError(
    'permanent',
    'CONFIRMATION_REQUIRED',
    `"${tool}" needs an operator's approval and this server has no approval desk; the call was not executed`,
    {
      userActionable: false,
      suggestion: 'The server operator must configure approvals (an approval desk) for out-of-band approval.',
      details: { tool },
    },
  );
}

/** The person did not say an explicit "yes" in-band (CONF-6). */
export function declinedError(tool: string, action: string): ExtensionError {
  return new ExtensionError(
    'permanent',
    'CONFIRMATION_DECLINED',
    `The user did not approve "${tool}"; nothing was done`,
    {
      userActionable: true,
      suggestion: 'Do not retry unless the user asks for it again.',
      details: { tool, action },
    },
  );
}

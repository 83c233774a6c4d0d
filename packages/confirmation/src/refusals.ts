/** The structured error for each reason a token or grant is refused, with what to do instead. */
import { ExtensionError } from '@ext/core';
import type { GrantRefusal, TokenRefusal } from './records.js';

/** Every reason a token or grant does not approve a call. */
export type Refusal = TokenRefusal | GrantRefusal | 'CONFIRMATION_GRANT_EXHAUSTED';

const SUGGEST_NEW_TOKEN = 'Call the tool again without a confirmation token to get a new one, and ask the user again.';

/** The structured error for each refusal, with a message a person can act on. */
export function refusalError(code: Refusal, details: Record<string, unknown> = {}): ExtensionError {
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

/** The structured errors this extension answers with, each with what the caller can do about it. */
import { ExtensionError } from '@ext/core';
import { invalidInputError, metaPointer, type InputFault } from '@ext/core/kit';

/** A malformed `params._meta[id]` entry. */
export function invalidMetaError(fault: InputFault): ExtensionError {
  return invalidInputError(
    fault,
    fault.field === 'idempotency_ttl_seconds'
      ? 'Send idempotency_ttl_seconds as a positive integer, or leave it out for the server default.'
      : 'Send an idempotency key made of letters, digits and _-:. (1 to 128 characters).',
  );
}

/** The key is bound to a call with other arguments. */
export function conflictError(id: string, key: string): ExtensionError {
  return new ExtensionError(
    'invalid_input',
    'IDEMPOTENCY_CONFLICT',
    `Idempotency key "${key}" was already used for a call with different arguments`,
    {
      userActionable: false,
      suggestion: 'Use a new idempotency key for a call with different arguments.',
      details: {
        field: 'idempotency_key',
        pointer: metaPointer(id, 'idempotency_key'),
        idempotency_key: key,
      },
    },
  );
}

/** The store holds something for the key this version cannot read. */
export function unreadableError(): ExtensionError {
  return new ExtensionError(
    'permanent',
    'IDEMPOTENCY_STATE_UNREADABLE',
    'The stored state for this idempotency key cannot be read',
    {
      suggestion: 'Use a new idempotency key.',
    },
  );
}

/** The same call still executes elsewhere, longer than a duplicate waits for it. */
export function inProgressError(key: string, retryAfterSeconds: number): ExtensionError {
  return new ExtensionError(
    'transient',
    'IDEMPOTENCY_IN_PROGRESS',
    'A call with this idempotency key is still executing',
    {
      retryAfterSeconds,
      suggestion: 'Retry with the same idempotency key to receive the result once it completes.',
      details: { idempotency_key: key },
    },
  );
}

/** The caller holds as many live records as it may. */
export function keyLimitError(maxRecords: number, retryAfterSeconds: number): ExtensionError {
  return new ExtensionError(
    'rate_limited',
    'IDEMPOTENCY_KEY_LIMIT',
    `This caller holds the maximum of ${maxRecords} idempotency records`,
    {
      retryAfterSeconds,
      suggestion: 'Retry later, or call without a new idempotency key.',
      details: { max_records: maxRecords },
    },
  );
}

/** The errors the methods answer with: refused params, an unreadable cursor, an unknown subscription. */
import { ExtensionError } from '@ext/core';
import type { RequestFailure } from './requests.js';

/** The `invalid_input` error for a refused request, with what to do instead. */
export function invalid(failure: RequestFailure): ExtensionError {
  const suggestion =
    failure.code === 'UNKNOWN_EVENT'
      ? 'Call the list method to see the event types this server publishes.'
      : failure.code === 'INVALID_FILTER'
        ? 'Use only the filter fields each event type declares in its filter_schema (see the list method).'
        : 'Fix the named field and send the request again.';
  return new ExtensionError('invalid_input', failure.code, failure.message, {
    userActionable: false,
    suggestion,
    details: { field: failure.field, pointer: failure.pointer, ...(failure.details ?? {}) },
  });
}

export function invalidCursor(): ExtensionError {
  return invalid({
    code: 'INVALID_INPUT',
    field: 'cursor',
    pointer: '/cursor',
    message: 'Invalid cursor: use a cursor this server returned (or "" for the start of the log)',
  });
}

export function notFound(subscriptionId: string): ExtensionError {
  return new ExtensionError(
    'permanent',
    'SUBSCRIPTION_NOT_FOUND',
    `No subscription "${subscriptionId}" for this caller`,
    {
      suggestion: 'Subscribe again; pass your last cursor to miss no event.',
      details: { subscription_id: subscriptionId },
    },
  );
}

/** The errors the methods answer with: refused params, an unreadable cursor, an unknown subscription. */
import { ExtensionError } from '@ext/core';
import type { RequestFailure } from './requests.js';

/**
 * Whether the request came through one of the methods served as tools
 * (EVT-23): its caller is then pointed at those tools, not at methods it
 * may be unable to call (EVT-24).
 */
export function viaTool(ctx: object): boolean {
  return 'tool' in ctx;
}

/** The `invalid_input` error for a refused request, with what to do instead (`tools`: see {@link viaTool}). */
export function invalid(failure: RequestFailure, tools = false): ExtensionError {
  const list = tools ? 'list_events' : 'the list method';
  const suggestion =
    failure.code === 'UNKNOWN_EVENT'
      ? `Call ${list} to see the event types this server publishes.`
      : failure.code === 'INVALID_FILTER'
        ? `Use only the filter fields each event type declares in its filter_schema (see ${list}).`
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

/** No such subscription for this caller (`tools`: see {@link viaTool}; `subscribe_events` takes no cursor, `poll_events` does). */
export function notFound(subscriptionId: string, tools = false): ExtensionError {
  return new ExtensionError(
    'permanent',
    'SUBSCRIPTION_NOT_FOUND',
    `No subscription "${subscriptionId}" for this caller`,
    {
      suggestion: tools
        ? 'Subscribe again with subscribe_events, then pass your last cursor to poll_events to miss no event.'
        : 'Subscribe again; pass your last cursor to miss no event.',
      details: { subscription_id: subscriptionId },
    },
  );
}

/**
 * The errors of the draft's methods: structured like every error of this
 * package (`data` carries category, code and `details.field`), under the
 * JSON-RPC codes the draft assigns (-32602, -32011 NotFound, -32012
 * Forbidden, -32014 Unsupported) with the draft's `data` discriminators.
 */
import { ExtensionError, WireError } from '@ext/core';
import type { RequestFailure } from './requests.js';
import { SKETCH_ERROR_CODES, SKETCH_METHODS } from './sketch-wire.js';

/** A refused param (-32602, category `invalid_input`, `details.field` naming it). */
export function sketchInvalid(failure: RequestFailure, instead?: string): ExtensionError {
  const suggestion =
    instead ??
    (failure.field === 'arguments'
      ? `Pass only the arguments the event type's inputSchema accepts (see ${SKETCH_METHODS.list}).`
      : failure.field === 'cursor'
        ? 'Pass a cursor this server returned, or null to start from now.'
        : 'Fix the named field and send the request again.');
  return new ExtensionError('invalid_input', failure.code, failure.message, {
    suggestion,
    details: { field: failure.field, pointer: failure.pointer, ...(failure.details ?? {}) },
  });
}

/** An event name the server does not publish: the draft's NotFound (`data.kind: "event"`), still `invalid_input` naming `name`. */
export function unknownEvent(name: string, supported: readonly string[]): WireError {
  const error = sketchInvalid(
    {
      code: 'UNKNOWN_EVENT',
      field: 'name',
      pointer: '/name',
      message: `Unknown event type "${name}"; this server publishes: ${supported.join(', ')}`,
      details: { event: name, supported_events: [...supported] },
    },
    `Call ${SKETCH_METHODS.list} to see the event types this server publishes.`,
  );
  return new WireError(SKETCH_ERROR_CODES.NotFound, error.message, { ...error.toStructured(), kind: 'event' });
}

/** No webhook subscription under this key for this caller (`data.kind: "subscription"`). */
export function unknownSubscription(): WireError {
  const error = new ExtensionError(
    'permanent',
    'SUBSCRIPTION_NOT_FOUND',
    'No such webhook subscription for this caller',
    {
      suggestion: `Pass the name, arguments and delivery.url the subscription was made with to ${SKETCH_METHODS.subscribe}.`,
    },
  );
  return new WireError(SKETCH_ERROR_CODES.NotFound, error.message, { ...error.toStructured(), kind: 'subscription' });
}

/** Webhook delivery is for authenticated callers only: the subscription key would be guessable otherwise. */
export function webhookForbidden(): WireError {
  const error = new ExtensionError(
    'auth_required',
    'AUTHENTICATION_REQUIRED',
    'Webhook subscriptions need an authenticated caller',
    { suggestion: 'Authenticate, or receive events with events/poll or events/stream.' },
  );
  return new WireError(SKETCH_ERROR_CODES.Forbidden, 'Forbidden', error.toStructured());
}

/** This server does not offer webhook delivery. */
export function webhookUnsupported(): WireError {
  const error = new ExtensionError('permanent', 'UNSUPPORTED', 'This server does not deliver events to webhooks', {
    suggestion: 'Receive events with events/poll or events/stream.',
  });
  return new WireError(SKETCH_ERROR_CODES.Unsupported, error.message, {
    ...error.toStructured(),
    feature: 'deliveryMode',
    value: 'webhook',
  });
}

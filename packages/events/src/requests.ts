/**
 * Pure: the methods' params read at the boundary, a subscription checked
 * against the catalog, and what a granted subscription gets (TTL, delivery).
 */
import { firstViolation, jsonPointer, lazyValidator, type CompiledValidator } from '@ext/core/kit';
import type { Static, TSchema } from 'typebox';
import { projectFilter, type Catalog } from './catalog.js';
import {
  PollRequestSchema,
  StreamRequestSchema,
  SubscriptionRequestSchema,
  UnsubscribeRequestSchema,
  type DeliveryMode,
  type PollRequest,
  type StreamRequest,
  type SubscriptionRequest,
  type UnsubscribeRequest,
} from './schema.js';

export type Parsed<T> =
  { readonly ok: true; readonly value: T } | { readonly ok: false; readonly failure: RequestFailure };

/** Why a request was refused: a code, the field and its JSON Pointer relative to `params`. */
export interface RequestFailure {
  readonly code: 'INVALID_INPUT' | 'UNKNOWN_EVENT' | 'INVALID_FILTER';
  readonly field: string;
  readonly pointer: string;
  readonly message: string;
  readonly details?: Readonly<Record<string, unknown>> | undefined;
}

const FIELD_HINTS: Readonly<Record<string, string>> = {
  subscription_id: 'must be 1 to 128 characters from [a-zA-Z0-9_-:.]',
  events: 'must be an array of 1 to 100 event type names',
  filter: 'must be an object',
  ttl_seconds: 'must be a positive integer',
  cursor: 'must be a cursor string of at most 256 characters',
  delivery: 'must be "notification", "stream" or "poll"',
  limit: 'must be an integer from 1 to 1000',
};

const subscriptionRequest = lazyValidator(SubscriptionRequestSchema);
const unsubscribeRequest = lazyValidator(UnsubscribeRequestSchema);
const pollRequest = lazyValidator(PollRequestSchema);
const streamRequest = lazyValidator(StreamRequestSchema);

/** The first path segment of a pointer: the top-level param a person would fix. */
function topField(pointer: string, fallback: string): string {
  return pointer.split('/').filter(Boolean)[0] ?? fallback;
}

/** Validates params (minus `_meta`) against a schema; a refusal names the top-level field, with its hint from `hints`. */
export function parseWith<S extends TSchema>(
  validator: () => CompiledValidator<S>,
  params: Readonly<Record<string, unknown>>,
  what: string,
  hints: Readonly<Record<string, string>> = FIELD_HINTS,
): Parsed<Static<S>> {
  const check = validator();
  const { _meta: _ignored, ...body } = params;
  if (check.Check(body)) return { ok: true, value: body };
  const violation = firstViolation(check.Errors(body));
  const field = topField(violation.pointer, 'params');
  // `field` comes from the request's own keys: only FIELD_HINTS' own entries are hints.
  const hint = (Object.hasOwn(hints, field) ? hints[field] : undefined) ?? violation.message;
  return {
    ok: false,
    failure: { code: 'INVALID_INPUT', field, pointer: violation.pointer, message: `Invalid ${what}: ${field} ${hint}` },
  };
}

/** Validates `<id>/subscribe` params (shape only; see {@link checkSubscription}). Never throws. */
export function parseSubscriptionRequest(params: Readonly<Record<string, unknown>>): Parsed<SubscriptionRequest> {
  return parseWith(subscriptionRequest, params, 'subscription request');
}

export function parseUnsubscribeRequest(params: Readonly<Record<string, unknown>>): Parsed<UnsubscribeRequest> {
  return parseWith(unsubscribeRequest, params, 'unsubscribe request');
}

export function parsePollRequest(params: Readonly<Record<string, unknown>>): Parsed<PollRequest> {
  return parseWith(pollRequest, params, 'poll request');
}

export function parseStreamRequest(params: Readonly<Record<string, unknown>>): Parsed<StreamRequest> {
  return parseWith(streamRequest, params, 'stream request');
}

/**
 * Checks a well-formed subscription against the catalog: every event type
 * must exist, every filter field must be declared by at least one of the
 * subscribed types, and each type's share of the filter must validate
 * against that type's filter schema. Never throws.
 */
export function checkSubscription(
  events: readonly string[],
  filter: Readonly<Record<string, unknown>>,
  catalog: Catalog,
): RequestFailure | undefined {
  const supported = [...catalog.keys()];
  for (const [index, name] of events.entries()) {
    if (!catalog.has(name)) {
      return {
        code: 'UNKNOWN_EVENT',
        field: 'events',
        pointer: jsonPointer('events', index),
        message: `Unknown event type "${name}"; this server publishes: ${supported.join(', ')}`,
        details: { event: name, supported_events: supported },
      };
    }
  }
  const subscribed = [...new Set(events)].map((name) => catalog.get(name)).filter((entry) => entry !== undefined);
  for (const field of Object.keys(filter)) {
    if (!subscribed.some((entry) => entry.filterFields.has(field))) {
      const accepted = subscribed.map(
        (entry) => `${entry.name}: ${entry.filterFields.size === 0 ? 'none' : [...entry.filterFields].join(', ')}`,
      );
      return {
        code: 'INVALID_FILTER',
        field: 'filter',
        pointer: jsonPointer('filter', field),
        message: `Filter field "${field}" is not accepted by the subscribed events (${accepted.join('; ')})`,
        details: { filter_field: field },
      };
    }
  }
  for (const entry of subscribed) {
    const violation = entry.checkFilter(projectFilter(filter, entry.filterFields));
    if (violation !== undefined) {
      const field = topField(violation.pointer, '');
      return {
        code: 'INVALID_FILTER',
        field: 'filter',
        pointer: `/filter${violation.pointer}`,
        message: `Filter field "${field}" ${violation.message} for event "${entry.name}"`,
        details: { filter_field: field, event: entry.name },
      };
    }
  }
  return undefined;
}

/** The TTL a subscription gets: the request's, else the default, never above the maximum. */
export function grantedTtlSeconds(requested: number | undefined, defaultTtl: number, maxTtl: number): number {
  return Math.min(requested ?? defaultTtl, maxTtl);
}

/**
 * How events will reach this subscriber: what it asked for when the
 * connection allows it; otherwise pushed on the connection when there is
 * one, a stream for a client that speaks the extension, and polling for
 * one that does not.
 */
export function chooseDelivery(
  requested: DeliveryMode | undefined,
  hasConnection: boolean,
  negotiated: boolean,
): DeliveryMode {
  if (requested === 'poll' || requested === 'stream') return requested;
  if (requested === 'notification') return hasConnection ? 'notification' : 'stream';
  if (!negotiated) return 'poll';
  return hasConnection ? 'notification' : 'stream';
}

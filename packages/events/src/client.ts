/**
 * The client half of event subscriptions (the `./client` entry): the
 * `eventsClient` descriptor, `subscribeEvents`, and the one-shot calls.
 */
import { ConfigurationError, type ClientExtension, type ExtendedClient } from '@ext/core';
import { isSubscriptionId } from './catalog.js';
import { EVENTS_ID, EVENTS_PACKAGE, EVENTS_WIRE_VERSION, EventsServerSettingsSchema } from './schema.js';
import type { SubscribeOptions } from './subscribe-options.js';
import { EventSubscription } from './subscription.js';

export { listEventTypes, pollEvents, unsubscribeEvents, type PollOptions } from './client-calls.js';
export type { SubscribeOptions, SubscriptionState } from './subscribe-options.js';
export { EventSubscription } from './subscription.js';

/** The client half: advertises the extension so the server pushes events to this client. */
export function eventsClient(): ClientExtension {
  return {
    side: 'client',
    name: EVENTS_PACKAGE,
    ids: [EVENTS_ID],
    settings: { version: EVENTS_WIRE_VERSION },
    peerSettings: EventsServerSettingsSchema,
  };
}

/**
 * Subscribes to events and starts receiving them. `undefined` when the
 * server does not negotiate the extension. A refused request (unknown event,
 * bad filter) rejects with the server's `WireError`; a denied subscription
 * resolves with `state === 'denied'` and the reason in `response`.
 */
export async function subscribeEvents(
  client: ExtendedClient,
  options: SubscribeOptions,
): Promise<EventSubscription | undefined> {
  if (typeof options !== 'object' || typeof options.onEvent !== 'function') {
    throw new ConfigurationError('INVALID_OPTION', 'subscribeEvents: onEvent must be a function');
  }
  if (!Array.isArray(options.events) || options.events.length === 0) {
    throw new ConfigurationError('INVALID_OPTION', 'subscribeEvents: events must name at least one event type');
  }
  if (options.subscriptionId !== undefined && !isSubscriptionId(options.subscriptionId)) {
    throw new ConfigurationError(
      'INVALID_OPTION',
      'subscribeEvents: subscriptionId must be 1 to 128 characters from [a-zA-Z0-9_-:.]',
    );
  }
  if (client.negotiated(EVENTS_ID) === undefined) return undefined;
  const subscription = new EventSubscription(client, options);
  await subscription.start();
  return subscription;
}

/**
 * The server half of event subscriptions (the `./server` entry): the
 * `eventsServer` descriptor, assembled from the methods and the author's handles.
 */
import type { ServerExtension, Store } from '@ext/core';
import { publish, terminate, watch, type EventWatch } from './handles.js';
import { eventsMethods } from './methods.js';
import type { EventDefinitions, EventsServerOptions, PayloadOf, PublishOptions, WatchOptions } from './options.js';
import { createRuntime, type EventsRuntime } from './runtime.js';
import { sketchMethods } from './sketch-methods.js';
import { EVENTS_SKETCH_ID, EVENTS_SKETCH_SETTINGS } from './sketch-wire.js';
import { readDeadLetters } from './webhook-delivery.js';
import type { DeadLetter } from './webhook-records.js';
import {
  EVENTS_ID,
  EVENTS_PACKAGE,
  EVENTS_WIRE_VERSION,
  EventsClientSettingsSchema,
  type EventNotification,
  type EventsServerSettings,
} from './schema.js';

export type { EventDefinition } from './catalog.js';
export type {
  EventDefinitions,
  EventsServerOptions,
  PayloadOf,
  PublishActionHint,
  PublishOptions,
  SubscriptionAttempt,
  WatchOptions,
} from './options.js';
export type { EventWatch } from './handles.js';
export type { EventWebhookOptions } from './webhook-options.js';
export type { DeadLetter } from './webhook-records.js';
export { registerEventTools, EVENT_TOOL_NAMES } from './tools.js';

/** The server half, with the author's handles to publish, watch and end subscriptions. */
export interface EventsServerExtension<E extends EventDefinitions = EventDefinitions> extends ServerExtension {
  /**
   * Appends an event to the log in `store` (the one given to the adapter),
   * where every subscriber on every server instance sharing that store sees
   * it. Returns its cursor. Throws `ConfigurationError` for an undeclared
   * type or a payload that does not match its schema (naming the field).
   */
  publish<K extends keyof E & string>(
    store: Store,
    event: K,
    payload: PayloadOf<E, K>,
    options?: PublishOptions,
  ): Promise<string>;
  /**
   * Subscribes in process, without MCP: `listener` gets every matching event
   * in order, as the notification a client would get. For server-side
   * consumers and benchmarks. Throws `ConfigurationError` for unknown events
   * or a bad filter.
   */
  watch(
    store: Store,
    options: WatchOptions,
    listener: (event: EventNotification) => void | Promise<void>,
  ): Promise<EventWatch>;
  /**
   * Ends a subscription early: its deliveries on every instance send a
   * termination notice with `reason` (default `revoked`) and stop. `false`
   * when there is no such subscription.
   */
  terminate(
    store: Store,
    target: { readonly principal: string; readonly subscriptionId: string },
    reason?: string,
    message?: string,
  ): Promise<boolean>;
  /** Ends every delivery on this instance with a `server_shutdown` notice (clients resubscribe elsewhere). */
  stop(): Promise<void>;
  /** Deliveries running on this instance (pushed to connections, open streams, watches, webhooks). */
  activeDeliveries(): number;
  /**
   * The webhook deliveries that were abandoned (attempts exhausted, or a
   * final 4xx), oldest first, as kept in `store`: page with the last `id`
   * returned as `after`.
   */
  deadLetters(
    store: Store,
    options?: { readonly after?: string | undefined; readonly limit?: number | undefined },
  ): Promise<{ readonly id: string; readonly letter: DeadLetter }[]>;
}

/** What serving the official Events draft adds to the half: its identifier and its methods (EVT-25). */
function officialDraft(rt: EventsRuntime): Partial<ServerExtension> & { ids: readonly string[] } {
  return {
    // Ours first: a client declaring both identifiers keeps ours (the draft's serves only its own methods).
    ids: [EVENTS_ID, EVENTS_SKETCH_ID],
    reservedAliases: [EVENTS_SKETCH_ID],
    aliasSettings: { [EVENTS_SKETCH_ID]: EVENTS_SKETCH_SETTINGS },
    namedMethods: sketchMethods(rt),
    namedMethodsOnLegacy: true,
  };
}

/**
 * The server half of event subscriptions: serves `<id>/list`,
 * `<id>/subscribe`, `<id>/unsubscribe`, `<id>/poll` and `<id>/stream`,
 * keeps the event log and the subscriptions in the core's `Store`, and
 * pushes events as notifications on connections that outlive a request.
 */
export function eventsServer<E extends EventDefinitions>(options: EventsServerOptions<E>): EventsServerExtension<E> {
  const rt = createRuntime(options);
  const settings: EventsServerSettings = {
    version: EVENTS_WIRE_VERSION,
    delivery: ['notification', 'stream', 'poll'],
    poll_interval_seconds: rt.config.pollIntervalSeconds,
    default_ttl_seconds: rt.config.defaultTtlSeconds,
    max_ttl_seconds: rt.config.maxTtlSeconds,
    max_stream_seconds: rt.config.maxStreamSeconds,
  };
  return {
    side: 'server',
    keepsCallerState: true,
    name: EVENTS_PACKAGE,
    settings,
    peerSettings: EventsClientSettingsSchema,
    methods: eventsMethods(rt),
    ...(rt.config.officialDraft ? officialDraft(rt) : { ids: [EVENTS_ID] }),
    publish: (store, event, payload, publishOptions) => publish(rt, store, event, payload, publishOptions),
    watch: (store, watchOptions, listener) => watch(rt, store, watchOptions, listener),
    terminate: (store, target, reason = 'revoked', message) => terminate(rt, store, target, reason, message),
    stop: () => rt.hubs.stop(),
    activeDeliveries: () => rt.hubs.activeDeliveries(),
    deadLetters: (store, page) => readDeadLetters(store, rt.config.keyPrefix, page),
  };
}

/**
 * What a server author configures: `eventsServer`'s options and the shapes
 * its handles take, with the defaults applied and checked at construction.
 */
import { ConfigurationError, type Logger, type RequestContext } from '@ext/core';
import { consoleLogger, deprecatedAliases, positiveIntegerOption } from '@ext/core/kit';
import type { Static } from 'typebox';
import type { EventDefinition } from './catalog.js';
import type { ActionHint } from './schema.js';
import { resolveWebhookOptions, type EventWebhookOptions, type ResolvedWebhookOptions } from './webhook-options.js';

/** The event types a server publishes, by name. */
export type EventDefinitions = Readonly<Record<string, EventDefinition>>;

/** The payload type of one declared event. */
export type PayloadOf<E extends EventDefinitions, K extends keyof E> = Static<E[K]['payload']> &
  Record<string, unknown>;

/** What `authorize` is asked about. */
export interface SubscriptionAttempt {
  readonly subscriptionId: string;
  readonly events: readonly string[];
  readonly filter: Readonly<Record<string, unknown>>;
  readonly principal: string;
  /** @deprecated Use `subscriptionId`; the snake_case spelling goes in the next major. */
  readonly subscription_id: string;
}

/** The attempt `authorize` gets, with its deprecated spelling. */
export function subscriptionAttempt(fields: Omit<SubscriptionAttempt, 'subscription_id'>): SubscriptionAttempt {
  return deprecatedAliases(
    '@ext/events SubscriptionAttempt',
    { ...fields },
    {
      subscription_id: 'subscriptionId',
    },
  ) as SubscriptionAttempt;
}

export interface EventsServerOptions<E extends EventDefinitions = EventDefinitions> {
  /** The event types, by name: `{ description, payload, filter?, match? }` with TypeBox object schemas. */
  readonly events: E;
  /**
   * Decides whether a caller may subscribe: `true` to allow, `false` or a
   * reason to deny (status `denied`). Default: everyone may subscribe.
   */
  readonly authorize?:
    ((attempt: SubscriptionAttempt, ctx: RequestContext) => boolean | string | Promise<boolean | string>) | undefined;
  /** TTL when the client asks none. Default 3600. */
  readonly defaultTtlSeconds?: number | undefined;
  /** Longer requested TTLs are lowered to this. Default 86400. */
  readonly maxTtlSeconds?: number | undefined;
  /** How often polling clients are told to poll. Default 5. */
  readonly pollIntervalSeconds?: number | undefined;
  /** Longest one `<id>/stream` request stays open; the client then reopens it. Default 300. */
  readonly maxStreamSeconds?: number | undefined;
  /** Most live subscriptions one principal may hold; beyond it, `denied`. Default 100. */
  readonly maxSubscriptionsPerPrincipal?: number | undefined;
  /** Events kept in the log for cursor replay (oldest trimmed first). Default 10000. */
  readonly retainEvents?: number | undefined;
  /** The log is dropped this long after the last publish. Default 86400. */
  readonly retainSeconds?: number | undefined;
  /** How long an ended subscription is remembered, so polls and streams can say why it ended. Default 3600. */
  readonly graceSeconds?: number | undefined;
  /** Re-read interval of the log in case a store's pub/sub wake-up is missed; records are re-checked every fifth. Default 1000. */
  readonly wakeIntervalMs?: number | undefined;
  /** Namespace of every store key this extension writes. Default `"events"`. */
  readonly keyPrefix?: string | undefined;
  /** Where delivery failures are reported outside a request. Default: stderr. */
  readonly logger?: Logger | undefined;
  /** Wall clock in milliseconds (tests). Default `Date.now`. */
  readonly now?: (() => number) | undefined;
  /**
   * Also serves the official Events draft (the Triggers and Events working
   * group's design sketch): advertises `io.modelcontextprotocol/events` and
   * answers `events/list`, `events/poll`, `events/stream` and, with
   * `webhooks`, `events/subscribe` and `events/unsubscribe`. Default `false`.
   */
  readonly officialDraft?: boolean | undefined;
  /**
   * Offers the official Events draft's webhook delivery (`events/subscribe`)
   * with these settings; needs `officialDraft`. Default: not offered.
   */
  readonly webhooks?: EventWebhookOptions | undefined;
  /** Interval of `notifications/events/heartbeat` on an `events/stream` request, seconds. Default 15. */
  readonly heartbeatSeconds?: number | undefined;
}

/** A suggestion for how the client might respond; sent as the seed's `action_hint`. */
export interface PublishActionHint {
  /** Sent as `recommended_tool`. */
  readonly recommendedTool?: string | undefined;
  readonly parameters?: ActionHint['parameters'];
  readonly reason?: string | undefined;
  /** @deprecated Use `recommendedTool`; the snake_case spelling goes in the next major. */
  readonly recommended_tool?: string | undefined;
}

export interface PublishOptions {
  /** A suggestion for how the client might respond (seed `action_hint`). */
  readonly actionHint?: PublishActionHint | undefined;
}

/** Selects events for the server half's `watch`. */
export interface WatchOptions {
  readonly events: readonly string[];
  readonly filter?: Readonly<Record<string, unknown>> | undefined;
  /** Start after this cursor (`""` = the start of the log). Default: only events published from now on. */
  readonly after?: string | undefined;
}

/** The options with their defaults, checked. */
export interface ResolvedOptions {
  readonly defaultTtlSeconds: number;
  readonly maxTtlSeconds: number;
  readonly pollIntervalSeconds: number;
  readonly maxStreamSeconds: number;
  readonly maxSubscriptionsPerPrincipal: number;
  readonly retainEvents: number;
  readonly retainSeconds: number;
  readonly graceSeconds: number;
  readonly wakeIntervalMs: number;
  readonly keyPrefix: string;
  readonly logger: Logger;
  readonly now: () => number;
  readonly officialDraft: boolean;
  readonly webhooks: ResolvedWebhookOptions | undefined;
  readonly heartbeatSeconds: number;
}

/** The factory's name, as option errors and event declaration errors name it. */
export const WHERE = 'eventsServer';

/** Applies the defaults and refuses bad options with `ConfigurationError` (`INVALID_OPTION`). */
export function resolveOptions(options: EventsServerOptions): ResolvedOptions {
  const maxTtlSeconds = positiveIntegerOption(WHERE, 'maxTtlSeconds', options.maxTtlSeconds, 86_400);
  const defaultTtlSeconds = positiveIntegerOption(
    WHERE,
    'defaultTtlSeconds',
    options.defaultTtlSeconds,
    Math.min(3600, maxTtlSeconds),
  );
  if (defaultTtlSeconds > maxTtlSeconds) {
    throw new ConfigurationError(
      'INVALID_OPTION',
      `${WHERE}: defaultTtlSeconds (${defaultTtlSeconds}) must not exceed maxTtlSeconds (${maxTtlSeconds})`,
    );
  }
  const keyPrefix = options.keyPrefix ?? 'events';
  if (typeof keyPrefix !== 'string' || keyPrefix.length === 0) {
    throw new ConfigurationError('INVALID_OPTION', `${WHERE}: keyPrefix must be a non-empty string`);
  }
  if (options.authorize !== undefined && typeof options.authorize !== 'function') {
    throw new ConfigurationError('INVALID_OPTION', `${WHERE}: authorize must be a function`);
  }
  if (options.officialDraft !== undefined && typeof options.officialDraft !== 'boolean') {
    throw new ConfigurationError('INVALID_OPTION', `${WHERE}: officialDraft must be a boolean`);
  }
  if (options.webhooks !== undefined && options.officialDraft !== true) {
    throw new ConfigurationError(
      'INVALID_OPTION',
      `${WHERE}: webhooks needs officialDraft: true (they serve its events/subscribe)`,
    );
  }
  if (options.now !== undefined && typeof options.now !== 'function') {
    throw new ConfigurationError('INVALID_OPTION', `${WHERE}: now must be a function returning milliseconds`);
  }
  return {
    defaultTtlSeconds,
    maxTtlSeconds,
    pollIntervalSeconds: positiveIntegerOption(WHERE, 'pollIntervalSeconds', options.pollIntervalSeconds, 5),
    maxStreamSeconds: positiveIntegerOption(WHERE, 'maxStreamSeconds', options.maxStreamSeconds, 300),
    maxSubscriptionsPerPrincipal: positiveIntegerOption(
      WHERE,
      'maxSubscriptionsPerPrincipal',
      options.maxSubscriptionsPerPrincipal,
      100,
    ),
    retainEvents: positiveIntegerOption(WHERE, 'retainEvents', options.retainEvents, 10_000),
    retainSeconds: positiveIntegerOption(WHERE, 'retainSeconds', options.retainSeconds, 86_400),
    graceSeconds: positiveIntegerOption(WHERE, 'graceSeconds', options.graceSeconds, 3600),
    wakeIntervalMs: positiveIntegerOption(WHERE, 'wakeIntervalMs', options.wakeIntervalMs, 1000),
    keyPrefix,
    logger: options.logger ?? consoleLogger,
    now: options.now ?? Date.now,
    officialDraft: options.officialDraft === true,
    webhooks: resolveWebhookOptions(WHERE, options.webhooks),
    heartbeatSeconds: positiveIntegerOption(WHERE, 'heartbeatSeconds', options.heartbeatSeconds, 15),
  };
}

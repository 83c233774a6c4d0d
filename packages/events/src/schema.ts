/** The wire contract: identifiers, limits, and the TypeBox schema of every payload, with their JSON Schema document. */
import { extensionId } from '@ext/core';
import { notificationMethod } from '@ext/core/kit';
import Type, { type Static } from 'typebox';

/** The extension identifier: `io.github.mcp-ext/events`. */
export const EVENTS_ID = extensionId('events');

/** npm package name; the core negotiates extensions by it. */
export const EVENTS_PACKAGE = '@ext/events';

/** Wire contract version this package speaks. */
export const EVENTS_WIRE_VERSION = '1.0';

/** Where this package's JSON Schemas are identified (one folder per wire version). */
export const SCHEMA_BASE = 'https://mcp-ext.github.io/schemas/events/1.0';

/** Subscription ids and event type names: safe in store keys and logs. */
export const SUBSCRIPTION_ID_PATTERN_SOURCE = '^[a-zA-Z0-9_\\-:.]{1,128}$';

/** Event type names: a letter, then letters, digits and `_-.:` (at most 128). */
export const EVENT_NAME_PATTERN_SOURCE = '^[a-zA-Z][a-zA-Z0-9_\\-.:]{0,127}$';

/** Longest cursor a server accepts; longer input is refused before any lookup. */
export const MAX_CURSOR_LENGTH = 256;

/** Most event types one subscription may name. */
export const MAX_EVENTS_PER_SUBSCRIPTION = 100;

/** Most events one poll returns. */
export const MAX_POLL_LIMIT = 1000;

/** How events reach a subscriber. */
export const DELIVERY_MODES = ['notification', 'stream', 'poll'] as const;
export type DeliveryMode = (typeof DELIVERY_MODES)[number];

/**
 * Why a subscription ended (the termination notice's `reason`). A server
 * may send other reasons too; clients treat unknown ones like `revoked`.
 */
export const TERMINATION_REASONS = ['expired', 'unsubscribed', 'revoked', 'server_shutdown'] as const;
export type TerminationReason = (typeof TERMINATION_REASONS)[number];

/** The notification methods of this extension: `notifications/<id>/<event>`. */
export const EVENTS_NOTIFICATIONS = { event: 'event', terminated: 'terminated' } as const;

/** The notification method of one kind under an identifier (the negotiated one). */
export function eventsNotification(id: string, kind: keyof typeof EVENTS_NOTIFICATIONS): string {
  return notificationMethod(id, EVENTS_NOTIFICATIONS, kind);
}

/** The method `<id>/<verb>` under an identifier. */
export function eventsMethod(id: string, verb: 'list' | 'subscribe' | 'unsubscribe' | 'poll' | 'stream'): string {
  return `${id}/${verb}`;
}

const SubscriptionId = Type.String({ pattern: SUBSCRIPTION_ID_PATTERN_SOURCE });
const Cursor = Type.String({ maxLength: MAX_CURSOR_LENGTH });
const Timestamp = Type.String({ format: 'date-time' });
const JsonObject = Type.Record(Type.String(), Type.Unknown());
const Delivery = Type.Union([Type.Literal('notification'), Type.Literal('stream'), Type.Literal('poll')]);

/** What the server advertises in `capabilities.extensions[EVENTS_ID]`. Unknown fields are ignored. */
export const EventsServerSettingsSchema = Type.Object(
  {
    version: Type.String(),
    /** How the server can deliver events to this client. */
    delivery: Type.Optional(Type.Array(Delivery)),
    /** How often a polling client should poll. */
    poll_interval_seconds: Type.Optional(Type.Integer({ minimum: 1 })),
    default_ttl_seconds: Type.Optional(Type.Integer({ minimum: 1 })),
    max_ttl_seconds: Type.Optional(Type.Integer({ minimum: 1 })),
    /** Longest a single `<id>/stream` request stays open before the client reopens it. */
    max_stream_seconds: Type.Optional(Type.Integer({ minimum: 1 })),
  },
  { $id: `${SCHEMA_BASE}/server-settings.json`, title: 'EventsServerSettings' },
);
export type EventsServerSettings = Static<typeof EventsServerSettingsSchema>;

/** What the client advertises: only the wire version. Unknown fields are ignored. */
export const EventsClientSettingsSchema = Type.Object(
  { version: Type.String() },
  { $id: `${SCHEMA_BASE}/client-settings.json`, title: 'EventsClientSettings' },
);
export type EventsClientSettings = Static<typeof EventsClientSettingsSchema>;

/** One event type as `<id>/list` describes it. */
export const EventTypeDescriptorSchema = Type.Object(
  {
    name: Type.String({ pattern: EVENT_NAME_PATTERN_SOURCE }),
    description: Type.String(),
    /** JSON Schema of the event's `payload`. */
    payload_schema: JsonObject,
    /** JSON Schema of the filter arguments the event accepts (an object schema; no properties = no filter). */
    filter_schema: JsonObject,
  },
  { $id: `${SCHEMA_BASE}/event-type.json`, title: 'EventTypeDescriptor' },
);
export type EventTypeDescriptor = Static<typeof EventTypeDescriptorSchema>;

/** Result of `<id>/list`. */
export const ListEventsResultSchema = Type.Object(
  {
    events: Type.Array(Type.Ref(`${SCHEMA_BASE}/event-type.json`)),
    poll_interval_seconds: Type.Integer({ minimum: 1 }),
  },
  { $id: `${SCHEMA_BASE}/list-result.json`, title: 'ListEventsResult' },
);
export interface ListEventsResult {
  events: EventTypeDescriptor[];
  poll_interval_seconds: number;
}

/**
 * Params of `<id>/subscribe`: the seed's `SubscriptionRequest`, plus
 * `cursor` (start after this position, to resume without a gap) and
 * `delivery` (the client's preferred way to receive).
 */
export const SubscriptionRequestSchema = Type.Object(
  {
    subscription_id: Type.Optional(SubscriptionId),
    events: Type.Array(Type.String({ pattern: EVENT_NAME_PATTERN_SOURCE }), {
      minItems: 1,
      maxItems: MAX_EVENTS_PER_SUBSCRIPTION,
    }),
    filter: Type.Optional(JsonObject),
    ttl_seconds: Type.Optional(Type.Integer({ minimum: 1 })),
    cursor: Type.Optional(Cursor),
    delivery: Type.Optional(Delivery),
  },
  { $id: `${SCHEMA_BASE}/subscription-request.json`, title: 'SubscriptionRequest' },
);
export type SubscriptionRequest = Static<typeof SubscriptionRequestSchema>;

/**
 * Result of `<id>/subscribe`: the seed's `SubscriptionResponse`, plus the
 * start `cursor`, the chosen `delivery`, the granted `ttl_seconds` and
 * `poll_interval_seconds`.
 */
export const SubscriptionResponseSchema = Type.Object(
  {
    subscription_id: SubscriptionId,
    status: Type.Union([Type.Literal('active'), Type.Literal('denied')]),
    expires_at: Type.Optional(Timestamp),
    supported_events: Type.Optional(Type.Array(Type.String())),
    reason: Type.Optional(Type.String()),
    cursor: Type.Optional(Cursor),
    delivery: Type.Optional(Delivery),
    ttl_seconds: Type.Optional(Type.Integer({ minimum: 1 })),
    poll_interval_seconds: Type.Optional(Type.Integer({ minimum: 1 })),
  },
  { $id: `${SCHEMA_BASE}/subscription-response.json`, title: 'SubscriptionResponse' },
);
export type SubscriptionResponse = Static<typeof SubscriptionResponseSchema>;

/** A suggestion for how the client might respond (seed `EventNotification.action_hint`). */
export const ActionHintSchema = Type.Object(
  {
    recommended_tool: Type.Optional(Type.String()),
    parameters: Type.Optional(JsonObject),
    reason: Type.Optional(Type.String()),
  },
  { $id: `${SCHEMA_BASE}/action-hint.json`, title: 'ActionHint' },
);
export type ActionHint = Static<typeof ActionHintSchema>;

/**
 * Params of `notifications/<id>/event` and the items of a poll: the seed's
 * `EventNotification`, plus the event's `cursor` and `previous_cursor`, the
 * cursor of the event sent before it on this subscription (so a client can
 * tell a gap from a filtered-out event).
 */
export const EventNotificationSchema = Type.Object(
  {
    type: Type.Literal('event'),
    subscription_id: SubscriptionId,
    event: Type.String(),
    timestamp: Timestamp,
    payload: Type.Optional(JsonObject),
    action_hint: Type.Optional(Type.Ref(`${SCHEMA_BASE}/action-hint.json`)),
    cursor: Cursor,
    previous_cursor: Cursor,
  },
  { $id: `${SCHEMA_BASE}/event-notification.json`, title: 'EventNotification' },
);
export interface EventNotification {
  type: 'event';
  subscription_id: string;
  event: string;
  timestamp: string;
  payload?: Record<string, unknown>;
  action_hint?: ActionHint;
  cursor: string;
  previous_cursor: string;
}

/** Params of `notifications/<id>/terminated`: the subscription ended early or expired. */
export const TerminationNoticeSchema = Type.Object(
  {
    subscription_id: SubscriptionId,
    reason: Type.String({ minLength: 1, maxLength: 64 }),
    message: Type.Optional(Type.String()),
    /** The last position delivered on this subscription: resubscribe with it to miss nothing. */
    cursor: Cursor,
  },
  { $id: `${SCHEMA_BASE}/termination-notice.json`, title: 'TerminationNotice' },
);
export type TerminationNotice = Static<typeof TerminationNoticeSchema>;

/** Params of `<id>/unsubscribe`: the seed's `UnsubscribeRequest`. */
export const UnsubscribeRequestSchema = Type.Object(
  { subscription_id: SubscriptionId },
  { $id: `${SCHEMA_BASE}/unsubscribe-request.json`, title: 'UnsubscribeRequest' },
);
export type UnsubscribeRequest = Static<typeof UnsubscribeRequestSchema>;

export const UnsubscribeResultSchema = Type.Object(
  { subscription_id: SubscriptionId, status: Type.Literal('unsubscribed') },
  { $id: `${SCHEMA_BASE}/unsubscribe-result.json`, title: 'UnsubscribeResult' },
);
export type UnsubscribeResult = Static<typeof UnsubscribeResultSchema>;

/** Params of `<id>/poll`. Without `cursor`, the server continues from where this subscription's last poll ended. */
export const PollRequestSchema = Type.Object(
  {
    subscription_id: SubscriptionId,
    cursor: Type.Optional(Cursor),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_POLL_LIMIT })),
  },
  { $id: `${SCHEMA_BASE}/poll-request.json`, title: 'PollRequest' },
);
export type PollRequest = Static<typeof PollRequestSchema>;

/** Result of `<id>/poll`. */
export const PollResultSchema = Type.Object(
  {
    subscription_id: SubscriptionId,
    status: Type.Union([Type.Literal('active'), Type.Literal('terminated')]),
    events: Type.Array(Type.Ref(`${SCHEMA_BASE}/event-notification.json`)),
    /** Poll again after this position. */
    cursor: Cursor,
    /** More events are waiting: poll again now. */
    has_more: Type.Boolean(),
    poll_interval_seconds: Type.Integer({ minimum: 1 }),
    expires_at: Timestamp,
    reason: Type.Optional(Type.String()),
  },
  { $id: `${SCHEMA_BASE}/poll-result.json`, title: 'PollResult' },
);
export interface PollResult {
  subscription_id: string;
  status: 'active' | 'terminated';
  events: EventNotification[];
  cursor: string;
  has_more: boolean;
  poll_interval_seconds: number;
  expires_at: string;
  reason?: string;
}

/** Params of `<id>/stream`: deliver this subscription's events on this request, after `cursor`. */
export const StreamRequestSchema = Type.Object(
  { subscription_id: SubscriptionId, cursor: Type.Optional(Cursor) },
  { $id: `${SCHEMA_BASE}/stream-request.json`, title: 'StreamRequest' },
);
export type StreamRequest = Static<typeof StreamRequestSchema>;

/**
 * Result of `<id>/stream`, when the stream ends: `terminated` (a termination
 * notice was sent) or `active` (the stream reached `max_stream_seconds` or
 * another stream took over: reopen it from `cursor`).
 */
export const StreamResultSchema = Type.Object(
  {
    subscription_id: SubscriptionId,
    status: Type.Union([Type.Literal('active'), Type.Literal('terminated')]),
    cursor: Cursor,
    reason: Type.Optional(Type.String()),
  },
  { $id: `${SCHEMA_BASE}/stream-result.json`, title: 'StreamResult' },
);
export type StreamResult = Static<typeof StreamResultSchema>;

/** Every wire shape of this extension, by name, as JSON Schema 2020-12. */
export const EVENTS_SCHEMAS = {
  EventsServerSettings: EventsServerSettingsSchema,
  EventsClientSettings: EventsClientSettingsSchema,
  EventTypeDescriptor: EventTypeDescriptorSchema,
  ListEventsResult: ListEventsResultSchema,
  SubscriptionRequest: SubscriptionRequestSchema,
  SubscriptionResponse: SubscriptionResponseSchema,
  ActionHint: ActionHintSchema,
  EventNotification: EventNotificationSchema,
  TerminationNotice: TerminationNoticeSchema,
  UnsubscribeRequest: UnsubscribeRequestSchema,
  UnsubscribeResult: UnsubscribeResultSchema,
  PollRequest: PollRequestSchema,
  PollResult: PollResultSchema,
  StreamRequest: StreamRequestSchema,
  StreamResult: StreamResultSchema,
} as const;

/**
 * Every wire shape as one JSON Schema 2020-12 document (shipped as
 * `schema.json`), each shape an embedded resource under `$defs`.
 */
export function eventsJsonSchema(): Record<string, unknown> {
  const defs = Object.fromEntries(
    Object.entries(EVENTS_SCHEMAS).map(([name, schema]) => [name, JSON.parse(JSON.stringify(schema)) as unknown]),
  );
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: `${SCHEMA_BASE}/events.json`,
    title: 'MCP events extension (io.github.mcp-ext/events)',
    description:
      'Wire payloads of the events extension: settings, the list, subscribe, unsubscribe, poll and stream methods, and the event and termination notifications.',
    $defs: defs,
  };
}

/**
 * Pure: the wire of the Triggers and Events working group's design sketch
 * (the official Events draft): its identifier, method and notification
 * names, params schemas, result shapes, and the sketch's opaque cursors.
 */
import Type, { type Static } from 'typebox';

/** The identifier the sketch's implementations advertise in `capabilities.extensions`. */
export const EVENTS_SKETCH_ID = 'io.modelcontextprotocol/events';

/** What this server advertises under {@link EVENTS_SKETCH_ID}: the sketch's capability object. */
export const EVENTS_SKETCH_SETTINGS: Readonly<Record<string, unknown>> = { listChanged: false };

/** The sketch's methods, named outside the `<id>/<verb>` scheme. */
export const SKETCH_METHODS = {
  list: 'events/list',
  poll: 'events/poll',
  stream: 'events/stream',
  subscribe: 'events/subscribe',
  unsubscribe: 'events/unsubscribe',
} as const;

/** The sketch's notifications on an `events/stream` request. */
export const SKETCH_NOTIFICATIONS = {
  active: 'notifications/events/active',
  event: 'notifications/events/event',
  heartbeat: 'notifications/events/heartbeat',
  error: 'notifications/events/error',
  terminated: 'notifications/events/terminated',
} as const;

/** `_meta` key of every stream notification: the JSON-RPC id of its `events/stream` request. */
export const SKETCH_SUBSCRIPTION_META = 'io.modelcontextprotocol/subscriptionId';

/** Webhook header naming the subscription, so a receiver picks the secret before parsing the body. */
export const SKETCH_SUBSCRIPTION_HEADER = 'X-MCP-Subscription-Id';

/** The sketch's general-purpose error codes (server range). */
export const SKETCH_ERROR_CODES = {
  NotFound: -32011,
  Forbidden: -32012,
  ResourceExhausted: -32013,
  Unsupported: -32014,
  CallbackEndpointError: -32015,
} as const;

/** The sketch's delivery modes, as `events/list` lists them. */
export type SketchDeliveryMode = 'poll' | 'push' | 'webhook';

/** One entry of `events/list`. */
export interface SketchEventDescriptor {
  name: string;
  description: string;
  delivery: SketchDeliveryMode[];
  inputSchema: Record<string, unknown>;
  payloadSchema: Record<string, unknown>;
}

/** One event as every path carries it (poll's `events[]`, push notifications, webhook bodies). */
export interface EventOccurrence {
  eventId: string;
  name: string;
  timestamp: string;
  data: Record<string, unknown>;
  cursor?: string | null;
  _meta?: Record<string, unknown>;
}

export interface SketchPollResult {
  events: EventOccurrence[];
  cursor: string | null;
  truncated: boolean;
  hasMore: boolean;
  nextPollMs: number;
}

export interface SketchSubscribeResult {
  id: string;
  refreshBefore: string | null;
  cursor: string | null;
  truncated: boolean;
  deliveryStatus?: {
    active: boolean;
    lastDeliveryAt: string | null;
    lastError: string | null;
    failedSince?: string;
  };
}

const Cursor = Type.Union([Type.String({ maxLength: 512 }), Type.Null()]);
const Arguments = Type.Record(Type.String(), Type.Unknown());
const Milliseconds = Type.Integer({ minimum: 0 });

export const SketchListParamsSchema = Type.Object({ cursor: Type.Optional(Type.String({ maxLength: 512 })) });

export const SketchPollParamsSchema = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 128 }),
  arguments: Type.Optional(Arguments),
  cursor: Type.Optional(Cursor),
  maxAgeMs: Type.Optional(Milliseconds),
  maxEvents: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
  timeoutMs: Type.Optional(Milliseconds),
});

export const SketchStreamParamsSchema = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 128 }),
  arguments: Type.Optional(Arguments),
  cursor: Type.Optional(Cursor),
  maxAgeMs: Type.Optional(Milliseconds),
});

export const SketchSubscribeParamsSchema = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 128 }),
  arguments: Type.Optional(Arguments),
  delivery: Type.Object({
    mode: Type.Optional(Type.Literal('webhook')),
    url: Type.String({ minLength: 1, maxLength: 2048 }),
    secret: Type.String({ maxLength: 256 }),
  }),
  cursor: Type.Optional(Cursor),
  maxAgeMs: Type.Optional(Milliseconds),
  ttlMs: Type.Optional(Type.Union([Type.Integer({ minimum: 0 }), Type.Null()])),
});

export const SketchUnsubscribeParamsSchema = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 128 }),
  arguments: Type.Optional(Arguments),
  delivery: Type.Object({ url: Type.String({ minLength: 1, maxLength: 2048 }) }),
});

export type SketchPollParams = Static<typeof SketchPollParamsSchema>;
export type SketchStreamParams = Static<typeof SketchStreamParamsSchema>;
export type SketchSubscribeParams = Static<typeof SketchSubscribeParamsSchema>;
export type SketchUnsubscribeParams = Static<typeof SketchUnsubscribeParamsSchema>;

/** What each sketch param must be, for refusals that name it. */
export const SKETCH_FIELD_HINTS: Readonly<Record<string, string>> = {
  name: 'must be an event type name',
  arguments: 'must be an object',
  cursor: 'must be a cursor this server returned, or null',
  maxAgeMs: 'must be a non-negative integer (milliseconds)',
  maxEvents: 'must be an integer from 1 to 1000',
  timeoutMs: 'must be a non-negative integer (milliseconds)',
  ttlMs: 'must be a non-negative integer (milliseconds) or null',
  delivery: 'must be { mode: "webhook", url, secret }',
};

const CURSOR_PREFIX = 'c1_';

/** The sketch cursor for a log position (`""`, the start of the log, included). */
export function encodeSketchCursor(position: string): string {
  return `${CURSOR_PREFIX}${Buffer.from(position, 'utf8').toString('base64url')}`;
}

/** The log position of a sketch cursor this server minted, or `undefined` for anything else. */
export function decodeSketchCursor(cursor: string): string | undefined {
  if (!cursor.startsWith(CURSOR_PREFIX)) return undefined;
  const encoded = cursor.slice(CURSOR_PREFIX.length);
  if (!/^[A-Za-z0-9_-]*$/.test(encoded)) return undefined;
  const position = Buffer.from(encoded, 'base64url').toString('utf8');
  return Buffer.from(position, 'utf8').toString('base64url') === encoded ? position : undefined;
}

/** The stable id of the event at a log position: the same on every path, for the client's deduplication. */
export function sketchEventId(position: string): string {
  return `evt_${Buffer.from(position, 'utf8').toString('base64url')}`;
}

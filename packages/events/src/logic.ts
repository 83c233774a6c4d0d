import { canonicalJson, ConfigurationError, type JsonValue, type StreamEntry } from '@ext/core';
import type { TSchema } from 'typebox';
import Type from 'typebox';
import { Compile } from 'typebox/compile';
import {
  ActionHintSchema,
  EVENT_NAME_PATTERN_SOURCE,
  PollRequestSchema,
  StreamRequestSchema,
  SubscriptionRequestSchema,
  SUBSCRIPTION_ID_PATTERN_SOURCE,
  UnsubscribeRequestSchema,
  type ActionHint,
  type DeliveryMode,
  type EventNotification,
  type EventTypeDescriptor,
  type PollRequest,
  type StreamRequest,
  type SubscriptionRequest,
  type UnsubscribeRequest,
} from './schema.js';

// ---------------------------------------------------------------------------
// Event types

/** How a server author declares one event type. */
export interface EventDefinition<P extends TSchema = TSchema, F extends TSchema = TSchema> {
  /** What happened, for people and models choosing what to subscribe to. */
  readonly description: string;
  /** TypeBox object schema of the payload; `publish` checks payloads against it. */
  readonly payload: P;
  /** TypeBox object schema of the filter arguments subscribers may pass. Default: none accepted. */
  readonly filter?: F | undefined;
  /**
   * Whether an event matches a subscriber's filter (restricted to the
   * fields this type declares). Default {@link defaultMatch}.
   */
  readonly match?:
    ((filter: Readonly<Record<string, unknown>>, payload: Readonly<Record<string, unknown>>) => boolean) | undefined;
}

/** An event type ready for use: its definition compiled once. */
export interface CatalogEntry {
  readonly name: string;
  readonly descriptor: EventTypeDescriptor;
  readonly filterFields: ReadonlySet<string>;
  /** First violation of a payload, or `undefined` when valid. */
  checkPayload(payload: unknown): Violation | undefined;
  /** First violation of a filter restricted to this type's fields, or `undefined`. */
  checkFilter(filter: Readonly<Record<string, unknown>>): Violation | undefined;
  match(filter: Readonly<Record<string, unknown>>, payload: Readonly<Record<string, unknown>>): boolean;
}

export type Catalog = ReadonlyMap<string, CatalogEntry>;

/** A failed check: JSON Pointer of the offending value (relative to what was checked) and why. */
export interface Violation {
  readonly pointer: string;
  readonly message: string;
}

const EVENT_NAME = new RegExp(EVENT_NAME_PATTERN_SOURCE);
const SUBSCRIPTION_ID = new RegExp(SUBSCRIPTION_ID_PATTERN_SOURCE);

/** Whether `value` is a well-formed event type name. */
export function isEventName(value: unknown): value is string {
  return typeof value === 'string' && EVENT_NAME.test(value);
}

/** Whether `value` is a well-formed subscription id. */
export function isSubscriptionId(value: unknown): value is string {
  return typeof value === 'string' && SUBSCRIPTION_ID.test(value);
}

interface RawViolation {
  readonly instancePath: string;
  readonly keyword: string;
  readonly params?: unknown;
  readonly message?: string | undefined;
}

/**
 * The most useful violation: a missing property is named by its own
 * pointer; an unexpected one likewise. Never throws.
 */
export function firstViolation(errors: readonly RawViolation[]): Violation {
  const first = errors[0];
  if (first === undefined) return { pointer: '', message: 'is invalid' };
  const params = (typeof first.params === 'object' && first.params !== null ? first.params : {}) as {
    requiredProperties?: string[];
    additionalProperties?: string[];
  };
  if (first.keyword === 'required' && params.requiredProperties?.[0] !== undefined) {
    return { pointer: `${first.instancePath}/${escapePointer(params.requiredProperties[0])}`, message: 'is required' };
  }
  if (first.keyword === 'additionalProperties' && params.additionalProperties?.[0] !== undefined) {
    return {
      pointer: `${first.instancePath}/${escapePointer(params.additionalProperties[0])}`,
      message: 'is not accepted',
    };
  }
  if (first.keyword === 'boolean') return { pointer: first.instancePath, message: 'is not accepted' };
  return { pointer: first.instancePath, message: first.message ?? 'is invalid' };
}

/** One JSON Pointer segment (RFC 6901). */
export function escapePointer(segment: string): string {
  return segment.replaceAll('~', '~0').replaceAll('/', '~1');
}

function isObjectSchema(schema: unknown): schema is TSchema & { properties?: Record<string, unknown> } {
  return typeof schema === 'object' && schema !== null && (schema as { type?: unknown }).type === 'object';
}

function toJsonSchema(schema: TSchema): Record<string, unknown> {
  return JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The default filter match: every filter field equals the payload's field
 * of the same name (canonical JSON equality); a filter value that is an
 * array matches any of its items when the payload's value is not an array.
 */
export function defaultMatch(
  filter: Readonly<Record<string, unknown>>,
  payload: Readonly<Record<string, unknown>>,
): boolean {
  for (const [field, wanted] of Object.entries(filter)) {
    // The filter's fields are the subscriber's: a name the payload does not own (`constructor`) matches nothing.
    const actual = Object.hasOwn(payload, field) ? payload[field] : undefined;
    if (actual === undefined) return false;
    const actualJson = canonicalJson(actual);
    if (Array.isArray(wanted) && !Array.isArray(actual)) {
      if (!wanted.some((option) => canonicalJson(option) === actualJson)) return false;
    } else if (canonicalJson(wanted) !== actualJson) {
      return false;
    }
  }
  return true;
}

/** Validates the author's event declarations and compiles them. Throws `ConfigurationError` naming the event. */
export function buildCatalog(events: Readonly<Record<string, EventDefinition>>, where: string): Catalog {
  if (!isRecord(events) || Object.keys(events).length === 0) {
    throw new ConfigurationError(
      'INVALID_OPTION',
      `${where}: events must declare at least one event type ({ name: { description, payload } })`,
    );
  }
  const catalog = new Map<string, CatalogEntry>();
  for (const [name, definition] of Object.entries(events)) {
    if (!isEventName(name)) {
      throw new ConfigurationError(
        'INVALID_OPTION',
        `${where}: event name ${JSON.stringify(name)} must match ${EVENT_NAME_PATTERN_SOURCE}`,
      );
    }
    if (!isRecord(definition) || typeof definition.description !== 'string' || definition.description.length === 0) {
      throw new ConfigurationError('INVALID_OPTION', `${where}: event "${name}" needs a description`);
    }
    if (!isObjectSchema(definition.payload)) {
      throw new ConfigurationError(
        'INVALID_OPTION',
        `${where}: event "${name}": payload must be a TypeBox object schema (Type.Object)`,
      );
    }
    const filterSchema = definition.filter ?? Type.Object({}, { additionalProperties: false });
    if (!isObjectSchema(filterSchema)) {
      throw new ConfigurationError(
        'INVALID_OPTION',
        `${where}: event "${name}": filter must be a TypeBox object schema (Type.Object)`,
      );
    }
    if (definition.match !== undefined && typeof definition.match !== 'function') {
      throw new ConfigurationError('INVALID_OPTION', `${where}: event "${name}": match must be a function`);
    }
    const payloadCheck = Compile(definition.payload);
    const filterCheck = Compile(filterSchema);
    const filterFields = new Set(Object.keys(filterSchema.properties ?? {}));
    const match = definition.match ?? defaultMatch;
    catalog.set(name, {
      name,
      descriptor: {
        name,
        description: definition.description,
        payload_schema: toJsonSchema(definition.payload),
        filter_schema: toJsonSchema(filterSchema),
      },
      filterFields,
      checkPayload: (payload) =>
        payloadCheck.Check(payload) ? undefined : firstViolation(payloadCheck.Errors(payload)),
      checkFilter: (filter) => (filterCheck.Check(filter) ? undefined : firstViolation(filterCheck.Errors(filter))),
      match,
    });
  }
  return catalog;
}

/** The part of a subscriber's filter that one event type declares. */
export function projectFilter(
  filter: Readonly<Record<string, unknown>>,
  fields: ReadonlySet<string>,
): Record<string, unknown> {
  return Object.fromEntries(Object.entries(filter).filter(([field]) => fields.has(field)));
}

// ---------------------------------------------------------------------------
// Boundary parsing of method params

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

type Validator<T> = { Check(value: unknown): value is T; Errors(value: unknown): readonly RawViolation[] };
const validators = new Map<string, Validator<unknown>>();

function validatorFor<T>(schema: TSchema & { $id?: string }): Validator<T> {
  const key = schema.$id ?? '';
  let validator = validators.get(key);
  if (validator === undefined) {
    validator = Compile(schema);
    validators.set(key, validator);
  }
  return validator as Validator<T>;
}

function withoutMeta(params: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const { _meta: _ignored, ...rest } = params;
  return rest;
}

function parseWith<T>(
  schema: TSchema & { $id?: string },
  params: Readonly<Record<string, unknown>>,
  what: string,
): Parsed<T> {
  const validator = validatorFor<T>(schema);
  const body = withoutMeta(params);
  if (validator.Check(body)) return { ok: true, value: body };
  const violation = firstViolation(validator.Errors(body));
  const field = violation.pointer.split('/').filter(Boolean)[0] ?? 'params';
  // `field` comes from the request's own keys: only FIELD_HINTS' own entries are hints.
  const hint = (Object.hasOwn(FIELD_HINTS, field) ? FIELD_HINTS[field] : undefined) ?? violation.message;
  return {
    ok: false,
    failure: { code: 'INVALID_INPUT', field, pointer: violation.pointer, message: `Invalid ${what}: ${field} ${hint}` },
  };
}

/** Validates `<id>/subscribe` params (shape only; see {@link checkSubscription}). Never throws. */
export function parseSubscriptionRequest(params: Readonly<Record<string, unknown>>): Parsed<SubscriptionRequest> {
  return parseWith(SubscriptionRequestSchema, params, 'subscription request');
}

export function parseUnsubscribeRequest(params: Readonly<Record<string, unknown>>): Parsed<UnsubscribeRequest> {
  return parseWith(UnsubscribeRequestSchema, params, 'unsubscribe request');
}

export function parsePollRequest(params: Readonly<Record<string, unknown>>): Parsed<PollRequest> {
  return parseWith(PollRequestSchema, params, 'poll request');
}

export function parseStreamRequest(params: Readonly<Record<string, unknown>>): Parsed<StreamRequest> {
  return parseWith(StreamRequestSchema, params, 'stream request');
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
        pointer: `/events/${index}`,
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
        pointer: `/filter/${escapePointer(field)}`,
        message: `Filter field "${field}" is not accepted by the subscribed events (${accepted.join('; ')})`,
        details: { filter_field: field },
      };
    }
  }
  for (const entry of subscribed) {
    const violation = entry.checkFilter(projectFilter(filter, entry.filterFields));
    if (violation !== undefined) {
      const field = violation.pointer.split('/').filter(Boolean)[0] ?? '';
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

// ---------------------------------------------------------------------------
// Store layout

/** Principals may contain any character: encode them so keys cannot collide. */
function segment(principal: string): string {
  return encodeURIComponent(principal);
}

export function logStream(prefix: string): string {
  return `${prefix}:log`;
}

/** The newest cursor a publisher wrote; where a new subscription starts. */
export function headKey(prefix: string): string {
  return `${prefix}:head`;
}

/** Wake-ups and control messages between server instances. */
export function busChannel(prefix: string): string {
  return `${prefix}:bus`;
}

export function subscriptionKey(prefix: string, principal: string, subscriptionId: string): string {
  return `${prefix}:sub:${segment(principal)}:${subscriptionId}`;
}

/** One principal's live subscriptions, for the per-principal limit. */
export function principalIndexKey(prefix: string, principal: string): string {
  return `${prefix}:subs:${segment(principal)}`;
}

/** What the log holds for one published event. */
export interface LogEntry {
  readonly event: string;
  readonly timestamp: string;
  readonly payload: Record<string, unknown>;
  readonly action_hint?: ActionHint | undefined;
}

export function logEntryToJson(entry: LogEntry): JsonValue {
  return JSON.parse(JSON.stringify(entry)) as JsonValue;
}

let actionHintCheck: Validator<ActionHint> | undefined;

/** Whether an action hint is well-formed. */
export function isActionHint(value: unknown): value is ActionHint {
  actionHintCheck ??= validatorFor<ActionHint>(ActionHintSchema);
  return actionHintCheck.Check(value);
}

/** Reads a log entry; `undefined` for anything malformed (another writer's garbage is skipped, not fatal). */
export function parseLogEntry(value: JsonValue | undefined): LogEntry | undefined {
  if (!isRecord(value)) return undefined;
  const { event, timestamp, payload, action_hint: hint } = value;
  if (typeof event !== 'string' || typeof timestamp !== 'string' || !isRecord(payload)) return undefined;
  if (hint !== undefined && !isActionHint(hint)) return undefined;
  return hint === undefined ? { event, timestamp, payload } : { event, timestamp, payload, action_hint: hint };
}

/** A subscription as the store keeps it. */
export interface SubscriptionRecord {
  readonly v: 1;
  readonly subscription_id: string;
  readonly events: readonly string[];
  readonly filter: Readonly<Record<string, unknown>>;
  readonly delivery: DeliveryMode;
  readonly created_at: string;
  /** Expiry in epoch milliseconds. */
  readonly expires_ms: number;
  /** Where a poll without a cursor continues. */
  readonly cursor: string;
  /** Set once the subscription ended early (kept until the record's grace period ends). */
  readonly terminated?: { readonly reason: string; readonly message?: string | undefined } | undefined;
}

export function recordToJson(record: SubscriptionRecord): JsonValue {
  return JSON.parse(JSON.stringify(record)) as JsonValue;
}

const DELIVERIES: ReadonlySet<string> = new Set(['notification', 'stream', 'poll']);

/** Reads a stored subscription; `undefined` when absent or unreadable. */
export function parseRecord(value: JsonValue | undefined): SubscriptionRecord | undefined {
  if (!isRecord(value) || value.v !== 1) return undefined;
  const {
    subscription_id: id,
    events,
    filter,
    delivery,
    created_at: created,
    expires_ms: expires,
    cursor,
    terminated,
  } = value;
  if (!isSubscriptionId(id) || !Array.isArray(events) || !events.every((name) => typeof name === 'string'))
    return undefined;
  if (!isRecord(filter) || typeof delivery !== 'string' || !DELIVERIES.has(delivery)) return undefined;
  if (typeof created !== 'string' || typeof expires !== 'number' || typeof cursor !== 'string') return undefined;
  let ended: SubscriptionRecord['terminated'];
  if (terminated !== undefined) {
    if (!isRecord(terminated) || typeof terminated.reason !== 'string') return undefined;
    ended =
      typeof terminated.message === 'string'
        ? { reason: terminated.reason, message: terminated.message }
        : { reason: terminated.reason };
  }
  return {
    v: 1,
    subscription_id: id,
    events,
    filter,
    delivery: delivery as DeliveryMode,
    created_at: created,
    expires_ms: expires,
    cursor,
    ...(ended === undefined ? {} : { terminated: ended }),
  };
}

/** Why the record no longer delivers, or `undefined` while it is active. */
export function endedReason(
  record: SubscriptionRecord,
  now: number,
): { reason: string; message?: string | undefined } | undefined {
  if (record.terminated !== undefined) return record.terminated;
  return now >= record.expires_ms ? { reason: 'expired' } : undefined;
}

/** The live subscriptions of one principal (id → expiry ms), pruned of expired ones. */
export function parsePrincipalIndex(value: JsonValue | undefined, now: number): Record<string, number> {
  if (!isRecord(value)) return {};
  return Object.fromEntries(
    Object.entries(value).filter((entry): entry is [string, number] => typeof entry[1] === 'number' && entry[1] > now),
  );
}

/** Messages on the bus channel. */
export type BusMessage =
  | { readonly kind: 'appended'; readonly cursor: string }
  /** A subscription ended: deliveries of it send a termination notice and stop. */
  | {
      readonly kind: 'terminated';
      readonly key: string;
      readonly reason: string;
      readonly message?: string | undefined;
    }
  /** A new delivery of the subscription took over: every other one stops quietly. */
  | { readonly kind: 'replaced'; readonly key: string; readonly token: string };

export function parseBusMessage(value: JsonValue): BusMessage | undefined {
  if (!isRecord(value)) return undefined;
  if (value.kind === 'appended' && typeof value.cursor === 'string') return { kind: 'appended', cursor: value.cursor };
  if (value.kind === 'terminated' && typeof value.key === 'string' && typeof value.reason === 'string') {
    return {
      kind: 'terminated',
      key: value.key,
      reason: value.reason,
      message: typeof value.message === 'string' ? value.message : undefined,
    };
  }
  if (value.kind === 'replaced' && typeof value.key === 'string' && typeof value.token === 'string') {
    return { kind: 'replaced', key: value.key, token: value.token };
  }
  return undefined;
}

export function busMessageToJson(message: BusMessage): JsonValue {
  return JSON.parse(JSON.stringify(message)) as JsonValue;
}

// ---------------------------------------------------------------------------
// Reading the log for one subscriber

/** What a subscriber wants from the log. */
export interface Selector {
  readonly events: ReadonlySet<string>;
  readonly filter: Readonly<Record<string, unknown>>;
}

/** Whether a log entry is for this subscriber. Never throws: a throwing `match` counts as no match and is reported. */
export function selects(
  selector: Selector,
  entry: LogEntry,
  catalog: Catalog,
  onMatchError: (error: unknown) => void,
): boolean {
  if (!selector.events.has(entry.event)) return false;
  const type = catalog.get(entry.event);
  if (type === undefined) return false;
  try {
    return type.match(projectFilter(selector.filter, type.filterFields), entry.payload);
  } catch (error) {
    onMatchError(error);
    return false;
  }
}

/** The wire form of one matching entry on a subscription. */
export function toNotification(
  subscriptionId: string,
  id: string,
  entry: LogEntry,
  previousCursor: string,
): EventNotification {
  const notification: EventNotification = {
    type: 'event',
    subscription_id: subscriptionId,
    event: entry.event,
    timestamp: entry.timestamp,
    payload: entry.payload,
    cursor: id,
    previous_cursor: previousCursor,
  };
  if (entry.action_hint !== undefined) notification.action_hint = entry.action_hint;
  return notification;
}

/** The store's cursor for a wire cursor: `""` is the start of the log. */
export function storeCursor(cursor: string): string | undefined {
  return cursor === '' ? undefined : cursor;
}

export interface ScanResult {
  readonly matches: readonly { readonly id: string; readonly entry: LogEntry }[];
  /** Where the next scan continues. */
  readonly cursor: string;
  /** The scan stopped before the end of the log (limit or scan budget reached). */
  readonly hasMore: boolean;
}

/**
 * Reads the log after `after` and keeps what `wanted` accepts, until
 * `limit` matches, the end of the log, or `maxScan` entries read. The
 * returned cursor never skips an unread entry.
 */
export async function scanLog(
  read: (after: string | undefined, limit: number) => Promise<StreamEntry[]>,
  after: string,
  wanted: (entry: LogEntry) => boolean,
  limit: number,
  maxScan: number,
  batch = 500,
): Promise<ScanResult> {
  const matches: { id: string; entry: LogEntry }[] = [];
  let cursor = after;
  let scanned = 0;
  for (;;) {
    const size = Math.max(1, Math.min(batch, maxScan - scanned));
    const entries = await read(storeCursor(cursor), size);
    for (const raw of entries) {
      cursor = raw.id;
      scanned += 1;
      const entry = parseLogEntry(raw.value);
      if (entry !== undefined && wanted(entry)) {
        matches.push({ id: raw.id, entry });
        if (matches.length >= limit) return { matches, cursor, hasMore: true };
      }
    }
    if (entries.length < size) return { matches, cursor, hasMore: false };
    if (scanned >= maxScan) return { matches, cursor, hasMore: true };
  }
}

// ---------------------------------------------------------------------------
// Client-side ordering

/** What to do with an arriving event notification. */
export type SequenceAction = 'deliver' | 'duplicate' | 'gap';

/**
 * Keeps one subscription's events in order without duplicates on the
 * client. Each notification names the cursor of the one sent before it;
 * when that is not the last one delivered, something was lost in between
 * (a gap: fetch the missing events by polling from `last`) or this one was
 * already delivered (a duplicate). Remembers the last `memory` cursors.
 */
export class EventSequencer {
  #last: string;
  readonly #seen = new Set<string>();
  readonly #order: string[] = [];
  readonly #memory: number;

  constructor(start: string, memory = 1024) {
    this.#last = start;
    this.#memory = memory;
  }

  /** The cursor of the last delivered event (or the start). */
  get last(): string {
    return this.#last;
  }

  /** Classifies a notification; does not record it (call {@link delivered}). */
  classify(notification: Pick<EventNotification, 'cursor' | 'previous_cursor'>): SequenceAction {
    if (this.#seen.has(notification.cursor) || notification.cursor === this.#last) return 'duplicate';
    return notification.previous_cursor === this.#last ? 'deliver' : 'gap';
  }

  /** Whether this cursor was delivered recently. */
  has(cursor: string): boolean {
    return this.#seen.has(cursor) || cursor === this.#last;
  }

  /** Records a delivered event. */
  delivered(cursor: string): void {
    this.#last = cursor;
    if (this.#seen.has(cursor)) return;
    this.#seen.add(cursor);
    this.#order.push(cursor);
    if (this.#order.length > this.#memory) {
      const dropped = this.#order.shift();
      if (dropped !== undefined) this.#seen.delete(dropped);
    }
  }
}

/**
 * Pure: what this extension keeps in the store (keys, log entries,
 * subscription records, the per-principal index, bus messages) and how each
 * is written and read back; unreadable values read as absent.
 */
import { isRecord, lazyValidator, type JsonValue } from '@ext/core/kit';
import { isSubscriptionId } from './catalog.js';
import { ActionHintSchema, type ActionHint, type DeliveryMode } from './schema.js';

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

const actionHint = lazyValidator(ActionHintSchema);

/** Whether an action hint is well-formed. */
export function isActionHint(value: unknown): value is ActionHint {
  return actionHint().Check(value);
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

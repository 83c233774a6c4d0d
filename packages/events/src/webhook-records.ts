/**
 * Pure: what the store keeps for the official Events draft's webhook
 * subscriptions (the subscription, its delivery status, the dead letters),
 * their keys, and how each is read back; unreadable values read as absent.
 */
import { canonicalHash, isRecord, type JsonValue } from '@ext/core/kit';

/** A webhook subscription, keyed by (principal, url, name, arguments). */
export interface WebhookRecord {
  readonly v: 1;
  readonly id: string;
  readonly principal: string;
  readonly name: string;
  readonly arguments: Readonly<Record<string, unknown>>;
  readonly url: string;
  readonly secret: string;
  readonly created_at: string;
  /** Expiry in epoch milliseconds. */
  readonly expires_ms: number;
  /** The log position delivery started from. */
  readonly cursor: string;
}

/** Where delivery of one subscription stands: written by the delivering instance after each event. */
export interface WebhookStatus {
  readonly v: 1;
  /** The log position after the last event delivered or given up on: safe to resume from. */
  readonly cursor: string;
  readonly last_delivery_at?: string | undefined;
  /** A category (`http_4xx`, `http_5xx`, `timeout`, `connection_refused`, `blocked_address`), never endpoint text. */
  readonly last_error?: string | undefined;
  readonly failed_since?: string | undefined;
}

/** An event a webhook never accepted: kept for an operator to read. */
export interface DeadLetter {
  readonly subscription_id: string;
  readonly principal: string;
  readonly event_id: string;
  readonly event: string;
  /** The event's sketch cursor (replay from before it with `events/poll`). */
  readonly cursor: string;
  /** The callback URL's origin (its path may hold a token). */
  readonly endpoint: string;
  readonly attempts: number;
  readonly last_status?: number | undefined;
  readonly reason: string;
  readonly at: string;
}

/** The draft's derived id: deterministic over the subscription key, a routing handle (not a capability). */
export function webhookSubscriptionId(
  principal: string,
  url: string,
  name: string,
  args: Readonly<Record<string, unknown>>,
): string {
  return `sub_${canonicalHash([principal, url, name, args]).slice(0, 16)}`;
}

export function webhookKey(prefix: string, id: string): string {
  return `${prefix}:webhook:${id}`;
}

export function webhookStatusKey(prefix: string, id: string): string {
  return `${prefix}:webhook-status:${id}`;
}

export function deadLetterStream(prefix: string): string {
  return `${prefix}:dead-letters`;
}

export function toJson(value: WebhookRecord | WebhookStatus | DeadLetter): JsonValue {
  return JSON.parse(JSON.stringify(value)) as JsonValue;
}

const optionalString = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

export function parseWebhookRecord(value: JsonValue | undefined): WebhookRecord | undefined {
  if (!isRecord(value) || value.v !== 1) return undefined;
  const { id, principal, name, arguments: args, url, secret, created_at: created, expires_ms: expires, cursor } = value;
  if (typeof id !== 'string' || typeof principal !== 'string' || typeof name !== 'string' || !isRecord(args)) {
    return undefined;
  }
  if (typeof url !== 'string' || typeof secret !== 'string' || typeof created !== 'string') return undefined;
  if (typeof expires !== 'number' || typeof cursor !== 'string') return undefined;
  return {
    v: 1,
    id,
    principal,
    name,
    arguments: args,
    url,
    secret,
    created_at: created,
    expires_ms: expires,
    cursor,
  };
}

export function parseWebhookStatus(value: JsonValue | undefined): WebhookStatus | undefined {
  if (!isRecord(value) || value.v !== 1 || typeof value.cursor !== 'string') return undefined;
  return {
    v: 1,
    cursor: value.cursor,
    last_delivery_at: optionalString(value.last_delivery_at),
    last_error: optionalString(value.last_error),
    failed_since: optionalString(value.failed_since),
  };
}

export function parseDeadLetter(value: JsonValue | undefined): DeadLetter | undefined {
  if (!isRecord(value)) return undefined;
  const { subscription_id: id, principal, event_id: eventId, event, cursor, endpoint, attempts, reason, at } = value;
  const strings = [id, principal, eventId, event, cursor, endpoint, reason, at];
  if (!strings.every((item) => typeof item === 'string') || typeof attempts !== 'number') return undefined;
  const status = typeof value.last_status === 'number' ? value.last_status : undefined;
  return {
    subscription_id: id as string,
    principal: principal as string,
    event_id: eventId as string,
    event: event as string,
    cursor: cursor as string,
    endpoint: endpoint as string,
    attempts,
    reason: reason as string,
    at: at as string,
    ...(status === undefined ? {} : { last_status: status }),
  };
}

/** The draft's `lastError` category of a failed delivery: a fixed word, never what the endpoint said. */
export function errorCategory(reason: string, status: number | undefined): string {
  if (status !== undefined) return status >= 500 ? 'http_5xx' : 'http_4xx';
  if (reason === 'timed out') return 'timeout';
  if (reason === 'network error') return 'connection_refused';
  return 'blocked_address';
}

/**
 * Client side: what a subscriber asks `subscribeEvents` for, and the pure
 * rules drawn from it (the subscribe request, when to resubscribe).
 */
import type { DeliveryMode, EventNotification, SubscriptionRequest, TerminationNotice } from './schema.js';

/** Where a subscription stands on the client. */
export type SubscriptionState = 'active' | 'denied' | 'terminated' | 'unsubscribed' | 'disconnected' | 'closed';

export interface SubscribeOptions {
  readonly events: readonly string[];
  /** Filter arguments (see each event type's `filter_schema`). */
  readonly filter?: Readonly<Record<string, unknown>> | undefined;
  readonly ttlSeconds?: number | undefined;
  /** Default: a new UUID. Reusing an id replaces that subscription. */
  readonly subscriptionId?: string | undefined;
  /** Start after this cursor (resume without a gap); default: events from now on. */
  readonly cursor?: string | undefined;
  /** How to receive. Default `'auto'`: the server's choice (pushed on stateful connections, a stream otherwise). */
  readonly delivery?: DeliveryMode | 'auto' | undefined;
  /** Receives each event once, in order. */
  readonly onEvent: (event: EventNotification) => void | Promise<void>;
  /** Called with every termination notice, before any resubscription. */
  readonly onTerminated?: ((notice: TerminationNotice) => void) | undefined;
  /** Called when the server cannot be reached `maxRetries` times in a row; `resume()` continues. */
  readonly onDisconnected?: ((error: unknown) => void) | undefined;
  /**
   * Subscribe again (from the last delivered event) after a termination
   * with this reason. Default: after `expired` and `server_shutdown`.
   */
  readonly resubscribe?: boolean | ((reason: string) => boolean) | undefined;
  /** Poll interval in polling mode. Default: the server's `poll_interval_seconds`. */
  readonly pollIntervalMs?: number | undefined;
  /** Wait between retries of a failed stream or poll. Default 1000. */
  readonly retryDelayMs?: number | undefined;
  /** Consecutive failures before the subscription is `disconnected`. Default 3. */
  readonly maxRetries?: number | undefined;
}

const DEFAULT_RESUBSCRIBE: ReadonlySet<string> = new Set(['expired', 'server_shutdown']);

/** Whether to subscribe again after a termination with `reason`, by the subscriber's `resubscribe` rule. */
export function shouldResubscribe(rule: SubscribeOptions['resubscribe'], reason: string): boolean {
  if (typeof rule === 'function') return rule(reason);
  if (typeof rule === 'boolean') return rule && reason !== 'unsubscribed';
  return DEFAULT_RESUBSCRIBE.has(reason);
}

/** The `<id>/subscribe` params for subscription `id`, starting after `cursor` when there is one. */
export function subscriptionRequest(
  id: string,
  options: SubscribeOptions,
  cursor: string | undefined,
): SubscriptionRequest {
  const request: SubscriptionRequest = { subscription_id: id, events: [...options.events] };
  if (cursor !== undefined) request.cursor = cursor;
  if (options.filter !== undefined) request.filter = { ...options.filter };
  if (options.ttlSeconds !== undefined) request.ttl_seconds = options.ttlSeconds;
  const preferred = options.delivery ?? 'auto';
  if (preferred !== 'auto') request.delivery = preferred;
  return request;
}

/** Client side: one-shot calls of the extension's methods (list, poll, unsubscribe) under the negotiated identifier. */
import { isRecord } from '@ext/core/kit';
import { WireError, type ExtendedClient } from '@ext/core';
import { isAnswer, malformed } from './responses.js';
import { EVENTS_ID, eventsMethod, type ListEventsResult, type PollResult } from './schema.js';

/** The method `<id>/<verb>` under the negotiated identifier; `undefined` without negotiation. */
export function methodFor(client: ExtendedClient, verb: Parameters<typeof eventsMethod>[1]): string | undefined {
  const negotiated = client.negotiated(EVENTS_ID);
  return negotiated === undefined ? undefined : eventsMethod(negotiated.id, verb);
}

/** The event types the server publishes, with their payload and filter schemas; `undefined` without negotiation. */
export async function listEventTypes(client: ExtendedClient): Promise<ListEventsResult | undefined> {
  const method = methodFor(client, 'list');
  if (method === undefined) return undefined;
  const result = await client.request(method, {});
  if (!isAnswer('list', result)) throw malformed('event list');
  return result;
}

export interface PollOptions {
  /** Continue after this cursor; default: where this subscription's last poll ended. */
  readonly cursor?: string | undefined;
  readonly limit?: number | undefined;
}

/** One poll of a subscription; `undefined` without negotiation. */
export async function pollEvents(
  client: ExtendedClient,
  subscriptionId: string,
  options: PollOptions = {},
): Promise<PollResult | undefined> {
  const method = methodFor(client, 'poll');
  if (method === undefined) return undefined;
  const params: Record<string, unknown> = { subscription_id: subscriptionId };
  if (options.cursor !== undefined) params.cursor = options.cursor;
  if (options.limit !== undefined) params.limit = options.limit;
  const result = await client.request(method, params);
  if (!isAnswer('poll', result)) throw malformed('poll result');
  return result;
}

/** Ends a subscription on the server; `false` when the server knows no such subscription, `undefined` without negotiation. */
export async function unsubscribeEvents(client: ExtendedClient, subscriptionId: string): Promise<boolean | undefined> {
  const method = methodFor(client, 'unsubscribe');
  if (method === undefined) return undefined;
  try {
    await client.request(method, { subscription_id: subscriptionId });
    return true;
  } catch (error) {
    if (isNotFound(error)) return false;
    throw error;
  }
}

/** Whether a failed request says the server knows no such subscription. */
export function isNotFound(error: unknown): boolean {
  if (!WireError.isInstance(error)) return false;
  return isRecord(error.data) && error.data.code === 'SUBSCRIPTION_NOT_FOUND';
}

/** The methods served as tools too, for clients that can only call tools (polling delivery). */
import { registerMethodTools } from '@ext/core/kit';
import { type ExtendedServer, type ToolInfo } from '@ext/core';
import * as z from 'zod';
import { EVENTS_PACKAGE } from './schema.js';

/** The tool names of {@link registerEventTools}. */
export const EVENT_TOOL_NAMES = ['list_events', 'subscribe_events', 'poll_events', 'unsubscribe_events'] as const;

const subscriptionId = z
  .string()
  .regex(/^[a-zA-Z0-9_\-:.]{1,128}$/)
  .describe('The subscription id.');

function count(result: Record<string, unknown>, field: string): number {
  const value = result[field];
  return Array.isArray(value) ? value.length : 0;
}

/**
 * Serves `<id>/list`, `<id>/subscribe`, `<id>/poll` and `<id>/unsubscribe`
 * as the tools `list_events`, `subscribe_events`, `poll_events` and
 * `unsubscribe_events` too, for clients that can only call tools (EVT-23).
 * They run the methods' own handlers. A tools-only host cannot receive
 * notifications or keep a request open, so its subscriptions are polled.
 */
export function registerEventTools(server: Pick<ExtendedServer, 'registerTool' | 'composed'>): ToolInfo[] {
  return registerMethodTools(server, EVENTS_PACKAGE, [
    {
      verb: 'list',
      name: 'list_events',
      description:
        'Lists the event types this server publishes, with the schema of each payload and the filter arguments each accepts.',
      inputSchema: z.object({}),
      annotations: { readOnlyHint: true, openWorldHint: false },
      summary: (result) => `${String(count(result, 'events'))} event type(s).`,
    },
    {
      verb: 'subscribe',
      name: 'subscribe_events',
      description:
        'Subscribes to event types (optionally filtered); then call poll_events with the subscription id to receive them.',
      inputSchema: z.object({
        events: z.array(z.string()).min(1).max(100).describe('Event type names, from list_events.'),
        filter: z.record(z.string(), z.unknown()).optional().describe('Filter arguments the event types declare.'),
        ttl_seconds: z.number().int().min(1).optional().describe('How long the subscription lasts.'),
        subscription_id: subscriptionId.optional(),
        delivery: z.literal('poll').default('poll').describe('Tool callers receive events by polling.'),
      }),
      annotations: { readOnlyHint: false, idempotentHint: true, openWorldHint: false },
      summary: (result) =>
        result.status === 'active'
          ? `Subscribed as ${String(result.subscription_id)} until ${String(result.expires_at)}.`
          : `Denied: ${typeof result.reason === 'string' ? result.reason : 'no reason given'}`,
    },
    {
      verb: 'poll',
      name: 'poll_events',
      description: 'Returns the events of a subscription that arrived since the last poll (or after the given cursor).',
      inputSchema: z.object({
        subscription_id: subscriptionId,
        cursor: z.string().max(256).optional().describe('Continue after this cursor; default: after the last poll.'),
        limit: z.number().int().min(1).max(1000).optional(),
      }),
      annotations: { readOnlyHint: false, idempotentHint: false, openWorldHint: false },
      summary: (result) =>
        result.status === 'terminated'
          ? `The subscription ended: ${typeof result.reason === 'string' ? result.reason : 'no reason given'}.`
          : `${String(count(result, 'events'))} event(s)${result.has_more === true ? '; more are waiting' : ''}.`,
    },
    {
      verb: 'unsubscribe',
      name: 'unsubscribe_events',
      description: 'Ends a subscription.',
      inputSchema: z.object({ subscription_id: subscriptionId }),
      annotations: { readOnlyHint: false, idempotentHint: true, openWorldHint: false },
      summary: () => 'Unsubscribed.',
    },
  ]);
}

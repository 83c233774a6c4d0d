/**
 * Client side: one notification handler per client and identifier, routing
 * each event or termination notice to its subscription by id.
 */
import type { ExtendedClient } from '@ext/core';
import { eventsNotification } from './schema.js';

export interface Listener {
  event(params: Record<string, unknown>): void;
  terminated(params: Record<string, unknown>): void;
}

// One notification handler per client and identifier (v1's client keeps only one per method), routing by subscription id.
const routes = new WeakMap<ExtendedClient, Map<string, Map<string, Listener>>>();

/** The listeners by subscription id of `client` under identifier `id`, installing its handlers on first use. */
export function routeTable(client: ExtendedClient, id: string): Map<string, Listener> {
  let byId = routes.get(client);
  if (byId === undefined) {
    byId = new Map();
    routes.set(client, byId);
  }
  let table = byId.get(id);
  if (table === undefined) {
    const listeners = new Map<string, Listener>();
    const route = (kind: keyof Listener) => (params: Record<string, unknown>) => {
      const target = typeof params.subscription_id === 'string' ? listeners.get(params.subscription_id) : undefined;
      target?.[kind](params);
    };
    client.onNotification(eventsNotification(id, 'event'), route('event'));
    client.onNotification(eventsNotification(id, 'terminated'), route('terminated'));
    byId.set(id, listeners);
    table = listeners;
  }
  return table;
}

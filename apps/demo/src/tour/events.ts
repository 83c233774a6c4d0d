/** Step 14 of the tour: events, ticket changes pushed to a subscriber as they happen. */
import { eventsClient, listEventTypes, subscribeEvents } from '@ext/events/client';
import { compact, dig } from './explain.js';
import { expect, ok, print, row } from './output.js';
import { open, type TourTarget } from './target.js';

const EVENTS_PREFIX = 'io.github.mcp-ext/events';

/** Ticket changes pushed to a subscriber as they happen. */
export async function eventsStep(tour: TourTarget): Promise<void> {
  const connection = await open(tour, { extensions: [eventsClient()], name: 'watching-client' });
  try {
    const client = connection.extended;
    expect(client !== undefined, 'the watching client has no extensions attached');
    const types = (await listEventTypes(client))?.events.map((type) => type.name) ?? [];
    row('client -> server', `${EVENTS_PREFIX}/list -> ${compact(types)}`);
    const received: { event: string; payload: unknown }[] = [];
    let arrived: () => void = () => undefined;
    const both = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    const subscription = await subscribeEvents(client, {
      events: ['ticket_created', 'ticket_closed'],
      onEvent: (event) => {
        received.push({ event: event.event, payload: event.payload });
        if (received.length === 2) arrived();
      },
    });
    expect(subscription !== undefined, 'the server did not accept the subscription');
    row('client -> server', `${EVENTS_PREFIX}/subscribe ${compact({ events: ['ticket_created', 'ticket_closed'] })}`);
    try {
      const created = await client.callTool('create_ticket', { title: 'Watch me', assignee: 'carol' });
      const id = String(dig(created.structuredContent, 'ticket', 'id'));
      await client.callTool('close_ticket', { id });
      row('meanwhile', `create_ticket, then close_ticket ${id}`);
      const timeout = new Promise<void>((resolve) => setTimeout(resolve, 10_000).unref());
      await Promise.race([both, timeout]);
      for (const event of received) row('server -> client', `${event.event} ${compact(event.payload)}`);
      expect(
        received.map((event) => event.event).join(',') === 'ticket_created,ticket_closed',
        `events arrived as ${compact(received)}`,
      );
    } finally {
      await subscription.unsubscribe();
    }
    print();
    ok(
      `the subscriber heard both changes in order (${tour.era === 'modern' ? 'on 2026-07-28 over a stream request it keeps open' : 'as notifications on its connection'}); with Redis, from any instance.`,
    );
  } finally {
    await connection.close();
  }
}

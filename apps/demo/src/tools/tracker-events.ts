/** The events the tracker publishes when tickets change, and the events extension that carries them. */
import { eventsServer, type EventsServerExtension } from '@ext/events/server';

/** The events the tracker publishes when tickets change (payloads and filters are JSON Schemas). */
export const TRACKER_EVENTS = {
  ticket_created: {
    description: 'A ticket was opened.',
    payload: ticketPayload(),
    filter: { type: 'object', properties: { assignee: { type: 'string' } }, additionalProperties: false },
  },
  ticket_closed: {
    description: 'A ticket was closed.',
    payload: ticketPayload(),
    filter: { type: 'object', properties: { assignee: { type: 'string' } }, additionalProperties: false },
  },
  ticket_deleted: {
    description: 'A ticket was deleted for good.',
    payload: ticketPayload(),
    filter: { type: 'object', properties: { id: { type: 'string' } }, additionalProperties: false },
  },
} as const;

function ticketPayload() {
  return {
    type: 'object',
    required: ['id', 'title', 'status'],
    properties: {
      id: { type: 'string' },
      title: { type: 'string' },
      status: { type: 'string', enum: ['open', 'closed'] },
      assignee: { type: 'string' },
    },
  } as const;
}

export type TrackerEvents = EventsServerExtension<typeof TRACKER_EVENTS>;

export function createTrackerEvents(): TrackerEvents {
  return eventsServer({ events: TRACKER_EVENTS });
}

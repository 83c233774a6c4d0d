/** The console's notification log and its live ticket-events panel, pushed by the server or polled. */
import type { Client } from '@modelcontextprotocol/client';
import { anyObject, element, EVENTS, record, text, type Json } from './page.js';

/** Logs any notification; a ticket event also goes to the ticket-events panel. */
export function logNotification(method: string, params: unknown): void {
  const item = document.createElement('li');
  item.textContent = `${new Date().toLocaleTimeString()} ${method} ${JSON.stringify(params)}`;
  element('events').prepend(item);
  if (method === `notifications/${EVENTS}/event`) showTicketEvent(record(params) ?? {});
}

/** One entry of the live ticket-events panel: `ticket_created T-3 "Try the console" (open)`. */
function showTicketEvent(event: Json): void {
  const payload = record(event.payload) ?? {};
  const item = document.createElement('li');
  item.dataset.event = text(event.event, 'event');
  item.textContent = `${text(event.timestamp, new Date().toISOString()).slice(11, 19)} ${text(event.event, 'event')} ${text(payload.id, '?')} "${text(payload.title, '')}" (${text(payload.status, '?')})`;
  element('ticket-events').prepend(item);
}

/**
 * Subscribes to every event type the server publishes. On a connection
 * that stays open the server pushes them as notifications; otherwise (or
 * when the page is opened with `?delivery=poll`) the page polls with the
 * subscription's cursor.
 */
export async function watchEvents(client: Client): Promise<void> {
  const status = element('ticket-events-status');
  const listed = await client.request({ method: `${EVENTS}/list`, params: {} }, anyObject);
  const names = (Array.isArray(listed.events) ? listed.events : [])
    .map((entry) => text(record(entry)?.name, ''))
    .filter((name) => name !== '');
  const preferred = new URLSearchParams(window.location.search).get('delivery') === 'poll' ? 'poll' : 'notification';
  const answer = await client.request(
    { method: `${EVENTS}/subscribe`, params: { events: names, delivery: preferred } },
    anyObject,
  );
  if (answer.status !== 'active') {
    status.textContent = `The server declined the subscription: ${text(answer.reason, 'no reason given')}.`;
    return;
  }
  status.textContent = `Subscribed to ${names.join(', ')}, delivered by ${text(answer.delivery, 'notification')}.`;
  if (answer.delivery === 'notification') return;
  let cursor = answer.cursor;
  const every = (typeof answer.poll_interval_seconds === 'number' ? answer.poll_interval_seconds : 5) * 1000;
  const poll = async (): Promise<void> => {
    const page = await client.request(
      { method: `${EVENTS}/poll`, params: { subscription_id: answer.subscription_id, cursor } },
      anyObject,
    );
    for (const event of Array.isArray(page.events) ? page.events : []) showTicketEvent(record(event) ?? {});
    cursor = page.cursor ?? cursor;
  };
  window.setInterval(() => {
    poll().catch((error: unknown) => {
      status.textContent = `Polling failed: ${String(error)}`;
    });
  }, every);
}

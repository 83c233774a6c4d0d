/**
 * The official Events draft (the Triggers and Events working group's design
 * sketch) end to end, on every SDK line and era: a plain SDK client that
 * sends only the draft's methods and fields, a real webhook receiver that
 * verifies signatures with `standardwebhooks`, and the draft's published
 * examples as the reference shapes.
 */
import { MemoryStore, WireError, type Store } from '@ext/core';
import { silentLogger } from '@ext/core/kit';
import { createTestPair, TEST_LINES, type TestLine, type TestPair } from '@ext/core/testing';
import { errorsServer } from '@ext/errors/server';
import { afterEach, describe, expect, it } from 'vitest';
import { eventsClient, subscribeEvents } from './client.js';
import { EVENTS_ID, EVENTS_SKETCH_ID, type EventNotification } from './index.js';
import type { EventsServerExtension, EventsServerOptions } from './server.js';
import {
  shapeDifferences,
  sketchExample,
  startWebhookReceiver,
  TEST_SECRET,
  type WebhookReceiver,
} from './sketch-test-fixtures.js';
import { fixtureServer, until, type FixtureEvents } from './test-fixtures.js';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

/** Test webhooks: plain http to this machine, quick retries. */
const TEST_WEBHOOKS = { allowHttp: true, allowPrivateAddresses: true, attempts: 3, backoffMs: 20 };

interface SketchFixture {
  readonly pair: TestPair;
  readonly events: EventsServerExtension<FixtureEvents>;
  readonly store: Store;
}

/** A server with the fixture events and a client with no extension at all (a plain SDK client), or `both` identifiers. */
async function open(
  line: TestLine,
  options: Partial<EventsServerOptions<FixtureEvents>> = { webhooks: TEST_WEBHOOKS },
  client: 'plain' | 'both' = 'plain',
): Promise<SketchFixture> {
  const events = fixtureServer({ officialDraft: true, heartbeatSeconds: 1, ...options });
  const store = new MemoryStore();
  const both = {
    ...eventsClient(),
    ids: [EVENTS_ID, EVENTS_SKETCH_ID],
    reservedAliases: [EVENTS_SKETCH_ID],
    aliasSettings: { [EVENTS_SKETCH_ID]: { listChanged: false } },
  };
  const pair = await createTestPair({
    line,
    serverExtensions: [errorsServer(), events],
    clientExtensions: client === 'both' ? [both] : [],
    serverOptions: { store, logger: silentLogger },
    clientOptions: { logger: silentLogger },
    authInfo: { clientId: 'alice' },
  });
  cleanup.push(async () => {
    await events.stop();
    await pair.close();
  });
  return { pair, events, store };
}

async function receiver(): Promise<WebhookReceiver> {
  const started = await startWebhookReceiver();
  cleanup.push(() => started.close());
  return started;
}

async function publishTickets(fixture: SketchFixture, from: number, to: number, project = 'A'): Promise<void> {
  for (let seq = from; seq <= to; seq++) {
    await fixture.events.publish(fixture.store, 'ticket_updated', {
      id: `T-${String(seq)}`,
      project,
      status: 'open',
      seq,
    });
  }
}

async function wireFailure(promise: Promise<unknown>): Promise<WireError> {
  const error: unknown = await promise.then(
    () => undefined,
    (failure: unknown) => failure,
  );
  if (!WireError.isInstance(error)) throw new Error(`expected a WireError, got ${String(error)}`);
  return error;
}

function dataOf(error: WireError): Record<string, unknown> & { details?: Record<string, unknown> } {
  return error.data as Record<string, unknown> & { details?: Record<string, unknown> };
}

const seqOf = (occurrence: unknown): unknown => (occurrence as { data: { seq: number } }).data.seq;

function subscribeParams(url: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: 'ticket_updated',
    arguments: { project: 'A' },
    delivery: { mode: 'webhook', url, secret: TEST_SECRET },
    ttlMs: 600_000,
    ...extra,
  };
}

describe.each(TEST_LINES)('the official Events draft on %s', (line) => {
  it('EVT-25 EVT-26: advertises the draft identifier and lists event types in the draft shape', async () => {
    const { pair } = await open(line);
    expect(pair.client.serverExtensions()[EVENTS_SKETCH_ID]).toEqual({ listChanged: false });
    const listed = await pair.client.request('events/list', {});
    const example = sketchExample('list-result');
    const opaque = ['/events/*/inputSchema', '/events/*/payloadSchema'];
    expect(shapeDifferences(listed, example, opaque)).toEqual([]);
    const [ticket] = (listed as { events: Record<string, unknown>[] }).events;
    expect(ticket).toMatchObject({
      name: 'ticket_updated',
      description: 'A ticket changed status',
      delivery: ['poll', 'push', 'webhook'],
      inputSchema: { type: 'object', properties: { project: { type: 'string' } } },
      payloadSchema: { type: 'object', required: ['id', 'project', 'status', 'seq'] },
    });
  });

  it('EVT-27 EVT-28: poll: a null cursor bootstraps; pages of maxEvents deliver every matching event once, in order', async () => {
    const fixture = await open(line);
    const { client } = fixture.pair;
    const first = await client.request('events/poll', {
      name: 'ticket_updated',
      arguments: { project: 'A' },
      cursor: null,
    });
    expect(first).toMatchObject({ events: [], truncated: false, hasMore: false, nextPollMs: 5000 });
    await publishTickets(fixture, 1, 12);
    await publishTickets(fixture, 100, 104, 'B');
    await publishTickets(fixture, 13, 25);
    const seen: unknown[] = [];
    const ids = new Set<string>();
    let cursor = (first as { cursor: string }).cursor;
    for (let page = 0; page < 10; page++) {
      const result = await client.request('events/poll', {
        name: 'ticket_updated',
        arguments: { project: 'A' },
        cursor,
        maxEvents: 10,
      });
      const events = (result as { events: { eventId: string }[] }).events;
      for (const event of events) {
        expect(ids.has(event.eventId)).toBe(false);
        ids.add(event.eventId);
        seen.push(seqOf(event));
      }
      if (events.length > 0) {
        expect(shapeDifferences(result, sketchExample('poll-result'), ['/events/*/data'])).toEqual([]);
      }
      cursor = (result as { cursor: string }).cursor;
      if (!(result as { hasMore: boolean }).hasMore) break;
    }
    expect(seen).toEqual(Array.from({ length: 25 }, (_, index) => index + 1));
    const drained = await client.request('events/poll', {
      name: 'ticket_updated',
      arguments: { project: 'A' },
      cursor,
    });
    expect(drained).toMatchObject({ events: [], hasMore: false });
  });

  it('EVT-28: poll: a long poll answers with the event published while it waits', async () => {
    const fixture = await open(line);
    const { client } = fixture.pair;
    const start = await client.request('events/poll', { name: 'build_finished', cursor: null });
    const waiting = client.request(
      'events/poll',
      { name: 'build_finished', cursor: (start as { cursor: string }).cursor, timeoutMs: 60_000 },
      { timeoutMs: 90_000 },
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    await fixture.events.publish(fixture.store, 'build_finished', { repository: 'web', ok: true, seq: 1 });
    const result = (await waiting) as { events: { name: string; data: Record<string, unknown> }[] };
    expect(result.events).toHaveLength(1);
    expect(result.events[0]).toMatchObject({ name: 'build_finished', data: { repository: 'web', ok: true, seq: 1 } });
  });

  it('EVT-29: stream: active, then each matching event with the request id in _meta, then heartbeats with the cursor', async () => {
    const fixture = await open(line);
    const { client } = fixture.pair;
    const active: Record<string, unknown>[] = [];
    const events: Record<string, unknown>[] = [];
    const heartbeats: Record<string, unknown>[] = [];
    client.onNotification('notifications/events/active', (params) => void active.push(params));
    client.onNotification('notifications/events/event', (params) => void events.push(params));
    client.onNotification('notifications/events/heartbeat', (params) => void heartbeats.push(params));
    const controller = new AbortController();
    const streaming = client
      .request(
        'events/stream',
        { name: 'ticket_updated', arguments: { project: 'A' }, cursor: null },
        { signal: controller.signal, timeoutMs: 120_000 },
      )
      .catch(() => undefined);
    await until(() => active.length === 1, 20_000, 'the active notification');
    expect(shapeDifferences(active[0], sketchExample('stream-active'))).toEqual([]);
    await publishTickets(fixture, 1, 3);
    await publishTickets(fixture, 50, 51, 'B');
    await publishTickets(fixture, 4, 5);
    await until(() => events.length >= 5, 20_000, '5 streamed events');
    expect(events.map(seqOf)).toEqual([1, 2, 3, 4, 5]);
    for (const event of events) {
      expect(
        shapeDifferences(event, sketchExample('stream-event'), [
          '/data',
          '/_meta/io.modelcontextprotocol~1subscriptionId',
        ]),
      ).toEqual([]);
    }
    const routing = events.map(
      (event) => (event._meta as Record<string, unknown>)['io.modelcontextprotocol/subscriptionId'],
    );
    expect(new Set(routing).size).toBe(1);
    expect(routing[0]).toBe((active[0]?._meta as Record<string, unknown>)['io.modelcontextprotocol/subscriptionId']);
    await until(() => heartbeats.length >= 1, 20_000, 'a heartbeat');
    expect(
      shapeDifferences(heartbeats[0], sketchExample('stream-heartbeat'), [
        '/_meta/io.modelcontextprotocol~1subscriptionId',
      ]),
    ).toEqual([]);
    // Resuming from the last event's cursor replays nothing already seen.
    controller.abort();
    await streaming;
    const resumed = await client.request('events/poll', {
      name: 'ticket_updated',
      arguments: { project: 'A' },
      cursor: events.at(-1)?.cursor,
    });
    expect(resumed).toMatchObject({ events: [] });
  });

  it('EVT-30 EVT-32 EVT-34: webhook: signed deliveries carry the event, its id as webhook-id, and the subscription id header', async () => {
    const fixture = await open(line);
    const hooks = await receiver();
    const { client } = fixture.pair;
    const subscribed = await client.request('events/subscribe', subscribeParams(hooks.url, { cursor: null }));
    expect(shapeDifferences(subscribed, sketchExample('subscribe-result'))).toEqual([]);
    const id = (subscribed as { id: string }).id;
    expect(id).toMatch(/^sub_[0-9a-f]{16}$/);
    await publishTickets(fixture, 1, 2);
    await publishTickets(fixture, 9, 9, 'B');
    await until(() => hooks.received.length >= 2, 20_000, '2 deliveries');
    expect(hooks.received.every((delivery) => delivery.verified)).toBe(true);
    const bodies = hooks.received.map((delivery) => JSON.parse(delivery.body) as Record<string, unknown>);
    expect(bodies.map(seqOf)).toEqual([1, 2]);
    for (const [index, body] of bodies.entries()) {
      expect(shapeDifferences(body, sketchExample('webhook-body'), ['/data'])).toEqual([]);
      expect(hooks.received[index]?.headers['webhook-id']).toBe(body.eventId);
      expect(hooks.received[index]?.headers['x-mcp-subscription-id']).toBe(id);
    }
    // A refresh with the same key is the same subscription, reports delivery status, and delivers nothing twice.
    const refreshed = await client.request(
      'events/subscribe',
      subscribeParams(hooks.url, { cursor: bodies[0]?.cursor }),
    );
    expect(refreshed).toMatchObject({ id, deliveryStatus: { active: true, lastError: null } });
    expect(shapeDifferences(refreshed, sketchExample('subscribe-refresh-result'))).toEqual([]);
    await publishTickets(fixture, 3, 3);
    await until(() => hooks.received.length >= 3, 20_000, 'the third delivery');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(hooks.received.map((delivery) => seqOf(JSON.parse(delivery.body)))).toEqual([1, 2, 3]);
    // Unsubscribing stops deliveries; the same key is then unknown.
    const unsubscribed = await client.request('events/unsubscribe', {
      name: 'ticket_updated',
      arguments: { project: 'A' },
      delivery: { url: hooks.url },
    });
    expect(shapeDifferences(unsubscribed, {})).toEqual([]);
    await publishTickets(fixture, 4, 4);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(hooks.received).toHaveLength(3);
    const again = await wireFailure(
      client.request('events/unsubscribe', {
        name: 'ticket_updated',
        arguments: { project: 'A' },
        delivery: { url: hooks.url },
      }),
    );
    expect(again.code).toBe(-32011);
    expect(dataOf(again)).toMatchObject({ kind: 'subscription', code: 'SUBSCRIPTION_NOT_FOUND' });
  });

  it('EVT-32: webhook: a 500 is retried under the same webhook-id, and the retry is accepted', async () => {
    const fixture = await open(line);
    const hooks = await receiver();
    hooks.script([500]);
    await fixture.pair.client.request('events/subscribe', subscribeParams(hooks.url));
    await publishTickets(fixture, 1, 1);
    await until(() => hooks.received.length >= 2, 20_000, 'a delivery and its retry');
    const [failed, retried] = hooks.received;
    expect(failed?.status).toBe(500);
    expect(retried?.status).toBe(200);
    expect(retried?.verified).toBe(true);
    expect(retried?.headers['webhook-id']).toBe(failed?.headers['webhook-id']);
    expect(retried?.body).toBe(failed?.body);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(hooks.received).toHaveLength(2);
    expect(await fixture.events.deadLetters(fixture.store)).toEqual([]);
  });

  it('EVT-33: webhook: exhausted attempts and a final 4xx leave dead-letter records; later events still go out', async () => {
    const fixture = await open(line);
    const hooks = await receiver();
    hooks.script([503, 503, 503, 400]);
    const subscribed = await fixture.pair.client.request('events/subscribe', subscribeParams(hooks.url));
    await publishTickets(fixture, 1, 3);
    await until(() => hooks.received.length >= 5, 20_000, 'every attempt');
    const statuses = hooks.received.map((delivery) => delivery.status);
    expect(statuses).toEqual([503, 503, 503, 400, 200]);
    await until(() => hooks.received.length === 5, 20_000, 'no more attempts');
    let letters = await fixture.events.deadLetters(fixture.store);
    for (const deadline = Date.now() + 20_000; letters.length < 2 && Date.now() < deadline;) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      letters = await fixture.events.deadLetters(fixture.store);
    }
    const [exhausted, refused] = letters.map((entry) => entry.letter);
    const id = (subscribed as { id: string }).id;
    expect(exhausted).toMatchObject({
      subscription_id: id,
      principal: 'client:alice',
      event: 'ticket_updated',
      attempts: 3,
      last_status: 503,
    });
    expect(exhausted?.event_id).toBe(hooks.received[0]?.headers['webhook-id']);
    expect(refused).toMatchObject({ subscription_id: id, attempts: 1, last_status: 400 });
    expect(exhausted?.endpoint).toBe(new URL(hooks.url).origin);
    // The third event was delivered; the dead letters' cursors let a client replay the first two by polling.
    const replay = await fixture.pair.client.request('events/poll', {
      name: 'ticket_updated',
      arguments: { project: 'A' },
      cursor: (subscribed as { cursor: string }).cursor,
    });
    expect((replay as { events: unknown[] }).events.map(seqOf)).toEqual([1, 2, 3]);
  });

  it('EVT-27 EVT-28 EVT-30 EVT-31: hostile input: a bad cursor, an unknown event name and bad webhook URLs are refused naming the field', async () => {
    const fixture = await open(line, { webhooks: {} });
    const { client } = fixture.pair;
    const badCursor = await wireFailure(client.request('events/poll', { name: 'ticket_updated', cursor: 'not-ours' }));
    expect(badCursor.code).toBe(-32602);
    expect(dataOf(badCursor)).toMatchObject({ category: 'invalid_input', details: { field: 'cursor' } });
    const unknown = await wireFailure(client.request('events/poll', { name: 'no_such_event', cursor: null }));
    expect(unknown.code).toBe(-32011);
    expect(dataOf(unknown)).toMatchObject({
      kind: 'event',
      category: 'invalid_input',
      code: 'UNKNOWN_EVENT',
      details: { field: 'name' },
    });
    const badArguments = await wireFailure(
      client.request('events/stream', { name: 'ticket_updated', arguments: { nope: 1 } }),
    );
    expect(badArguments.code).toBe(-32602);
    expect(dataOf(badArguments)).toMatchObject({
      category: 'invalid_input',
      details: { field: 'arguments', pointer: '/arguments/nope' },
    });
    for (const url of [
      'ftp://hooks.example.com/x',
      'not a url',
      'https://user:secret@hooks.example.com/x',
      'http://hooks.example.com/x',
      'https://127.0.0.1/hooks',
      'https://[::1]/hooks',
      'https://169.254.169.254/latest',
      'https://10.1.2.3/hooks',
    ]) {
      const refused = await wireFailure(client.request('events/subscribe', subscribeParams(url)));
      expect(refused.code, url).toBe(-32602);
      expect(dataOf(refused), url).toMatchObject({ category: 'invalid_input', details: { field: 'delivery.url' } });
    }
    const badSecret = await wireFailure(
      client.request('events/subscribe', {
        ...subscribeParams('https://hooks.example.com/x'),
        delivery: { url: 'https://hooks.example.com/x', secret: 'hunter2' },
      }),
    );
    expect(dataOf(badSecret)).toMatchObject({ category: 'invalid_input', details: { field: 'delivery.secret' } });
  });

  it('EVT-25: without officialDraft the server advertises and serves only what it did before', async () => {
    const fixture = await open(line, { officialDraft: false });
    expect(Object.keys(fixture.pair.client.serverExtensions()).sort()).toEqual(
      ['io.github.mcp-ext/errors', EVENTS_ID].sort(),
    );
    const unserved: unknown = await fixture.pair.client.request('events/list', {}).then(
      () => undefined,
      (failure: unknown) => failure,
    );
    expect(unserved).toBeInstanceOf(Error);
    if (WireError.isInstance(unserved)) expect(unserved.code).toBe(-32601);
  });

  it('EVT-26 EVT-30: a server without webhooks refuses events/subscribe as Unsupported and lists no webhook mode', async () => {
    const fixture = await open(line, {});
    const listed = (await fixture.pair.client.request('events/list', {})) as { events: { delivery: string[] }[] };
    expect(listed.events[0]?.delivery).toEqual(['poll', 'push']);
    const refused = await wireFailure(
      fixture.pair.client.request('events/subscribe', subscribeParams('https://hooks.example.com/x')),
    );
    expect(refused.code).toBe(-32014);
    expect(dataOf(refused)).toMatchObject({ feature: 'deliveryMode', value: 'webhook' });
  });

  it('EVT-25: a client speaking both identifiers keeps ours and gets each event once; our methods are not served under the draft id', async () => {
    const fixture = await open(line, { webhooks: TEST_WEBHOOKS }, 'both');
    const { client } = fixture.pair;
    expect(client.negotiated(EVENTS_ID)?.id).toBe(EVENTS_ID);
    const draftNotifications: unknown[] = [];
    client.onNotification('notifications/events/event', (params) => void draftNotifications.push(params));
    const received: EventNotification[] = [];
    const subscription = await subscribeEvents(client, {
      events: ['ticket_updated'],
      onEvent: (event) => void received.push(event),
    });
    if (subscription === undefined) throw new Error('not negotiated');
    cleanup.push(() => subscription.close());
    await publishTickets(fixture, 1, 4);
    await until(() => received.length >= 4, 20_000, '4 events');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(received.map((event) => event.payload?.seq)).toEqual([1, 2, 3, 4]);
    expect(draftNotifications).toEqual([]);
    const unserved: unknown = await client.request(`${EVENTS_SKETCH_ID}/list`, {}).then(
      () => undefined,
      (failure: unknown) => failure,
    );
    expect(unserved).toBeInstanceOf(Error);
    if (WireError.isInstance(unserved)) expect(unserved.code).toBe(-32601);
  });
});

import { MemoryStore, WireError, type MethodHandler, type RequestContext } from '@ext/core';
import { seedValidators, TEST_LINES } from '@ext/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { listEventTypes, pollEvents, subscribeEvents, unsubscribeEvents, type EventSubscription } from './client.js';
import { EVENTS_ID, getEventsSettings, type EventNotification, type TerminationNotice } from './index.js';
import { eventsPair, fixtureServer, until, type Fixture, type FixtureEvents } from './test-fixtures.js';
import type { EventsServerExtension } from './server.js';

const seed = seedValidators();
const seedResponse = seed.check('subscribe-notify', 'SubscriptionResponse');
const seedRequest = seed.check('subscribe-notify', 'SubscriptionRequest');
const seedNotification = seed.check('subscribe-notify', 'EventNotification');
const seedUnsubscribe = seed.check('subscribe-notify', 'UnsubscribeRequest');

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

async function open(...args: Parameters<typeof eventsPair>): Promise<Fixture> {
  const fixture = await eventsPair(...args);
  cleanup.push(async () => {
    await fixture.events.stop();
    await fixture.pair.close();
  });
  return fixture;
}

function track(subscription: EventSubscription | undefined): EventSubscription {
  if (subscription === undefined) throw new Error('the extension was not negotiated');
  cleanup.push(() => subscription.close());
  return subscription;
}

function method(verb: string): string {
  return `${EVENTS_ID}/${verb}`;
}

async function publishTickets(fixture: Fixture, from: number, to: number, project = 'A'): Promise<void> {
  for (let seq = from; seq <= to; seq++) {
    await fixture.events.publish(fixture.store, 'ticket_updated', {
      id: `T-${String(seq)}`,
      project,
      status: 'open',
      seq,
    });
  }
}

const seqs = (received: readonly EventNotification[]): unknown[] => received.map((event) => event.payload?.seq);

async function wireFailure(promise: Promise<unknown>): Promise<WireError> {
  const error: unknown = await promise.then(
    () => undefined,
    (failure: unknown) => failure,
  );
  if (!WireError.isInstance(error)) throw new Error(`expected a WireError, got ${String(error)}`);
  return error;
}

type Notify = RequestContext['notify'];

/**
 * The fixture server whose event notifications pass through `channel`
 * (which may drop or repeat them), on the connection and on streams alike:
 * a lossy network between a real server and a real client.
 */
function lossyServer(channel: (notify: Notify) => Notify): EventsServerExtension<FixtureEvents> {
  const inner = fixtureServer();
  const methods = inner.methods ?? {};
  const through =
    (handler: MethodHandler | undefined): MethodHandler =>
    (params, ctx) => {
      if (handler === undefined) throw new Error('missing method');
      const original = ctx.connection;
      const connection = original && {
        signal: original.signal,
        notify: channel((method, body) => original.notify(method, body)),
      };
      return handler(params, { ...ctx, notify: channel((method, body) => ctx.notify(method, body)), connection });
    };
  return { ...inner, methods: { ...methods, subscribe: through(methods.subscribe), stream: through(methods.stream) } };
}

describe.each(TEST_LINES)('@ext/events end to end on %s', (line) => {
  const pushed = line === 'v2-modern' ? 'stream' : 'notification';

  it('EVT-1 EVT-3: advertises its settings and lists event types with payload and filter schemas', async () => {
    const { pair } = await open(line);
    expect(getEventsSettings(pair.client.serverExtensions())).toEqual({
      version: '1.0',
      delivery: ['notification', 'stream', 'poll'],
      poll_interval_seconds: 5,
      default_ttl_seconds: 3600,
      max_ttl_seconds: 86_400,
      max_stream_seconds: 300,
    });
    const listed = await listEventTypes(pair.client);
    expect(listed?.poll_interval_seconds).toBe(5);
    expect(listed?.events.map((event) => event.name)).toEqual(['ticket_updated', 'build_finished']);
    const ticket = listed?.events[0];
    expect(ticket?.description).toBe('A ticket changed status');
    expect(ticket?.payload_schema).toMatchObject({ type: 'object', required: ['id', 'project', 'status', 'seq'] });
    expect(ticket?.filter_schema).toMatchObject({ type: 'object', properties: { project: { type: 'string' } } });
    expect(Object.keys(ticket?.filter_schema.properties ?? {})).toEqual(['project', 'status']);
  });

  it(`EVT-4 EVT-9 EVT-11: a subscription is active, valid against the seed, and receives every event in order (${pushed})`, async () => {
    const fixture = await open(line);
    const received: EventNotification[] = [];
    const subscription = track(
      await subscribeEvents(fixture.pair.client, {
        events: ['ticket_updated'],
        onEvent: (event) => void received.push(event),
      }),
    );
    const response = subscription.response;
    expect(seedResponse(response).valid).toBe(true);
    expect(response).toMatchObject({
      subscription_id: subscription.id,
      status: 'active',
      delivery: pushed,
      ttl_seconds: 3600,
    });
    expect(response?.supported_events).toEqual(['ticket_updated', 'build_finished']);
    await publishTickets(fixture, 1, 30);
    await until(() => received.length >= 30, 10_000, '30 events');
    expect(seqs(received)).toEqual(Array.from({ length: 30 }, (_, index) => index + 1));
    for (const event of received) {
      expect(seedNotification(event).valid, seedNotification(event).errors).toBe(true);
      expect(event).toMatchObject({ type: 'event', subscription_id: subscription.id, event: 'ticket_updated' });
    }
    expect(subscription.cursor).toBe(received.at(-1)?.cursor);
  });

  it('EVT-12: only events matching the filter are delivered; unsubscribed types are not', async () => {
    const fixture = await open(line);
    const received: EventNotification[] = [];
    track(
      await subscribeEvents(fixture.pair.client, {
        events: ['ticket_updated', 'build_finished'],
        filter: { project: 'A', status: ['open', 'closed'], repository: 'web' },
        onEvent: (event) => void received.push(event),
      }),
    );
    const { events, store } = fixture;
    await events.publish(store, 'ticket_updated', { id: 'T-1', project: 'B', status: 'open', seq: 1 });
    await events.publish(store, 'ticket_updated', { id: 'T-2', project: 'A', status: 'open', seq: 2 });
    await events.publish(store, 'build_finished', { repository: 'api', ok: true, seq: 3 });
    await events.publish(store, 'ticket_updated', { id: 'T-4', project: 'A', status: 'blocked', seq: 4 });
    await events.publish(store, 'build_finished', { repository: 'web', ok: false, seq: 5 });
    await events.publish(store, 'ticket_updated', { id: 'T-6', project: 'A', status: 'closed', seq: 6 });
    await until(() => received.length >= 3, 10_000, 'three matching events');
    await events.publish(store, 'ticket_updated', { id: 'T-7', project: 'A', status: 'open', seq: 7 });
    await until(() => received.length >= 4, 10_000, 'the fourth event');
    expect(seqs(received)).toEqual([2, 5, 6, 7]);
    expect(received.map((event) => event.event)).toEqual([
      'ticket_updated',
      'build_finished',
      'ticket_updated',
      'ticket_updated',
    ]);
  });

  it('EVT-5: an unknown event type is refused with an error naming it', async () => {
    const { pair } = await open(line);
    const error = await wireFailure(
      pair.client.request(method('subscribe'), { events: ['ticket_updated', 'commit_to_main'] }),
    );
    expect(error.code).toBe(-32602);
    expect(error.data).toMatchObject({
      code: 'UNKNOWN_EVENT',
      category: 'invalid_input',
      suggestion: 'Call the list method to see the event types this server publishes.',
      details: {
        field: 'events',
        pointer: '/events/1',
        event: 'commit_to_main',
        supported_events: ['ticket_updated', 'build_finished'],
      },
    });
  });

  it('EVT-6: a bad filter is refused with an error naming the filter field', async () => {
    const { pair } = await open(line);
    const undeclared = await wireFailure(
      pair.client.request(method('subscribe'), { events: ['ticket_updated'], filter: { colour: 'red' } }),
    );
    expect(undeclared.data).toMatchObject({
      code: 'INVALID_FILTER',
      details: { field: 'filter', pointer: '/filter/colour', filter_field: 'colour' },
    });
    expect((undeclared.data as { message: string }).message).toContain('ticket_updated: project, status');
    const wrongType = await wireFailure(
      pair.client.request(method('subscribe'), { events: ['ticket_updated'], filter: { project: 7 } }),
    );
    expect(wrongType.data).toMatchObject({
      code: 'INVALID_FILTER',
      details: { pointer: '/filter/project', event: 'ticket_updated' },
    });
    const malformed = await wireFailure(
      pair.client.request(method('subscribe'), { events: ['ticket_updated'], ttl_seconds: 0 }),
    );
    expect(malformed.data).toMatchObject({
      code: 'INVALID_INPUT',
      details: { field: 'ttl_seconds', pointer: '/ttl_seconds' },
    });
    const empty = await wireFailure(pair.client.request(method('subscribe'), { events: [] }));
    expect(empty.data).toMatchObject({ code: 'INVALID_INPUT', details: { field: 'events' } });
  });

  it('EVT-7: a requested TTL above the maximum is lowered to it', async () => {
    const fixture = await open(line, { server: fixtureServer({ maxTtlSeconds: 120 }) });
    const before = Date.now();
    const request = { events: ['build_finished'], ttl_seconds: 86_400 };
    expect(seedRequest(request).valid).toBe(true);
    const response = await fixture.pair.client.request(method('subscribe'), request);
    expect(response).toMatchObject({ status: 'active', ttl_seconds: 120 });
    const expires = Date.parse(String(response.expires_at));
    expect(expires).toBeGreaterThanOrEqual(before + 119_000);
    expect(expires).toBeLessThanOrEqual(Date.now() + 121_000);
  });

  it('EVT-8 EVT-15: at its TTL the subscription ends with an "expired" notice; by default the client resubscribes', async () => {
    const fixture = await open(line);
    const received: EventNotification[] = [];
    const notices: TerminationNotice[] = [];
    const subscription = track(
      await subscribeEvents(fixture.pair.client, {
        events: ['ticket_updated'],
        ttlSeconds: 1,
        onEvent: (event) => void received.push(event),
        onTerminated: (notice) => void notices.push(notice),
      }),
    );
    const firstExpiry = subscription.response?.expires_at;
    await publishTickets(fixture, 1, 2);
    await until(() => notices.length >= 1, 10_000, 'the expiry notice');
    expect(notices[0]).toMatchObject({ subscription_id: subscription.id, reason: 'expired' });
    await until(() => subscription.response?.expires_at !== firstExpiry, 10_000, 'the resubscription');
    expect(subscription.state).toBe('active');
    await publishTickets(fixture, 3, 4);
    await until(() => received.length >= 4, 10_000, 'events after resubscribing');
    expect(seqs(received)).toEqual([1, 2, 3, 4]);
  });

  it('EVT-8: without resubscription an expired subscription ends, and polling it says why', async () => {
    const fixture = await open(line);
    const subscription = track(
      await subscribeEvents(fixture.pair.client, {
        events: ['ticket_updated'],
        ttlSeconds: 1,
        resubscribe: false,
        onEvent: () => undefined,
      }),
    );
    expect(await subscription.ended()).toEqual({ state: 'terminated', reason: 'expired' });
    const polled = await pollEvents(fixture.pair.client, subscription.id);
    expect(polled).toMatchObject({ status: 'terminated', reason: 'expired', events: [] });
  });

  it('EVT-14 EVT-15: the server ends a subscription early with a reason; the client stops', async () => {
    const fixture = await open(line);
    const notices: TerminationNotice[] = [];
    const subscription = track(
      await subscribeEvents(fixture.pair.client, {
        events: ['ticket_updated'],
        onEvent: () => undefined,
        onTerminated: (notice) => void notices.push(notice),
      }),
    );
    const ended = await fixture.events.terminate(
      fixture.store,
      { principal: 'client:alice', subscriptionId: subscription.id },
      'revoked',
      'Project archived',
    );
    expect(ended).toBe(true);
    expect(await subscription.ended()).toEqual({ state: 'terminated', reason: 'revoked' });
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatchObject({
      subscription_id: subscription.id,
      reason: 'revoked',
      message: 'Project archived',
    });
    expect(typeof notices[0]?.cursor).toBe('string');
    expect(
      await fixture.events.terminate(fixture.store, { principal: 'client:alice', subscriptionId: subscription.id }),
    ).toBe(false);
  });

  it('EVT-13 EVT-16: unsubscribe stops delivery and is keyed by principal', async () => {
    const store = new MemoryStore();
    const server = fixtureServer();
    const alice = await open(line, { server, store, authInfo: { clientId: 'alice' } });
    const mallory = await open(line, { server, store, authInfo: { clientId: 'mallory' } });
    const received: EventNotification[] = [];
    const subscription = track(
      await subscribeEvents(alice.pair.client, {
        events: ['ticket_updated'],
        onEvent: (event) => void received.push(event),
      }),
    );
    const foreignPoll = await wireFailure(
      mallory.pair.client.request(method('poll'), { subscription_id: subscription.id }),
    );
    expect(foreignPoll.data).toMatchObject({ code: 'SUBSCRIPTION_NOT_FOUND' });
    expect(await unsubscribeEvents(mallory.pair.client, subscription.id)).toBe(false);
    await publishTickets(alice, 1, 1);
    await until(() => received.length === 1, 10_000, 'the first event');
    const request = { subscription_id: subscription.id };
    expect(seedUnsubscribe(request).valid).toBe(true);
    expect(await alice.pair.client.request(method('unsubscribe'), request)).toMatchObject({
      subscription_id: subscription.id,
      status: 'unsubscribed',
    });
    expect(await subscription.ended()).toEqual({ state: 'unsubscribed', reason: 'unsubscribed' });
    await publishTickets(alice, 2, 2);
    const polled = await pollEvents(alice.pair.client, subscription.id);
    expect(polled).toMatchObject({ status: 'terminated', reason: 'unsubscribed', events: [] });
    expect(seqs(received)).toEqual([1]);
  });

  it('EVT-10: polling delivers every event in order at the advertised interval', async () => {
    const fixture = await open(line);
    const received: EventNotification[] = [];
    const subscription = track(
      await subscribeEvents(fixture.pair.client, {
        events: ['ticket_updated'],
        delivery: 'poll',
        pollIntervalMs: 20,
        onEvent: (event) => void received.push(event),
      }),
    );
    expect(subscription.delivery).toBe('poll');
    expect(subscription.response?.poll_interval_seconds).toBe(5);
    await publishTickets(fixture, 1, 150);
    await until(() => received.length >= 150, 10_000, '150 polled events');
    expect(seqs(received)).toEqual(Array.from({ length: 150 }, (_, index) => index + 1));
  });

  it('EVT-17: a reconnecting client resumes from its cursor without gaps or duplicates', async () => {
    const store = new MemoryStore();
    const server = fixtureServer();
    const first = await eventsPair(line, { server, store });
    const received: EventNotification[] = [];
    const subscription = track(
      await subscribeEvents(first.pair.client, {
        events: ['ticket_updated'],
        onEvent: (event) => void received.push(event),
      }),
    );
    await publishTickets(first, 1, 5);
    await until(() => received.length >= 5, 10_000, 'five events before the drop');
    // The connection drops; events keep being published meanwhile.
    await first.pair.close();
    await publishTickets(first, 6, 12);
    const second = await open(line, { server, store });
    await subscription.resume(second.pair.client);
    await publishTickets(second, 13, 15);
    await until(() => received.length >= 15, 10_000, 'all fifteen events');
    expect(seqs(received)).toEqual(Array.from({ length: 15 }, (_, index) => index + 1));
    expect(new Set(received.map((event) => event.cursor)).size).toBe(15);
  });

  it('EVT-11 EVT-17: notifications lost or repeated on the way are recovered by polling, each event delivered once in order', async () => {
    const lossy = lossyServer((notify) => (method, params) => {
      const seq = (params?.payload as { seq?: number } | undefined)?.seq;
      if (seq === 3 || seq === 7 || seq === 8) return Promise.resolve();
      if (seq === 5) return notify(method, params).then(() => notify(method, params));
      return notify(method, params);
    });
    const fixture = await open(line, { server: lossy });
    const received: EventNotification[] = [];
    track(
      await subscribeEvents(fixture.pair.client, {
        events: ['ticket_updated'],
        onEvent: (event) => void received.push(event),
      }),
    );
    await publishTickets(fixture, 1, 10);
    await until(() => received.length >= 10, 10_000, 'ten events');
    expect(seqs(received)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });

  it('EVT-21: a second stream of the same subscription takes over; the first ends as "replaced"', async () => {
    const fixture = await open(line);
    const { client } = fixture.pair;
    await client.request(method('subscribe'), {
      subscription_id: 'one-path',
      events: ['ticket_updated'],
      delivery: 'stream',
    });
    const first = client.request(method('stream'), { subscription_id: 'one-path' });
    await until(() => fixture.events.activeDeliveries() === 1, 10_000, 'the first stream');
    const stop = new AbortController();
    const second = client.request(method('stream'), { subscription_id: 'one-path' }, { signal: stop.signal });
    expect(await first).toMatchObject({ subscription_id: 'one-path', status: 'active', reason: 'replaced' });
    await until(() => fixture.events.activeDeliveries() === 1, 10_000, 'the second stream alone');
    stop.abort();
    await expect(second).rejects.toThrow();
    await until(() => fixture.events.activeDeliveries() === 0, 10_000, 'no stream');
  });

  it('EVT-18: a client without the extension can still subscribe and poll (degradation)', async () => {
    const fixture = await open(line, { client: false });
    expect(
      await subscribeEvents(fixture.pair.client, { events: ['ticket_updated'], onEvent: () => undefined }),
    ).toBeUndefined();
    expect(await listEventTypes(fixture.pair.client)).toBeUndefined();
    const response = await fixture.pair.client.request(method('subscribe'), {
      events: ['ticket_updated'],
      subscription_id: 'plain-client',
    });
    expect(response).toMatchObject({ status: 'active', delivery: 'poll' });
    await publishTickets(fixture, 1, 3);
    const polled = await fixture.pair.client.request(method('poll'), { subscription_id: 'plain-client' });
    expect((polled.events as EventNotification[]).map((event) => event.payload?.seq)).toEqual([1, 2, 3]);
    const again = await fixture.pair.client.request(method('poll'), { subscription_id: 'plain-client' });
    expect(again).toMatchObject({ events: [], has_more: false, cursor: polled.cursor });
  });

  it('EVT-19: a denied subscription says why', async () => {
    const fixture = await open(line, {
      server: fixtureServer({
        authorize: (attempt) => (attempt.events.includes('build_finished') ? 'CI events are for the build team' : true),
      }),
    });
    const subscription = await subscribeEvents(fixture.pair.client, {
      events: ['build_finished'],
      onEvent: () => undefined,
    });
    expect(subscription?.state).toBe('denied');
    expect(seedResponse(subscription?.response).valid).toBe(true);
    expect(subscription?.response).toMatchObject({ status: 'denied', reason: 'CI events are for the build team' });
  });

  it('EVT-20: a stream reaching max_stream_seconds is reopened from its cursor without loss', async () => {
    const fixture = await open(line, { server: fixtureServer({ maxStreamSeconds: 1 }) });
    const received: EventNotification[] = [];
    track(
      await subscribeEvents(fixture.pair.client, {
        events: ['ticket_updated'],
        delivery: 'stream',
        onEvent: (event) => void received.push(event),
      }),
    );
    await publishTickets(fixture, 1, 3);
    await until(() => received.length >= 3, 10_000, 'events on the first stream');
    await new Promise((resolve) => setTimeout(resolve, 1200));
    await publishTickets(fixture, 4, 6);
    await until(() => received.length >= 6, 10_000, 'events on the reopened stream');
    expect(seqs(received)).toEqual([1, 2, 3, 4, 5, 6]);
  });
});

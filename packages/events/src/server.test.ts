import { ConfigurationError, MemoryStore, WireError } from '@ext/core';
import { createSqliteStore } from '@ext/store-sqlite';
import Type from 'typebox';
import { afterEach, describe, expect, it } from 'vitest';
import { subscribeEvents, type EventSubscription } from './client.js';
import { EVENTS_ID, type EventNotification, type TerminationNotice } from './index.js';
import { eventsServer } from './server.js';
import { eventsPair, FIXTURE_EVENTS, fixtureServer, until, type Fixture } from './test-fixtures.js';

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

async function wireFailure(promise: Promise<unknown>): Promise<WireError> {
  const error: unknown = await promise.then(
    () => undefined,
    (failure: unknown) => failure,
  );
  if (!WireError.isInstance(error)) throw new Error(`expected a WireError, got ${String(error)}`);
  return error;
}

describe('eventsServer options', () => {
  it('EVT-2: validates its options when called, naming the option', () => {
    const events = FIXTURE_EVENTS;
    expect(() => eventsServer({ events, maxTtlSeconds: 0 })).toThrow(/maxTtlSeconds must be a positive integer/);
    expect(() => eventsServer({ events, defaultTtlSeconds: 100, maxTtlSeconds: 10 })).toThrow(
      /defaultTtlSeconds \(100\) must not exceed maxTtlSeconds \(10\)/,
    );
    expect(() => eventsServer({ events, keyPrefix: '' })).toThrow(/keyPrefix/);
    expect(() => eventsServer({ events: {} })).toThrow(ConfigurationError);
    expect(() => eventsServer({ events, pollIntervalSeconds: 1.5 })).toThrow(/pollIntervalSeconds/);
  });
});

describe('publishing', () => {
  it('EVT-2: refuses an undeclared type or a payload that does not match its schema, naming the field', async () => {
    const events = fixtureServer();
    const store = new MemoryStore();
    const unknown = events.publish(store, 'deploy' as 'build_finished', { repository: 'web', ok: true, seq: 1 });
    await expect(unknown).rejects.toThrow(/event type "deploy" is not declared/);
    const bad = events.publish(store, 'build_finished', { repository: 'web', ok: 'yes' as unknown as boolean, seq: 1 });
    await expect(bad).rejects.toThrow(/publish\("build_finished"\): payload\/ok/);
    const hint = events.publish(
      store,
      'build_finished',
      { repository: 'web', ok: true, seq: 1 },
      { actionHint: { reason: 3 as unknown as string } },
    );
    await expect(hint).rejects.toThrow(/actionHint/);
    expect(await store.read('events:log')).toEqual([]);
  });

  it('EVT-11: watch() receives matching events in order, in process, with an action hint when given', async () => {
    const events = fixtureServer();
    const store = new MemoryStore();
    const received: EventNotification[] = [];
    const watch = await events.watch(store, { events: ['build_finished'], filter: { repository: 'web' } }, (event) => {
      received.push(event);
    });
    cleanup.push(() => watch.stop());
    for (let seq = 1; seq <= 20; seq++) {
      await events.publish(
        store,
        'build_finished',
        { repository: seq % 2 === 0 ? 'web' : 'api', ok: true, seq },
        { actionHint: { recommendedTool: 'view_build', parameters: { seq } } },
      );
    }
    await until(() => received.length >= 10, 10_000, 'ten watched events');
    expect(received.map((event) => event.payload?.seq)).toEqual([2, 4, 6, 8, 10, 12, 14, 16, 18, 20]);
    expect(received[0]?.action_hint).toEqual({ recommended_tool: 'view_build', parameters: { seq: 2 } });
    expect(events.activeDeliveries()).toBe(1);
    await watch.stop();
    expect(events.activeDeliveries()).toBe(0);
    await expect(events.watch(store, { events: ['nope'] }, () => undefined)).rejects.toThrow(
      /Unknown event type "nope"/,
    );
  });

  it('EVT-18: a log entry of another writer that is not an event is skipped, not fatal', async () => {
    const events = fixtureServer();
    const store = new MemoryStore();
    const received: EventNotification[] = [];
    const watch = await events.watch(store, { events: ['build_finished'], after: '' }, (event) => {
      received.push(event);
    });
    cleanup.push(() => watch.stop());
    await store.append('events:log', { garbage: true });
    await events.publish(store, 'build_finished', { repository: 'web', ok: true, seq: 1 });
    await until(() => received.length >= 1, 10_000, 'the event after the garbage');
    expect(received.map((event) => event.payload?.seq)).toEqual([1]);
  });
});

describe('subscriptions on the server', () => {
  it('EVT-19: a principal holding the maximum of subscriptions is denied another until one ends', async () => {
    const fixture = await open('v1', { server: fixtureServer({ maxSubscriptionsPerPrincipal: 2 }) });
    const request = (id: string): Promise<Record<string, unknown>> =>
      fixture.pair.client.request(`${EVENTS_ID}/subscribe`, {
        subscription_id: id,
        events: ['ticket_updated'],
        delivery: 'poll',
      });
    expect(await request('one')).toMatchObject({ status: 'active' });
    expect(await request('two')).toMatchObject({ status: 'active' });
    expect(await request('one')).toMatchObject({ status: 'active' });
    const third = await request('three');
    expect(third).toMatchObject({ status: 'denied', supported_events: ['ticket_updated', 'build_finished'] });
    expect(String(third.reason)).toContain('maximum of 2 subscriptions');
    await fixture.pair.client.request(`${EVENTS_ID}/unsubscribe`, { subscription_id: 'one' });
    expect(await request('three')).toMatchObject({ status: 'active' });
  });

  it('EVT-19: subscription ids named like Object.prototype members count against the maximum like any other', async () => {
    const fixture = await open('v1', { server: fixtureServer({ maxSubscriptionsPerPrincipal: 2 }) });
    const request = (id: string): Promise<Record<string, unknown>> =>
      fixture.pair.client.request(`${EVENTS_ID}/subscribe`, {
        subscription_id: id,
        events: ['ticket_updated'],
        delivery: 'poll',
      });
    expect(await request('__proto__')).toMatchObject({ status: 'active' });
    expect(await request('constructor')).toMatchObject({ status: 'active' });
    expect(await request('toString')).toMatchObject({ status: 'denied' });
    await fixture.pair.client.request(`${EVENTS_ID}/unsubscribe`, { subscription_id: '__proto__' });
    expect(await request('toString')).toMatchObject({ status: 'active' });
  });

  it('EVT-10: a poll returns at most `limit` events and says when more are waiting', async () => {
    const fixture = await open('v1');
    await fixture.pair.client.request(`${EVENTS_ID}/subscribe`, {
      subscription_id: 'p',
      events: ['build_finished'],
      delivery: 'poll',
    });
    for (let seq = 1; seq <= 7; seq++)
      await fixture.events.publish(fixture.store, 'build_finished', { repository: 'web', ok: true, seq });
    const seqs = (result: Record<string, unknown>): unknown[] =>
      (result.events as EventNotification[]).map((event) => event.payload?.seq);
    const first = await fixture.pair.client.request(`${EVENTS_ID}/poll`, { subscription_id: 'p', limit: 3 });
    expect(seqs(first)).toEqual([1, 2, 3]);
    expect(first.has_more).toBe(true);
    const second = await fixture.pair.client.request(`${EVENTS_ID}/poll`, { subscription_id: 'p', limit: 10 });
    expect(seqs(second)).toEqual([4, 5, 6, 7]);
    expect(second.has_more).toBe(false);
    const replay = await fixture.pair.client.request(`${EVENTS_ID}/poll`, {
      subscription_id: 'p',
      cursor: first.cursor,
      limit: 2,
    });
    expect(seqs(replay)).toEqual([4, 5]);
    expect((replay.events as EventNotification[])[0]?.previous_cursor).toBe(first.cursor);
  });

  it('EVT-17: a cursor the store cannot read is refused naming the cursor field', async () => {
    const store = createSqliteStore({ path: ':memory:' });
    cleanup.push(() => store.close());
    const fixture = await open('v1', { store });
    const failure = await wireFailure(
      fixture.pair.client.request(`${EVENTS_ID}/subscribe`, { events: ['build_finished'], cursor: 'not-a-cursor' }),
    );
    expect(failure.data).toMatchObject({ code: 'INVALID_INPUT', details: { field: 'cursor', pointer: '/cursor' } });
    await fixture.pair.client.request(`${EVENTS_ID}/subscribe`, {
      subscription_id: 'p',
      events: ['build_finished'],
      delivery: 'poll',
    });
    const poll = await wireFailure(
      fixture.pair.client.request(`${EVENTS_ID}/poll`, { subscription_id: 'p', cursor: 'x1' }),
    );
    expect(poll.data).toMatchObject({ code: 'INVALID_INPUT', details: { field: 'cursor' } });
  });

  it('EVT-17: subscribing with a cursor replays what was published after it', async () => {
    const fixture = await open('v1');
    const cursors: string[] = [];
    for (let seq = 1; seq <= 5; seq++)
      cursors.push(await fixture.events.publish(fixture.store, 'build_finished', { repository: 'web', ok: true, seq }));
    const received: EventNotification[] = [];
    track(
      await subscribeEvents(fixture.pair.client, {
        events: ['build_finished'],
        cursor: cursors[1],
        onEvent: (event) => void received.push(event),
      }),
    );
    await until(() => received.length >= 3, 10_000, 'the replayed events');
    expect(received.map((event) => event.payload?.seq)).toEqual([3, 4, 5]);
    expect(received[0]?.previous_cursor).toBe(cursors[1]);
  });

  it('EVT-14: stop() announces server_shutdown; the client resubscribes and misses nothing', async () => {
    const fixture = await open('v2-legacy');
    const received: EventNotification[] = [];
    const notices: TerminationNotice[] = [];
    const subscription = track(
      await subscribeEvents(fixture.pair.client, {
        events: ['ticket_updated'],
        onEvent: (event) => void received.push(event),
        onTerminated: (notice) => void notices.push(notice),
      }),
    );
    await fixture.events.publish(fixture.store, 'ticket_updated', { id: 'T-1', project: 'A', status: 'open', seq: 1 });
    await until(() => received.length >= 1, 10_000, 'the first event');
    await fixture.events.stop();
    expect(fixture.events.activeDeliveries()).toBe(0);
    await until(() => notices.length >= 1, 10_000, 'the shutdown notice');
    expect(notices[0]).toMatchObject({ subscription_id: subscription.id, reason: 'server_shutdown' });
    await until(() => fixture.events.activeDeliveries() === 1, 10_000, 'the resubscription');
    await fixture.events.publish(fixture.store, 'ticket_updated', { id: 'T-2', project: 'A', status: 'open', seq: 2 });
    await until(() => received.length >= 2, 10_000, 'the event after resubscribing');
    expect(received.map((event) => event.payload?.seq)).toEqual([1, 2]);
  });

  it('EVT-9: pushed deliveries stop when the connection closes', async () => {
    const fixture = await open('v1');
    track(await subscribeEvents(fixture.pair.client, { events: ['ticket_updated'], onEvent: () => undefined }));
    expect(fixture.events.activeDeliveries()).toBe(1);
    await fixture.pair.close();
    await until(() => fixture.events.activeDeliveries() === 0, 10_000, 'the delivery to stop');
  });

  it('EVT-2: a custom match function decides which events a filter selects', async () => {
    const events = eventsServer({
      events: {
        price_changed: {
          description: 'A price moved',
          payload: Type.Object({ symbol: Type.String(), price: Type.Number() }),
          filter: Type.Object({ above: Type.Optional(Type.Number()) }),
          match: (filter, payload) => typeof filter.above !== 'number' || (payload.price as number) > filter.above,
        },
      },
    });
    const store = new MemoryStore();
    const prices: unknown[] = [];
    const watch = await events.watch(store, { events: ['price_changed'], filter: { above: 10 } }, (event) => {
      prices.push(event.payload?.price);
    });
    cleanup.push(() => watch.stop());
    for (const price of [5, 11, 9, 12]) await events.publish(store, 'price_changed', { symbol: 'X', price });
    await until(() => prices.length >= 2, 10_000, 'two prices');
    expect(prices).toEqual([11, 12]);
  });
});

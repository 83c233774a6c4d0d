/**
 * Two server instances behind one Redis (a load-balanced deployment): an
 * event published on one reaches a subscriber connected to the other, in
 * order, and a subscriber that moves to the other instance resumes from its
 * cursor. Runs whenever REDIS_URL is set, e.g. `redis://127.0.0.1:6390`.
 */
import { randomUUID } from 'node:crypto';
import type { Store } from '@ext/core';
import { TEST_LINES, type TestLine } from '@ext/core/testing';
import { createRedisStore } from '@ext/store-redis';
import { afterEach, describe, expect, it } from 'vitest';
import { subscribeEvents, type EventSubscription } from './client.js';
import type { EventNotification } from './index.js';
import { eventsPair, fixtureServer, until, type Fixture } from './test-fixtures.js';

// These tests are about atomicity and sharing, not the default per-command timeout, which a loaded test
// machine can exceed under a burst of concurrent calls (the outage tests cover the timeout).
const LOADED_MACHINE_TIMEOUT_MS = 10_000;

const url = process.env.REDIS_URL;

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

/** One server instance with its own Redis connection and its own events extension, on a key space shared with its siblings. */
async function instance(line: TestLine, keyPrefix: string): Promise<Fixture & { store: Store }> {
  const store = await createRedisStore({
    url,
    keyPrefix,
    connectTimeoutMs: 2000,
    commandTimeoutMs: LOADED_MACHINE_TIMEOUT_MS,
  });
  cleanup.push(() => store.close());
  const fixture = await eventsPair(line, { server: fixtureServer(), store });
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

const seqs = (received: readonly EventNotification[]): unknown[] => received.map((event) => event.payload?.seq);

describe.skipIf(url === undefined || url === '').each(TEST_LINES)(
  '@ext/events on a shared Redis store (%s)',
  (line) => {
    it('EVT-22: an event published on instance A reaches a subscriber connected to instance B, in order', async () => {
      const prefix = `events-test:${randomUUID()}:`;
      const a = await instance(line, prefix);
      const b = await instance(line, prefix);
      const received: EventNotification[] = [];
      track(
        await subscribeEvents(b.pair.client, {
          events: ['ticket_updated'],
          filter: { project: 'A' },
          onEvent: (event) => void received.push(event),
        }),
      );
      for (let seq = 1; seq <= 40; seq++) {
        await a.events.publish(a.store, 'ticket_updated', {
          id: `T-${String(seq)}`,
          project: seq % 4 === 0 ? 'B' : 'A',
          status: 'open',
          seq,
        });
      }
      await until(() => received.length >= 30, 15_000, '30 matching events from the other instance');
      expect(seqs(received)).toEqual(
        Array.from({ length: 40 }, (_, index) => index + 1).filter((seq) => seq % 4 !== 0),
      );
    });

    it('EVT-17 EVT-22: a subscriber that moves from instance A to instance B resumes from its cursor without gaps or duplicates', async () => {
      const prefix = `events-test:${randomUUID()}:`;
      const a = await instance(line, prefix);
      const b = await instance(line, prefix);
      const received: EventNotification[] = [];
      const subscription = track(
        await subscribeEvents(a.pair.client, {
          events: ['build_finished'],
          onEvent: (event) => void received.push(event),
        }),
      );
      const publish = async (from: number, to: number): Promise<void> => {
        for (let seq = from; seq <= to; seq++)
          await b.events.publish(b.store, 'build_finished', { repository: 'web', ok: true, seq });
      };
      await publish(1, 4);
      await until(() => received.length >= 4, 15_000, 'events on instance A');
      await a.pair.close();
      await publish(5, 9);
      await subscription.resume(b.pair.client);
      await publish(10, 12);
      await until(() => received.length >= 12, 15_000, 'every event after moving to instance B');
      expect(seqs(received)).toEqual(Array.from({ length: 12 }, (_, index) => index + 1));
    });

    it('EVT-13: unsubscribing on instance B ends the delivery running on instance A', async () => {
      const prefix = `events-test:${randomUUID()}:`;
      const a = await instance(line, prefix);
      const b = await instance(line, prefix);
      const subscription = track(
        await subscribeEvents(a.pair.client, { events: ['ticket_updated'], onEvent: () => undefined }),
      );
      await until(() => a.events.activeDeliveries() === 1, 15_000, 'the delivery on instance A');
      await b.pair.client.request('io.github.mcp-ext/events/unsubscribe', { subscription_id: subscription.id });
      expect(await subscription.ended()).toEqual({ state: 'unsubscribed', reason: 'unsubscribed' });
      await until(() => a.events.activeDeliveries() === 0, 15_000, 'the delivery on instance A to stop');
    });
  },
);

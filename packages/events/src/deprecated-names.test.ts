import { MemoryStore } from '@ext/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { subscribeEvents } from './client.js';
import type { EventNotification } from './index.js';
import { eventsPair, fixtureServer, until, type Fixture } from './test-fixtures.js';

// The snake_case spellings of 0.1 keep working until the next major and warn once per process (VERSIONING.md section 4).
/* eslint-disable @typescript-eslint/no-deprecated -- this file exercises the deprecated spellings on purpose */

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  for (const step of cleanup.splice(0).reverse()) await step();
});

function warned(spy: { mock: { calls: unknown[][] } }): string[] {
  return spy.mock.calls.flatMap(([message]) => {
    const name = /"(\w+)" is deprecated/.exec(String(message))?.[1];
    return name === undefined ? [] : [name];
  });
}

describe('deprecated snake_case spellings (0.1)', () => {
  it('EVT-11: publish still takes actionHint.recommended_tool, sent as recommended_tool, warning once', async () => {
    const emitted = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    const events = fixtureServer();
    const store = new MemoryStore();
    const received: EventNotification[] = [];
    const watch = await events.watch(store, { events: ['build_finished'] }, (event) => {
      received.push(event);
    });
    cleanup.push(() => watch.stop());
    for (const seq of [1, 2]) {
      await events.publish(
        store,
        'build_finished',
        { repository: 'web', ok: true, seq },
        { actionHint: { recommended_tool: 'view_build', reason: 'see why' } },
      );
    }
    await until(() => received.length >= 2, 10_000, 'two watched events');
    expect(received.map((event) => event.action_hint)).toEqual([
      { recommended_tool: 'view_build', reason: 'see why' },
      { recommended_tool: 'view_build', reason: 'see why' },
    ]);
    expect(warned(emitted)).toEqual(['recommended_tool']);
  });

  it('EVT-19: the attempt authorize gets still answers subscription_id, warning once', async () => {
    const emitted = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    const seen: [string, string][] = [];
    const fixture: Fixture = await eventsPair('v1', {
      server: fixtureServer({
        authorize: (attempt) => {
          seen.push([attempt.subscriptionId, attempt.subscription_id]);
          return true;
        },
      }),
    });
    cleanup.push(async () => {
      await fixture.events.stop();
      await fixture.pair.close();
    });
    for (const id of ['sub-a', 'sub-b']) {
      const subscription = await subscribeEvents(fixture.pair.client, {
        events: ['ticket_updated'],
        subscriptionId: id,
        onEvent: () => undefined,
      });
      cleanup.push(async () => subscription?.close());
    }
    expect(seen).toEqual([
      ['sub-a', 'sub-a'],
      ['sub-b', 'sub-b'],
    ]);
    expect(warned(emitted)).toEqual(['subscription_id']);
  });
});

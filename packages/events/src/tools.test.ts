import { silentLogger } from '@ext/core/kit';
import { MemoryStore } from '@ext/core';
import { createTestPair, TEST_LINES, type TestPair } from '@ext/core/testing';
import { errorsServer } from '@ext/errors/server';
import { afterEach, describe, expect, it } from 'vitest';
import type { EventNotification } from './index.js';
import { registerEventTools } from './server.js';
import { fixtureServer } from './test-fixtures.js';

let pair: TestPair | undefined;
afterEach(async () => {
  await pair?.close();
  pair = undefined;
});

describe.each(TEST_LINES)('events served as tools on %s', (line) => {
  it('EVT-23: a client without the extension lists, subscribes, polls and unsubscribes through tools', async () => {
    const events = fixtureServer();
    const store = new MemoryStore();
    pair = await createTestPair({
      line,
      serverExtensions: [events],
      setup: (server) => {
        registerEventTools(server);
      },
      serverOptions: { store, logger: silentLogger },
      authInfo: { clientId: 'bob' },
    });
    const { client } = pair;
    const listed = await client.callTool('list_events', {});
    expect((listed.structuredContent?.events as { name: string }[]).map((event) => event.name)).toEqual([
      'ticket_updated',
      'build_finished',
    ]);
    const subscribed = await client.callTool('subscribe_events', {
      events: ['ticket_updated'],
      filter: { project: 'A' },
      subscription_id: 'tool-sub',
    });
    expect(subscribed.structuredContent).toMatchObject({
      status: 'active',
      delivery: 'poll',
      subscription_id: 'tool-sub',
    });
    for (const [seq, project] of [
      [1, 'A'],
      [2, 'B'],
      [3, 'A'],
    ] as const) {
      await events.publish(store, 'ticket_updated', { id: `T-${String(seq)}`, project, status: 'open', seq });
    }
    const polled = await client.callTool('poll_events', { subscription_id: 'tool-sub' });
    expect((polled.structuredContent?.events as EventNotification[]).map((event) => event.payload?.seq)).toEqual([
      1, 3,
    ]);
    expect(polled.content[0]).toMatchObject({
      type: 'text',
      text: expect.stringMatching(/^2 event\(s\)\./) as unknown,
    });
    await client.callTool('unsubscribe_events', { subscription_id: 'tool-sub' });
    const after = await client.callTool('poll_events', { subscription_id: 'tool-sub' });
    expect(after.structuredContent).toMatchObject({ status: 'terminated', reason: 'unsubscribed' });
    await events.stop();
  });

  it('EVT-24: a caller using the tools is pointed at the tools, not at methods it may not be able to call', async () => {
    const events = fixtureServer();
    pair = await createTestPair({
      line,
      serverExtensions: [errorsServer(), events],
      setup: (server) => {
        registerEventTools(server);
      },
      serverOptions: { store: new MemoryStore(), logger: silentLogger },
      authInfo: { clientId: 'bob' },
    });
    const { client } = pair;
    const unknown = await client.callTool('subscribe_events', { events: ['commit_to_main'] });
    expect(unknown.isError).toBe(true);
    expect(textOf(unknown)).toContain('Call list_events to see the event types this server publishes.');
    expect(textOf(unknown)).not.toContain('method');
    const gone = await client.callTool('poll_events', { subscription_id: 'never-made' });
    expect(gone.isError).toBe(true);
    expect(textOf(gone)).toContain(
      'Subscribe again with subscribe_events, then pass your last cursor to poll_events to miss no event.',
    );
    await events.stop();
  });
});

function textOf(result: { content: readonly unknown[] }): string {
  const first = result.content[0] as { type?: string; text?: unknown } | undefined;
  return first?.type === 'text' && typeof first.text === 'string' ? first.text : '';
}

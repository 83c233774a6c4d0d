/**
 * The events-sketch suite: the checks of a server that advertises
 * `io.modelcontextprotocol/events`, the identifier of the Triggers and Events
 * working group's design sketch (the official Events draft), whose methods
 * are `events/list` and `events/poll` (read only: the checks subscribe to nothing).
 */
import { isRecord } from '@ext/core/kit';
import { WireError } from '@ext/core';
import { CheckFailure, describe, ensure } from '../assert.js';
import type { Probe } from '../probe.js';
import type { CheckContext, ExtensionSuite } from '../types.js';

export const EVENTS_SKETCH_ID = 'io.modelcontextprotocol/events';
const MODES = ['poll', 'push', 'webhook'];
/** The draft's NotFound code (an unknown event name). */
const NOT_FOUND = -32011;

/** A client with no extension declared: the draft's methods answer whatever the client declares. */
function plainClient(ctx: CheckContext): Promise<Probe> {
  return ctx.connect({});
}

/** The first listed event type that can be polled, or the check is skipped. */
async function pollable(ctx: CheckContext, probe: Probe): Promise<string> {
  const answer = await probe.request('events/list', {});
  const entries = Array.isArray(answer.events) ? answer.events.filter(isRecord) : [];
  const found = entries.find((entry) => Array.isArray(entry.delivery) && entry.delivery.includes('poll'));
  return typeof found?.name === 'string' ? found.name : ctx.skip('the server lists no event type it delivers by poll');
}

function ensurePollResult(answer: Record<string, unknown>, what: string): void {
  ensure(Array.isArray(answer.events), `${what}: events is ${describe(answer.events)}`);
  ensure(answer.cursor === null || typeof answer.cursor === 'string', `${what}: cursor is ${describe(answer.cursor)}`);
  for (const field of ['truncated', 'hasMore'])
    ensure(typeof answer[field] === 'boolean', `${what}: ${field} is ${describe(answer[field])}`);
  ensure(
    Number.isSafeInteger(answer.nextPollMs) && (answer.nextPollMs as number) >= 0,
    `${what}: nextPollMs is ${describe(answer.nextPollMs)}`,
  );
  for (const event of answer.events) {
    ensure(isRecord(event), `${what}: an event is ${describe(event)}`);
    for (const field of ['eventId', 'name', 'timestamp'])
      ensure(typeof event[field] === 'string', `${what}: an event's ${field} is ${describe(event[field])}`);
    ensure(isRecord(event.data), `${what}: an event's data is ${describe(event.data)}`);
  }
}

/** `@ext/events`'s rules for the official Events draft (SPEC: packages/events/SPEC.md, EVT-25 on). */
export const eventsSketchSuite: ExtensionSuite = {
  extension: 'events-sketch',
  ids: [EVENTS_SKETCH_ID],
  spec: 'packages/events/SPEC.md',
  checks: [
    {
      id: 'events-sketch/list',
      requirement: 'EVT-26',
      level: 'MUST',
      title:
        'events/list answers each event type with name, description, delivery modes, inputSchema and payloadSchema',
      async run(ctx) {
        const answer = await (await plainClient(ctx)).request('events/list', {});
        ensure(Array.isArray(answer.events), `events is ${describe(answer.events)}`);
        for (const entry of answer.events) {
          ensure(isRecord(entry), `an event type is ${describe(entry)}`);
          ensure(typeof entry.name === 'string' && entry.name !== '', `name is ${describe(entry.name)}`);
          ensure(typeof entry.description === 'string', `${entry.name}: description is ${describe(entry.description)}`);
          ensure(
            Array.isArray(entry.delivery) &&
              entry.delivery.length > 0 &&
              entry.delivery.every((mode) => typeof mode === 'string' && MODES.includes(mode)),
            `${entry.name}: delivery is ${describe(entry.delivery)}`,
          );
          for (const field of ['inputSchema', 'payloadSchema']) {
            const schema = entry[field];
            ensure(isRecord(schema) && schema.type === 'object', `${entry.name}: ${field} is ${describe(schema)}`);
          }
        }
      },
    },
    {
      id: 'events-sketch/poll',
      requirement: 'EVT-28',
      level: 'MUST',
      title:
        'events/poll with a null cursor bootstraps with no events; polling on answers events, cursor, truncated, hasMore and nextPollMs',
      async run(ctx) {
        const probe = await plainClient(ctx);
        const name = await pollable(ctx, probe);
        const first = await probe.request('events/poll', { name, cursor: null });
        ensurePollResult(first, 'the bootstrap poll');
        ensure(
          Array.isArray(first.events) && first.events.length === 0,
          `a null cursor replayed ${describe(first.events)}`,
        );
        const next = await probe.request('events/poll', { name, cursor: first.cursor, timeoutMs: 0 });
        ensurePollResult(next, 'the poll from the bootstrap cursor');
      },
    },
    {
      id: 'events-sketch/unknown-event',
      requirement: 'EVT-28',
      level: 'MUST',
      title: 'events/poll of an unknown event name fails with NotFound (-32011), data.kind "event"',
      async run(ctx) {
        const probe = await plainClient(ctx);
        let answer: Record<string, unknown>;
        try {
          answer = await probe.request('events/poll', { name: 'conformance.no-such-event', cursor: null });
        } catch (error) {
          if (!(error instanceof WireError)) throw error;
          ensure(error.code === NOT_FOUND, `JSON-RPC code ${String(error.code)}, expected ${String(NOT_FOUND)}`);
          ensure(
            isRecord(error.data) && error.data.kind === 'event',
            `error data is ${describe(error.data)}, expected kind "event"`,
          );
          return;
        }
        throw new CheckFailure(`events/poll of an unknown event answered ${describe(answer)}`);
      },
    },
  ],
};

import type { JsonValue } from '@ext/core/kit';
import type { StreamEntry } from '@ext/core';
import fc from 'fast-check';
import Type from 'typebox';
import { describe, expect, it } from 'vitest';
import { buildCatalog, defaultMatch } from './catalog.js';
import { scanLog } from './feed.js';
import {
  checkSubscription,
  chooseDelivery,
  grantedTtlSeconds,
  parsePollRequest,
  parseSubscriptionRequest,
} from './requests.js';
import { EventSequencer } from './sequencer.js';
import {
  busMessageToJson,
  logEntryToJson,
  parseBusMessage,
  parseLogEntry,
  parsePrincipalIndex,
  parseRecord,
  recordToJson,
  subscriptionKey,
  type LogEntry,
  type SubscriptionRecord,
} from './store-layout.js';
import { FIXTURE_EVENTS } from './test-fixtures.js';

const catalog = buildCatalog(FIXTURE_EVENTS, 'test');

describe('request parsing', () => {
  it('EVT-4 EVT-6: never throws, and a refusal names a field of the request and its pointer', () => {
    fc.assert(
      fc.property(
        fc.dictionary(
          fc.constantFrom('events', 'filter', 'ttl_seconds', 'cursor', 'delivery', 'subscription_id', 'x'),
          fc.jsonValue(),
        ),
        (params) => {
          const parsed = parseSubscriptionRequest(params);
          if (!parsed.ok) {
            expect(parsed.failure.code).toBe('INVALID_INPUT');
            expect(parsed.failure.pointer.startsWith(`/${parsed.failure.field}`)).toBe(true);
            expect(parsed.failure.message).toContain(parsed.failure.field);
          }
        },
      ),
    );
  });

  it('EVT-4: accepts the seed example and ignores _meta', () => {
    const parsed = parseSubscriptionRequest({
      subscription_id: 'sub-git-main-commits',
      events: ['commit_to_main', 'pr_review_requested'],
      filter: { repository: 'frontend-app' },
      ttl_seconds: 3600,
      _meta: { progressToken: 1 },
    });
    expect(parsed).toEqual({
      ok: true,
      value: {
        subscription_id: 'sub-git-main-commits',
        events: ['commit_to_main', 'pr_review_requested'],
        filter: { repository: 'frontend-app' },
        ttl_seconds: 3600,
      },
    });
  });

  it('EVT-10: a poll limit outside 1..1000 is refused naming limit', () => {
    const parsed = parsePollRequest({ subscription_id: 's', limit: 5000 });
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.failure).toMatchObject({ field: 'limit', pointer: '/limit' });
  });
});

describe('checking a subscription against the event types', () => {
  it('EVT-5: the first unknown event is named by its index', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('ticket_updated', 'build_finished', 'nope', 'other'), { minLength: 1, maxLength: 8 }),
        (events) => {
          const failure = checkSubscription(events, {}, catalog);
          const unknown = events.findIndex((name) => !catalog.has(name));
          if (unknown === -1) expect(failure).toBeUndefined();
          else
            expect(failure).toMatchObject({
              code: 'UNKNOWN_EVENT',
              pointer: `/events/${String(unknown)}`,
              details: { event: events[unknown] },
            });
        },
      ),
    );
  });

  it('EVT-6: a filter field applies to the types that declare it; one declared by none is refused', () => {
    expect(
      checkSubscription(['ticket_updated', 'build_finished'], { project: 'A', repository: 'web' }, catalog),
    ).toBeUndefined();
    expect(checkSubscription(['build_finished'], { project: 'A' }, catalog)).toMatchObject({
      code: 'INVALID_FILTER',
      pointer: '/filter/project',
    });
    expect(checkSubscription(['ticket_updated'], { status: 3 }, catalog)).toMatchObject({
      code: 'INVALID_FILTER',
      pointer: '/filter/status',
    });
    expect(checkSubscription(['ticket_updated'], { 'a/b': 1 }, catalog)).toMatchObject({ pointer: '/filter/a~1b' });
  });
});

describe('the default filter match', () => {
  const scalar = fc.oneof(fc.string({ maxLength: 4 }), fc.integer({ min: 0, max: 5 }), fc.boolean());

  it('EVT-12: an empty filter matches everything; a filter cut from the payload matches it', () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.string({ maxLength: 3 }), scalar),
        fc.integer({ min: 0, max: 4 }),
        (payload, take) => {
          expect(defaultMatch({}, payload)).toBe(true);
          const filter = Object.fromEntries(Object.entries(payload).slice(0, take));
          expect(defaultMatch(filter, payload)).toBe(true);
        },
      ),
    );
  });

  it('EVT-12: a filter field the payload does not own never matches, even one Object.prototype carries', () => {
    for (const field of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
      expect(defaultMatch(JSON.parse(`{"${field}":"x"}`) as Record<string, unknown>, { id: 'T-1' })).toBe(false);
    }
    expect(
      defaultMatch(
        JSON.parse('{"__proto__":"x"}') as Record<string, unknown>,
        JSON.parse('{"__proto__":"x"}') as Record<string, unknown>,
      ),
    ).toBe(true);
  });

  it('EVT-12: an array filter value matches any of its items; a missing field never matches', () => {
    fc.assert(
      fc.property(scalar, fc.array(scalar, { maxLength: 4 }), (value, options) => {
        const wanted = options.some((option) => JSON.stringify(option) === JSON.stringify(value));
        expect(defaultMatch({ field: options }, { field: value })).toBe(wanted);
        expect(defaultMatch({ field: value }, {})).toBe(false);
      }),
    );
  });
});

describe('TTL and delivery choices', () => {
  it('EVT-7: the granted TTL is never above the maximum and honours smaller requests', () => {
    fc.assert(
      fc.property(
        fc.option(fc.integer({ min: 1, max: 10 ** 7 }), { nil: undefined }),
        fc.integer({ min: 1, max: 10 ** 6 }),
        (requested, max) => {
          const granted = grantedTtlSeconds(requested, Math.min(3600, max), max);
          expect(granted).toBeLessThanOrEqual(max);
          if (requested !== undefined && requested <= max) expect(granted).toBe(requested);
        },
      ),
    );
  });

  it('EVT-9: notifications only where a connection outlives the request; polling for clients without the extension', () => {
    expect(chooseDelivery(undefined, true, true)).toBe('notification');
    expect(chooseDelivery(undefined, false, true)).toBe('stream');
    expect(chooseDelivery(undefined, true, false)).toBe('poll');
    expect(chooseDelivery('notification', false, true)).toBe('stream');
    expect(chooseDelivery('poll', true, true)).toBe('poll');
    expect(chooseDelivery('stream', true, true)).toBe('stream');
  });
});

describe('store layout', () => {
  it('EVT-16: subscription keys of different principals never collide', () => {
    const id = fc.stringMatching(/^[a-zA-Z0-9_\-:.]{1,12}$/);
    fc.assert(
      fc.property(fc.string({ maxLength: 12 }), id, fc.string({ maxLength: 12 }), id, (p1, s1, p2, s2) => {
        fc.pre(p1 !== p2 || s1 !== s2);
        expect(subscriptionKey('events', p1, s1)).not.toBe(subscriptionKey('events', p2, s2));
      }),
    );
  });

  it('reading stored state never throws and round-trips what was written', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (generated) => {
        const value = generated as JsonValue;
        parseRecord(value);
        parseLogEntry(value);
        parseBusMessage(value);
        parsePrincipalIndex(value, 0);
      }),
    );
    const record: SubscriptionRecord = {
      v: 1,
      subscription_id: 's-1',
      events: ['ticket_updated'],
      filter: { project: 'A' },
      delivery: 'stream',
      created_at: '2026-01-01T00:00:00.000Z',
      expires_ms: 5,
      cursor: '',
      terminated: { reason: 'revoked', message: 'bye' },
    };
    expect(parseRecord(recordToJson(record))).toEqual(record);
    const entry: LogEntry = { event: 'e', timestamp: 't', payload: { a: 1 }, action_hint: { recommended_tool: 'x' } };
    expect(parseLogEntry(logEntryToJson(entry))).toEqual(entry);
    const message = { kind: 'terminated', key: 'k', reason: 'r', message: undefined } as const;
    expect(parseBusMessage(busMessageToJson(message))).toEqual(message);
    expect(parsePrincipalIndex({ a: 10, b: 1, c: 'x' }, 5)).toEqual({ a: 10 });
  });
});

/** A log as a store keeps it: increasing zero-padded ids. */
function fakeLog(values: readonly JsonValue[]): (after: string | undefined, limit: number) => Promise<StreamEntry[]> {
  const entries = values.map((value, index) => ({ id: String(index + 1).padStart(6, '0'), value }));
  return (after, limit) =>
    Promise.resolve(entries.filter((entry) => after === undefined || entry.id > after).slice(0, limit));
}

describe('scanning the log', () => {
  it('EVT-10 EVT-11: successive scans yield every match exactly once, in order, whatever the limits', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.oneof(fc.integer({ min: 0, max: 9 }), fc.constant('garbage')), { maxLength: 60 }),
        fc.integer({ min: 1, max: 7 }),
        fc.integer({ min: 1, max: 20 }),
        fc.integer({ min: 1, max: 9 }),
        async (seqs, limit, maxScan, batch) => {
          const values: JsonValue[] = seqs.map((seq) =>
            seq === 'garbage' ? 'garbage' : logEntryToJson({ event: 'e', timestamp: 't', payload: { seq } }),
          );
          const read = fakeLog(values);
          const wanted = (entry: LogEntry): boolean => (entry.payload.seq as number) % 2 === 0;
          const seen: number[] = [];
          let cursor = '';
          for (let round = 0; round < 200; round++) {
            const scan = await scanLog(read, cursor, wanted, limit, maxScan, batch);
            expect(scan.matches.length).toBeLessThanOrEqual(limit);
            seen.push(...scan.matches.map((match) => match.entry.payload.seq as number));
            cursor = scan.cursor;
            if (!scan.hasMore) break;
          }
          expect(seen).toEqual(seqs.filter((seq): seq is number => seq !== 'garbage' && seq % 2 === 0));
        },
      ),
    );
  });
});

describe('the client-side sequencer', () => {
  it('EVT-11 EVT-17: over a channel that drops and repeats notifications, gap filling delivers each event once, in order', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 40 }),
        fc.array(fc.constantFrom('send', 'drop', 'twice'), { minLength: 40, maxLength: 40 }),
        (count, fate) => {
          // What the server sent: events 1..count, each naming the one before.
          const sent = Array.from({ length: count }, (_, index) => ({
            cursor: `c${String(index + 1).padStart(3, '0')}`,
            previous_cursor: index === 0 ? 'start' : `c${String(index).padStart(3, '0')}`,
          }));
          const arriving = sent.flatMap((notification, index) =>
            fate[index] === 'drop' ? [] : fate[index] === 'twice' ? [notification, notification] : [notification],
          );
          const sequencer = new EventSequencer('start', 8);
          const delivered: string[] = [];
          const deliver = (cursor: string): void => {
            sequencer.delivered(cursor);
            delivered.push(cursor);
          };
          for (const notification of arriving) {
            const action = sequencer.classify(notification);
            if (action === 'duplicate') continue;
            if (action === 'gap') {
              // The poll from the last delivered event returns everything after it.
              const from = sent.findIndex((event) => event.cursor === sequencer.last) + 1;
              for (const missing of sent.slice(from, sent.indexOf(notification)))
                if (!sequencer.has(missing.cursor)) deliver(missing.cursor);
            }
            if (!sequencer.has(notification.cursor)) deliver(notification.cursor);
          }
          const lastArrived = arriving.at(-1);
          const upTo = lastArrived === undefined ? 0 : sent.indexOf(lastArrived) + 1;
          expect(delivered).toEqual(sent.slice(0, upTo).map((event) => event.cursor));
        },
      ),
    );
  });

  it('a notification naming the last delivered event is delivered; one already delivered is a duplicate', () => {
    const sequencer = new EventSequencer('');
    expect(sequencer.classify({ cursor: 'a', previous_cursor: '' })).toBe('deliver');
    sequencer.delivered('a');
    expect(sequencer.classify({ cursor: 'a', previous_cursor: '' })).toBe('duplicate');
    expect(sequencer.classify({ cursor: 'c', previous_cursor: 'b' })).toBe('gap');
    expect(sequencer.last).toBe('a');
  });
});

describe('declaring event types', () => {
  it('EVT-2: refuses a declaration that is not usable, naming the event', () => {
    expect(() => buildCatalog({}, 'eventsServer')).toThrow(/at least one event type/);
    expect(() => buildCatalog({ '1bad': { description: 'x', payload: Type.Object({}) } }, 'eventsServer')).toThrow(
      /"1bad" must match/,
    );
    expect(() => buildCatalog({ ok: { description: '', payload: Type.Object({}) } }, 'eventsServer')).toThrow(
      /"ok" needs a description/,
    );
    expect(() => buildCatalog({ ok: { description: 'x', payload: Type.String() } }, 'eventsServer')).toThrow(
      /"ok": payload must be a TypeBox object schema/,
    );
    expect(() =>
      buildCatalog({ ok: { description: 'x', payload: Type.Object({}), filter: Type.Integer() } }, 'eventsServer'),
    ).toThrow(/"ok": filter must be/);
  });
});

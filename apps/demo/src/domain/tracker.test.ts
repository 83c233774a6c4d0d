import { ExtensionError, MemoryStore } from '@ext/core';
import { InvalidInputError, PermanentError } from '@ext/errors';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createTracker } from './tracker.js';
import { parseAssignee, parseStatus, parseTicketId, parseTitle, TICKET_ID_PATTERN } from './tracker-input.js';

const fixedClock = (): Date => new Date('2026-01-02T03:04:05.000Z');

function caught(operation: () => unknown): unknown {
  try {
    operation();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

async function rejected(operation: Promise<unknown>): Promise<ExtensionError> {
  const error: unknown = await operation.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  if (!ExtensionError.isInstance(error)) throw new Error(`expected an ExtensionError, got ${String(error)}`);
  return error;
}

describe('ticket id parser', () => {
  it('accepts T-<positive integer> and returns it trimmed', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }), fc.constantFrom('', ' ', '  '), (n, pad) => {
        expect(parseTicketId(`${pad}T-${n}${pad}`)).toBe(`T-${n}`);
      }),
    );
  });

  it('rejects everything else with invalid_input naming the field', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.integer(),
          fc.constant(null),
          fc.constant(undefined),
          fc.constantFrom('T-0', 't-1', 'T-01', 'T-', 'T-1.5', 'T--1'),
        ),
        (value) => {
          fc.pre(!(typeof value === 'string' && TICKET_ID_PATTERN.test(value.trim())));
          const error = caught(() => parseTicketId(value, 'ticket'));
          expect(InvalidInputError.isInstance(error)).toBe(true);
          const structured = (error as InvalidInputError).toStructured();
          expect(structured.category).toBe('invalid_input');
          expect(structured.details).toEqual({ field: 'ticket', pointer: '/ticket' });
        },
      ),
    );
  });
});

describe('field parsers', () => {
  it('trim titles and refuse empty or overlong ones, naming "title"', () => {
    expect(parseTitle('  Fix the build ')).toBe('Fix the build');
    for (const bad of ['', '   ', 'x'.repeat(201), 42]) {
      const error = caught(() => parseTitle(bad)) as InvalidInputError;
      expect(error.toStructured().details?.field).toBe('title');
    }
  });

  it('accept user names as assignee, refuse anything else naming "assignee"', () => {
    expect(parseAssignee(undefined)).toBeUndefined();
    expect(parseAssignee('alice@example.com')).toBe('alice@example.com');
    const error = caught(() => parseAssignee('Robert; DROP TABLE')) as InvalidInputError;
    expect(error.toStructured().details?.field).toBe('assignee');
  });

  it('accept only open and closed as status', () => {
    expect(parseStatus('open')).toBe('open');
    expect(parseStatus(undefined)).toBeUndefined();
    const error = caught(() => parseStatus('pending')) as InvalidInputError;
    expect(error.toStructured().details?.field).toBe('status');
  });
});

describe('tracker', () => {
  it('numbers tickets T-1, T-2, ... and keeps them in the store', async () => {
    const store = new MemoryStore();
    const tracker = createTracker(store, { now: fixedClock });
    const first = await tracker.create({ title: 'One', assignee: 'alice' });
    const second = await tracker.create({ title: 'Two' });
    expect(first).toEqual({
      id: 'T-1',
      title: 'One',
      status: 'open',
      assignee: 'alice',
      created_at: '2026-01-02T03:04:05.000Z',
    });
    expect(second.id).toBe('T-2');
    // A second tracker on the same store sees the same tickets: the store is the state.
    expect(await createTracker(store).get('T-1')).toEqual(first);
  });

  it('lists in creation order, filtered by status, across store pages', async () => {
    const tracker = createTracker(new MemoryStore());
    for (let index = 1; index <= 150; index++) await tracker.create({ title: `Ticket ${index}` });
    await tracker.close('T-2');
    await tracker.close('T-120');
    const all = await tracker.list();
    expect(all.map((ticket) => ticket.id)).toEqual(Array.from({ length: 150 }, (_, index) => `T-${index + 1}`));
    expect((await tracker.list({ status: 'closed' })).map((ticket) => ticket.id)).toEqual(['T-2', 'T-120']);
    expect(await tracker.list({ status: 'open' })).toHaveLength(148);
  });

  it('reports an unknown ticket as permanent RESOURCE_NOT_FOUND with a suggestion', async () => {
    const error = await rejected(createTracker(new MemoryStore()).get('T-9'));
    expect(PermanentError.isInstance(error)).toBe(true);
    expect(error.toStructured()).toMatchObject({
      code: 'RESOURCE_NOT_FOUND',
      category: 'permanent',
      suggestion: expect.stringContaining('list_tickets') as unknown,
      details: { id: 'T-9' },
    });
  });

  it('closes once; closing again is permanent TICKET_ALREADY_CLOSED', async () => {
    const tracker = createTracker(new MemoryStore(), { now: fixedClock });
    await tracker.create({ title: 'Close me' });
    const closedTicket = await tracker.close('T-1');
    expect(closedTicket).toMatchObject({ status: 'closed', closed_at: '2026-01-02T03:04:05.000Z' });
    const error = await rejected(tracker.close('T-1'));
    expect(error.toStructured()).toMatchObject({
      code: 'TICKET_ALREADY_CLOSED',
      category: 'permanent',
      details: { id: 'T-1' },
    });
  });

  it('lets exactly one of many concurrent closes succeed', async () => {
    const tracker = createTracker(new MemoryStore());
    await tracker.create({ title: 'Contended' });
    const outcomes = await Promise.allSettled(Array.from({ length: 8 }, () => tracker.close('T-1')));
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
    for (const outcome of outcomes) {
      if (outcome.status === 'rejected') expect((outcome.reason as ExtensionError).code).toBe('TICKET_ALREADY_CLOSED');
    }
  });

  it('validates before touching the store: a bad create leaves no ticket behind', async () => {
    const tracker = createTracker(new MemoryStore());
    await rejected(tracker.create({ title: '' }));
    await rejected(tracker.create({ title: 'ok', assignee: 'not a name' }));
    expect(await tracker.list()).toEqual([]);
    expect((await tracker.create({ title: 'first real one' })).id).toBe('T-1');
  });
});

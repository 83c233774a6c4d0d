import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { detailedTask, isOrphaned, newTaskRecord, transition, type TaskRecord } from './logic.js';
import { wireKeys } from './rounds.js';

const T0 = 1_000_000;

function running(lease?: { owner: string; until: number }): TaskRecord {
  const record = newTaskRecord({ taskId: 't', principal: 'p', tool: 'x', now: T0, ttlMs: 60_000, pollIntervalMs: 500 });
  return { ...record, executions: 1, ...(lease === undefined ? {} : { lease }) };
}

describe('leases (TASK-19, TASK-20)', () => {
  it('lets the holder renew, refuses another instance while the lease holds, and hands it over once it lapsed', () => {
    const held = running({ owner: 'a', until: T0 + 100 });
    expect(transition(held, { type: 'claim', owner: 'a', until: T0 + 200 }, T0 + 50).lease).toEqual({
      owner: 'a',
      until: T0 + 200,
    });
    expect(transition(held, { type: 'claim', owner: 'b', until: T0 + 200 }, T0 + 50)).toBe(held);
    const taken = transition(held, { type: 'claim', owner: 'b', until: T0 + 300, execution: true }, T0 + 100);
    expect(taken.lease).toEqual({ owner: 'b', until: T0 + 300 });
    expect(taken.executions).toBe(2);
  });

  it('counts a task as orphaned only while it runs and its lease has lapsed', () => {
    const held = running({ owner: 'a', until: T0 + 100 });
    expect(isOrphaned(held, T0 + 99)).toBe(false);
    expect(isOrphaned(held, T0 + 100)).toBe(true);
    expect(isOrphaned(running(), T0 + 10_000)).toBe(false);
    const done = transition(held, { type: 'complete', result: { content: [] } }, T0 + 10);
    expect(isOrphaned(done, T0 + 10_000)).toBe(false);
    expect(transition(done, { type: 'claim', owner: 'b', until: T0 + 20_000 }, T0 + 10_000)).toBe(done);
  });

  it('never lets two different owners both hold a live lease, whatever the order of claims (property)', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            owner: fc.constantFrom('a', 'b', 'c'),
            at: fc.nat(1000),
            length: fc.integer({ min: 1, max: 300 }),
          }),
        ),
        (claims) => {
          let record = running({ owner: 'a', until: T0 + 100 });
          const sorted = [...claims].sort((x, y) => x.at - y.at);
          for (const { owner, at, length } of sorted) {
            const before = record.lease!;
            const now = T0 + at;
            record = transition(record, { type: 'claim', owner, until: now + length }, now);
            // A live lease of someone else is never taken over.
            if (before.owner !== owner && before.until > now) expect(record.lease).toEqual(before);
          }
        },
      ),
    );
  });
});

describe('progress on tasks/get (TASK-18)', () => {
  it('shows the message and our _meta while running, and nothing of ours once terminal', () => {
    const record = transition(
      running({ owner: 'a', until: T0 + 100 }),
      { type: 'progress', message: 'row 5 of 10', progress: { done: 5, total: 10, estimatedRemainingSeconds: 3 } },
      T0 + 10,
    );
    expect(detailedTask(record)).toMatchObject({
      status: 'working',
      statusMessage: 'row 5 of 10',
      _meta: { 'io.github.mcp-ext/tasks': { done: 5, total: 10, progress: 0.5, estimated_remaining_seconds: 3 } },
    });
    const done = transition(record, { type: 'complete', result: { content: [] } }, T0 + 20);
    expect(detailedTask(done)).not.toHaveProperty('_meta');
  });

  it('keeps what a later report leaves out, and says when an execution resumed', () => {
    let record = running({ owner: 'a', until: T0 + 100 });
    record = transition(record, { type: 'progress', progress: { done: 1, total: 4 } }, T0 + 1);
    record = transition(
      record,
      { type: 'progress', message: 'half', progress: { partialResult: { rows: 2 } } },
      T0 + 2,
    );
    record = transition(record, { type: 'claim', owner: 'b', until: T0 + 500, execution: true }, T0 + 200);
    expect(detailedTask(record)._meta).toEqual({
      'io.github.mcp-ext/tasks': {
        done: 1,
        total: 4,
        progress: 0.25,
        partial_result: { rows: 2 },
        resumed: true,
        executions: 2,
      },
    });
  });
});

describe('input keys across rounds (TASK-10, TASK-17)', () => {
  it('keeps a new key, and gives a reused one a suffix no earlier round used (property)', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.constantFrom<string>('a', 'b', 'a~1', 'a~2', 'b~3', 'confirm', 'confirm~2'), {
          maxLength: 6,
        }),
        fc.array(fc.constantFrom<string>('a', 'b', 'a~1', 'a~2', 'a~3', 'b~3', 'confirm', 'confirm~1', 'confirm~2'), {
          maxLength: 12,
        }),
        fc.integer({ min: 1, max: 4 }),
        (keys, issuedKeys, round) => {
          const issued = new Set(issuedKeys);
          const mapped = wireKeys(keys, issued, round);
          const wires = [...mapped.values()];
          expect(new Set(wires).size).toBe(keys.length);
          for (const key of keys) {
            const wire = mapped.get(key)!;
            expect(issued.has(wire)).toBe(false);
            if (!issued.has(key)) expect(wire).toBe(key);
          }
        },
      ),
    );
  });
});

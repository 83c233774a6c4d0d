import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  createTaskResult,
  detailedTask,
  isExpired,
  isTerminal,
  newTaskRecord,
  transition,
  type TaskEvent,
  type TaskRecord,
} from './logic.js';

const seed = (): TaskRecord =>
  newTaskRecord({ taskId: 't', principal: 'p', tool: 'x', now: 1000, ttlMs: 5000, pollIntervalMs: 100 });

const keyArb = fc.constantFrom('a', 'b', 'c');
const eventArb: fc.Arbitrary<TaskEvent> = fc.oneof(
  fc
    .dictionary(keyArb, fc.constant({ method: 'elicitation/create' }))
    .map((requests): TaskEvent => ({ type: 'input', requests })),
  fc.dictionary(keyArb, fc.jsonValue()).map((responses): TaskEvent => ({ type: 'respond', responses })),
  fc.array(keyArb).map((keys): TaskEvent => ({ type: 'consume', keys })),
  fc.constant<TaskEvent>({ type: 'complete', result: { content: [] } }),
  fc.constant<TaskEvent>({ type: 'fail', error: { code: -32603, message: 'x' } }),
  fc.constant<TaskEvent>({ type: 'cancel' }),
);

describe('the task state machine', () => {
  it('TASK-5: no event moves a task out of a terminal status, whatever came before', () => {
    fc.assert(
      fc.property(fc.array(eventArb, { maxLength: 30 }), (events) => {
        let record = seed();
        let terminal: TaskRecord | undefined;
        events.forEach((event, index) => {
          record = transition(record, event, 2000 + index);
          if (terminal !== undefined) expect(record).toBe(terminal);
          else if (isTerminal(record.status)) terminal = record;
        });
      }),
    );
  });

  it('TASK-6: tasks/get carries exactly the field its status calls for', () => {
    fc.assert(
      fc.property(fc.array(eventArb, { maxLength: 20 }), (events) => {
        const record = events.reduce((current, event, index) => transition(current, event, 2000 + index), seed());
        const wire = detailedTask(record);
        expect('inputRequests' in wire).toBe(record.status === 'input_required');
        expect('result' in wire).toBe(record.status === 'completed');
        expect('error' in wire).toBe(record.status === 'failed');
        if (record.status === 'input_required') expect(Object.keys(wire.inputRequests ?? {}).length).toBeGreaterThan(0);
      }),
    );
  });

  it('TASK-10: an input key is never issued twice over the task lifetime', () => {
    const asked = transition(seed(), { type: 'input', requests: { a: { method: 'elicitation/create' } } }, 2000);
    const answered = transition(asked, { type: 'respond', responses: { a: { action: 'accept' } } }, 2001);
    expect(answered.status).toBe('working');
    const again = transition(answered, { type: 'input', requests: { a: { method: 'elicitation/create' } } }, 2002);
    expect(again).toBe(answered);
  });

  it('TASK-9: a partial answer keeps the task in input_required with only the keys still pending', () => {
    const asked = transition(
      seed(),
      { type: 'input', requests: { a: { method: 'elicitation/create' }, b: { method: 'elicitation/create' } } },
      2000,
    );
    const partial = transition(asked, { type: 'respond', responses: { a: 1, zz: 2 } }, 2001);
    expect(partial.status).toBe('input_required');
    expect(Object.keys(partial.inputRequests ?? {})).toEqual(['b']);
    expect(partial.inputResponses).toEqual({ a: 1 });
  });

  it('TASK-3: the CreateTaskResult is flat and carries no result, error or inputRequests', () => {
    const created = createTaskResult(seed());
    expect(created).toEqual({
      resultType: 'task',
      taskId: 't',
      status: 'working',
      createdAt: new Date(1000).toISOString(),
      lastUpdatedAt: new Date(1000).toISOString(),
      ttlMs: 5000,
      pollIntervalMs: 100,
    });
  });

  it('TASK-7: a task is gone once its TTL, counted from creation, has run out', () => {
    expect(isExpired(seed(), 5999)).toBe(false);
    expect(isExpired(seed(), 6000)).toBe(true);
  });
});

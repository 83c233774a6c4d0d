import { ExtensionError } from '@ext/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  claimCompensation,
  commit,
  compensationKey,
  completeStep,
  createTransaction,
  finishCompensation,
  finishRollback,
  nextCompensation,
  reserveStep,
  startRollback,
} from './machine.js';
import { isExpired, type RollbackTrigger, type TransactionRecord } from './record.js';
import { compensatedSteps, rollbackResult, statusView } from './results.js';

const LEASE = 1_000;
const TIMEOUT_S = 5;

function begin(now = 0): TransactionRecord {
  return createTransaction({ transaction_id: 'tx-1', principal: 'alice', timeout_seconds: TIMEOUT_S, now });
}

function codeOf(run: () => unknown): string | undefined {
  try {
    run();
    return undefined;
  } catch (error) {
    if (!ExtensionError.isInstance(error)) throw error;
    return error.code;
  }
}

function applied(record: TransactionRecord, tool: string, now: number): TransactionRecord {
  const reserved = reserveStep(record, { tool, arguments: { n: 1 }, now });
  return completeStep(
    reserved.record,
    reserved.stepId,
    { ok: true, result: { content: [] }, compensation: { description: `undo ${tool}` } },
    now,
  ).record;
}

/** Drives one rollback run to its end, compensating with `outcome(stepId)`. */
function rollBack(
  record: TransactionRecord,
  owner: string,
  now: number,
  outcome: (stepId: string) => boolean,
  trigger: RollbackTrigger = 'client',
) {
  let current = startRollback(record, { trigger, owner, now, leaseMs: LEASE }).record;
  const order: string[] = [];
  for (let step = nextCompensation(current, owner); step; step = nextCompensation(current, owner)) {
    current = claimCompensation(current, step.step_id, owner, now, LEASE);
    order.push(step.step_id);
    const ok = outcome(step.step_id);
    current = finishCompensation(
      current,
      step.step_id,
      ok ? { ok: true } : { ok: false, error: { code: 'DOWN', message: 'down', category: 'transient' } },
    );
  }
  return { record: finishRollback(current, owner, now), order };
}

describe('transaction state machine', () => {
  it('TXN-10: begin, steps, commit', () => {
    let record = applied(applied(begin(), 'a', 1), 'b', 2);
    record = commit(record, 3).record;
    expect(record.status).toBe('committed');
    expect(record.steps.map((step) => step.status)).toEqual(['applied', 'applied']);
    expect(commit(record, 4).changed).toBe(false);
  });

  it('TXN-13: rollback compensates newest first and reports every compensated step', () => {
    const record = applied(applied(applied(begin(), 'a', 1), 'b', 2), 'c', 3);
    const { record: done, order } = rollBack(record, 'o1', 4, () => true);
    expect(order).toEqual(['step-3', 'step-2', 'step-1']);
    expect(done.status).toBe('rolled_back');
    expect(rollbackResult(done).steps_compensated.map((step) => [step.step_id, step.status])).toEqual([
      ['step-3', 'compensated'],
      ['step-2', 'compensated'],
      ['step-1', 'compensated'],
    ]);
  });

  it('TXN-15: a failed compensation leaves the transaction partially rolled back, and a retry finishes it', () => {
    const record = applied(applied(begin(), 'a', 1), 'b', 2);
    const first = rollBack(record, 'o1', 3, (stepId) => stepId !== 'step-1');
    expect(first.record.status).toBe('partially_rolled_back');
    const failed = compensatedSteps(first.record).find((step) => step.step_id === 'step-1');
    expect(failed?.status).toBe('compensation_failed');
    expect(failed?.error?.code).toBe('DOWN');
    const retry = rollBack(first.record, 'o2', 4, () => true);
    expect(retry.order).toEqual(['step-1']);
    expect(retry.record.status).toBe('rolled_back');
    expect(retry.record.steps.find((step) => step.step_id === 'step-1')?.attempts).toBe(2);
  });

  it('TXN-12: a failed step is recorded and never compensated', () => {
    let record = applied(begin(), 'a', 1);
    const reserved = reserveStep(record, { tool: 'b', arguments: {}, now: 2 });
    record = completeStep(reserved.record, reserved.stepId, { ok: false }, 2).record;
    const { record: done, order } = rollBack(record, 'o1', 3, () => true);
    expect(order).toEqual(['step-1']);
    expect(done.status).toBe('rolled_back');
    expect(done.steps.map((step) => step.status)).toEqual(['compensated', 'failed']);
  });

  it('TXN-8: refuses what the state does not allow, with TRANSACTION_CONFLICT', () => {
    const rolledBack = rollBack(applied(begin(), 'a', 1), 'o1', 2, () => true).record;
    expect(codeOf(() => commit(rolledBack, 3))).toBe('TRANSACTION_CONFLICT');
    expect(codeOf(() => reserveStep(rolledBack, { tool: 'a', arguments: {}, now: 3 }))).toBe('TRANSACTION_CONFLICT');
    const committed = commit(applied(begin(), 'a', 1), 2).record;
    expect(codeOf(() => startRollback(committed, { trigger: 'client', owner: 'o', now: 3, leaseMs: LEASE }))).toBe(
      'TRANSACTION_CONFLICT',
    );
    expect(codeOf(() => reserveStep(committed, { tool: 'a', arguments: {}, now: 3 }))).toBe('TRANSACTION_CONFLICT');
    const withStep = applied(begin(), 'a', 1);
    expect(codeOf(() => reserveStep(withStep, { step_id: 'step-1', tool: 'a', arguments: {}, now: 2 }))).toBe(
      'TRANSACTION_CONFLICT',
    );
  });

  it('TXN-16: an idle transaction expires and a step or commit after it is refused', () => {
    const record = applied(begin(0), 'a', 1_000);
    expect(isExpired(record, 1_000 + TIMEOUT_S * 1000 - 1)).toBe(false);
    expect(isExpired(record, 1_000 + TIMEOUT_S * 1000)).toBe(true);
    expect(codeOf(() => commit(record, 1_000 + TIMEOUT_S * 1000))).toBe('TRANSACTION_CONFLICT');
    expect(startRollback(record, { trigger: 'timeout', owner: 'o', now: 1_000, leaseMs: LEASE }).started).toBe(false);
    const { record: done } = rollBack(record, 'o', 1_000 + TIMEOUT_S * 1000, () => true, 'timeout');
    expect(done.status).toBe('rolled_back');
    expect(done.rollback?.trigger).toBe('timeout');
  });

  it('TXN-17: a step still running past the timeout is reported with an unknown outcome', () => {
    const reserved = reserveStep(begin(0), { tool: 'a', arguments: {}, now: 0 });
    expect(
      codeOf(() => startRollback(reserved.record, { trigger: 'client', owner: 'o', now: 1, leaseMs: LEASE })),
    ).toBe('TRANSACTION_CONFLICT');
    const { record } = rollBack(reserved.record, 'o', TIMEOUT_S * 1000, () => true, 'timeout');
    expect(record.status).toBe('partially_rolled_back');
    expect(record.steps[0]?.error?.code).toBe('STEP_OUTCOME_UNKNOWN');
    // The step finishes after all, with an effect: it must be compensated late.
    const late = completeStep(
      record,
      reserved.stepId,
      { ok: true, result: {}, compensation: { description: 'undo' } },
      TIMEOUT_S * 1000 + 1,
    );
    expect(late.late).toBe(true);
    const { record: settled, order } = rollBack(late.record, 'o2', TIMEOUT_S * 1000 + 2, () => true, 'late_step');
    expect(order).toEqual([reserved.stepId]);
    expect(settled.status).toBe('rolled_back');
  });

  it('TXN-14: a dead run is taken over only after its lease, and its claimed compensation re-runs', () => {
    let record = applied(applied(begin(), 'a', 1), 'b', 2);
    record = startRollback(record, { trigger: 'client', owner: 'dead', now: 10, leaseMs: LEASE }).record;
    record = claimCompensation(record, 'step-2', 'dead', 10, LEASE);
    expect(codeOf(() => startRollback(record, { trigger: 'client', owner: 'next', now: 11, leaseMs: LEASE }))).toBe(
      'TRANSACTION_CONFLICT',
    );
    expect(startRollback(record, { trigger: 'timeout', owner: 'next', now: 11, leaseMs: LEASE }).started).toBe(false);
    const takeover = startRollback(record, { trigger: 'timeout', owner: 'next', now: 10 + LEASE, leaseMs: LEASE });
    expect(takeover.started).toBe(true);
    expect(nextCompensation(takeover.record, 'next')?.step_id).toBe('step-2');
  });

  it('TXN-18: compensation keys are stable, distinct per step and principal, and within the key alphabet', () => {
    const key = compensationKey('alice', 'tx-1', 'step-1');
    expect(key).toBe(compensationKey('alice', 'tx-1', 'step-1'));
    expect(key).not.toBe(compensationKey('bob', 'tx-1', 'step-1'));
    expect(key).not.toBe(compensationKey('alice', 'tx-1', 'step-2'));
    expect(key).toMatch(/^[a-zA-Z0-9_\-:.]{1,128}$/);
  });

  it('status shows expiry only while active', () => {
    const view = statusView(begin(0));
    expect(view.expires_at).toBe(new Date(TIMEOUT_S * 1000).toISOString());
    expect(statusView(commit(begin(0), 1).record).expires_at).toBeUndefined();
  });
});

/** `holder` stands for whichever run currently holds the rollback lease. */
type Who = number | 'holder';

type Op =
  | { kind: 'reserve'; tool: number }
  | { kind: 'complete'; pick: number; ok: boolean }
  | { kind: 'commit' }
  | { kind: 'start'; owner: Who; trigger: RollbackTrigger }
  | { kind: 'claim'; owner: Who }
  | { kind: 'finish'; owner: Who; pick: number; ok: boolean }
  | { kind: 'end'; owner: Who }
  | { kind: 'advance'; ms: number };

const who: fc.Arbitrary<Who> = fc.oneof(
  { arbitrary: fc.constant('holder' as const), weight: 3 },
  { arbitrary: fc.nat(2), weight: 1 },
);

const op: fc.Arbitrary<Op> = fc.oneof(
  { arbitrary: fc.record({ kind: fc.constant('reserve' as const), tool: fc.nat(2) }), weight: 4 },
  { arbitrary: fc.record({ kind: fc.constant('complete' as const), pick: fc.nat(5), ok: fc.boolean() }), weight: 8 },
  { arbitrary: fc.record({ kind: fc.constant('commit' as const) }), weight: 1 },
  {
    arbitrary: fc.record({
      kind: fc.constant('start' as const),
      owner: who,
      trigger: fc.constantFrom<RollbackTrigger>('client', 'timeout', 'late_step'),
    }),
    weight: 6,
  },
  { arbitrary: fc.record({ kind: fc.constant('claim' as const), owner: who }), weight: 10 },
  {
    arbitrary: fc.record({ kind: fc.constant('finish' as const), owner: who, pick: fc.nat(5), ok: fc.boolean() }),
    weight: 10,
  },
  { arbitrary: fc.record({ kind: fc.constant('end' as const), owner: who }), weight: 5 },
  {
    arbitrary: fc.record({ kind: fc.constant('advance' as const), ms: fc.constantFrom(10, 100, 1_000, 5_000) }),
    weight: 3,
  },
);

describe('transaction state machine under random interleavings', () => {
  it(
    'TXN-13/TXN-14: never compensates a step twice, never leaves a committed step compensated, refuses with TRANSACTION_CONFLICT',
    { timeout: 60_000 },
    () => {
      fc.assert(
        fc.property(fc.array(op, { minLength: 5, maxLength: 80, size: 'large' }), (ops) => {
          let record = begin(0);
          let now = 0;
          const runs = new Map<string, number>();
          const allowed = new Map<string, number>();
          const inHand = new Map<string, Set<string>>();
          const everCompensated = new Set<string>();
          let committed = false;
          const owner = (index: Who): string =>
            index === 'holder' ? (record.rollback?.owner ?? 'owner-0') : `owner-${index}`;
          const attempt = (run: () => TransactionRecord): void => {
            try {
              record = run();
            } catch (error) {
              if (!ExtensionError.isInstance(error)) throw error;
              expect(['TRANSACTION_CONFLICT']).toContain(error.code);
            }
          };
          for (const step of ops) {
            const before = record;
            switch (step.kind) {
              case 'reserve':
                attempt(() => reserveStep(record, { tool: `tool-${step.tool}`, arguments: {}, now }).record);
                break;
              case 'complete': {
                const running = record.steps.filter(
                  (candidate) => candidate.status === 'running' || candidate.outcome_unknown,
                );
                const target = running[step.pick % Math.max(1, running.length)];
                if (!target) break;
                attempt(
                  () =>
                    completeStep(
                      record,
                      target.step_id,
                      step.ok ? { ok: true, result: {}, compensation: { description: 'undo' } } : { ok: false },
                      now,
                    ).record,
                );
                break;
              }
              case 'commit':
                attempt(() => commit(record, now).record);
                if (['rolling_back', 'rolled_back', 'partially_rolled_back'].includes(before.status)) {
                  expect(codeOf(() => commit(before, now))).toBe('TRANSACTION_CONFLICT');
                }
                break;
              case 'start': {
                attempt(() => {
                  const outcome = startRollback(record, {
                    trigger: step.trigger,
                    owner: owner(step.owner),
                    now,
                    leaseMs: LEASE,
                  });
                  const previous = before.rollback;
                  if (
                    outcome.started &&
                    before.status === 'rolling_back' &&
                    previous &&
                    previous.owner !== owner(step.owner)
                  ) {
                    // A live run is never taken over.
                    expect(previous.lease_until).toBeLessThanOrEqual(now);
                    for (const stepRecord of before.steps) {
                      if (stepRecord.status === 'compensating')
                        allowed.set(stepRecord.step_id, (allowed.get(stepRecord.step_id) ?? 0) + 1);
                    }
                  }
                  if (outcome.started) {
                    for (const stepRecord of before.steps) {
                      const after = outcome.record.steps.find((s) => s.step_id === stepRecord.step_id);
                      if (stepRecord.status === 'compensation_failed' && after?.status === 'applied') {
                        allowed.set(stepRecord.step_id, (allowed.get(stepRecord.step_id) ?? 0) + 1);
                      }
                    }
                  }
                  return outcome.record;
                });
                break;
              }
              case 'claim': {
                const next = nextCompensation(record, owner(step.owner));
                if (!next) break;
                attempt(() => {
                  const claimed = claimCompensation(record, next.step_id, owner(step.owner), now, LEASE);
                  expect(['applied', 'compensating']).toContain(next.status);
                  runs.set(next.step_id, (runs.get(next.step_id) ?? 0) + 1);
                  const held = inHand.get(owner(step.owner)) ?? new Set<string>();
                  held.add(next.step_id);
                  inHand.set(owner(step.owner), held);
                  return claimed;
                });
                break;
              }
              case 'finish': {
                const held = [...(inHand.get(owner(step.owner)) ?? [])];
                const stepId = held[step.pick % Math.max(1, held.length)];
                if (stepId === undefined) break;
                inHand.get(owner(step.owner))?.delete(stepId);
                attempt(() =>
                  finishCompensation(
                    record,
                    stepId,
                    step.ok
                      ? { ok: true }
                      : { ok: false, error: { code: 'DOWN', message: 'down', category: 'transient' } },
                  ),
                );
                break;
              }
              case 'end':
                attempt(() => finishRollback(record, owner(step.owner), now));
                break;
              case 'advance':
                now += step.ms;
                break;
            }

            // Invariants after every operation.
            for (const [stepId, count] of runs) expect(count).toBeLessThanOrEqual(1 + (allowed.get(stepId) ?? 0));
            for (const stepRecord of record.steps) {
              if (everCompensated.has(stepRecord.step_id)) expect(stepRecord.status).toBe('compensated');
              if (stepRecord.status === 'compensated') everCompensated.add(stepRecord.step_id);
            }
            if (committed) expect(record.status).toBe('committed');
            if (record.status === 'committed') {
              committed = true;
              for (const stepRecord of record.steps) {
                expect(['applied', 'failed']).toContain(stepRecord.status);
                expect(stepRecord.attempts).toBe(0);
              }
            }
            if (record.status === 'active') {
              for (const stepRecord of record.steps)
                expect(['running', 'applied', 'failed']).toContain(stepRecord.status);
            }
            if (record.status === 'rolled_back') {
              for (const stepRecord of record.steps) expect(['failed', 'compensated']).toContain(stepRecord.status);
            }
            if (record.status === 'partially_rolled_back') {
              // Something is left undone: a failed compensation, or a late step waiting for its own.
              expect(
                record.steps.some((stepRecord) => ['compensation_failed', 'applied'].includes(stepRecord.status)),
              ).toBe(true);
              for (const stepRecord of record.steps)
                expect(['running', 'compensating']).not.toContain(stepRecord.status);
            }
          }
        }),
        { numRuns: 600 },
      );
    },
  );
});

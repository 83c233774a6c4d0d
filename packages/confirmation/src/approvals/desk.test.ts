/**
 * CONF-22 to CONF-26 on the desk itself: a request is bound to its caller and
 * call, decided exactly once whatever races, expires when nobody decides,
 * is claimed by one execution, and every transition is audited.
 */
import { MemoryStore } from '@ext/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readConfirmationAudit } from '../audit.js';
import { approvalDesk } from './desk.js';
import type { ApprovalRequestInput } from './record.js';

function input(overrides: Partial<ApprovalRequestInput> = {}): ApprovalRequestInput {
  return {
    principal: 'agent-1',
    tool: 'write_file',
    argsDigest: 'digest-a',
    toolDigest: 'tool-1',
    riskLevel: 'destructive',
    message: 'Write a.txt',
    arguments: { path: 'a.txt' },
    ...overrides,
  };
}

describe('approval requests (CONF-22, CONF-23)', () => {
  it('attach a retry of the same call by the same caller, and nobody else', async () => {
    const desk = approvalDesk({ store: new MemoryStore() });
    const first = await desk.open(input());
    const retry = await desk.open(input());
    expect(first.created).toBe(true);
    expect(retry).toMatchObject({ created: false, record: { id: first.record.id } });
    const otherCaller = await desk.open(input({ principal: 'agent-2' }));
    const otherArgs = await desk.open(input({ argsDigest: 'digest-b' }));
    expect(otherCaller.created).toBe(true);
    expect(otherArgs.created).toBe(true);
    expect(new Set([first.record.id, otherCaller.record.id, otherArgs.record.id]).size).toBe(3);
    expect((await desk.get(first.record.id))?.trail.map((entry) => entry.event)).toEqual(['requested', 'attached']);
  });

  it('open one request for concurrent identical calls', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 2, max: 12 }), async (calls) => {
        const desk = approvalDesk({ store: new MemoryStore() });
        const opened = await Promise.all(Array.from({ length: calls }, () => desk.open(input())));
        expect(new Set(opened.map((entry) => entry.record.id)).size).toBe(1);
        expect(opened.filter((entry) => entry.created)).toHaveLength(1);
        expect(await desk.list()).toHaveLength(1);
      }),
      { numRuns: 25 },
    );
  });

  it('are decided exactly once, whatever decisions race', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.boolean(), { minLength: 2, maxLength: 10 }), async (votes) => {
        const store = new MemoryStore();
        // Two instances on one store, as two gateways on one Redis.
        const desks = [approvalDesk({ store }), approvalDesk({ store })];
        const { record } = await desks[0]!.open(input());
        const outcomes = await Promise.allSettled(
          votes.map((approve, index) => desks[index % 2]!.decide(record.id, { approve, by: `op-${String(index)}` })),
        );
        const won = outcomes.filter((outcome) => outcome.status === 'fulfilled');
        expect(won).toHaveLength(1);
        for (const outcome of outcomes) {
          if (outcome.status === 'rejected') expect(outcome.reason).toMatchObject({ code: 'APPROVAL_ALREADY_DECIDED' });
        }
        const stored = await desks[1]!.get(record.id);
        const winner = (won[0] as PromiseFulfilledResult<{ decided_by?: string }>).value;
        expect(stored?.decided_by).toBe(winner.decided_by);
      }),
      { numRuns: 25 },
    );
  });

  it('expire when nobody decides in time, and refuse a late decision', async () => {
    let now = 1_000_000;
    const store = new MemoryStore();
    const desk = approvalDesk({ store, ttlSeconds: 60, now: () => now });
    const { record } = await desk.open(input());
    now += 60_000;
    await expect(desk.decide(record.id, { approve: true, by: 'op' })).rejects.toMatchObject({
      code: 'APPROVAL_EXPIRED',
    });
    expect(await desk.get(record.id)).toMatchObject({ state: 'expired' });
    const events = (await readConfirmationAudit(store)).map(({ entry }) => entry.event);
    expect(events).toEqual(['approval_requested', 'approval_expired']);
  });

  it('are claimed by one execution only, and only once approved', async () => {
    const store = new MemoryStore();
    const desk = approvalDesk({ store });
    const { record } = await desk.open(input());
    expect(await desk.claim(record.id)).toBeUndefined();
    await desk.decide(record.id, { approve: true, by: 'op', reason: 'fine' });
    const claims = await Promise.all([desk.claim(record.id), desk.claim(record.id), desk.claim(record.id)]);
    expect(claims.filter((claim) => claim !== undefined)).toHaveLength(1);
    await desk.finish(record.id, 'executed');
    await desk.finish(record.id, 'execution_error');
    expect(await desk.get(record.id)).toMatchObject({ outcome: 'executed', reason: 'fine' });
    // A used request is closed: the same call again opens a new one.
    expect((await desk.open(input())).created).toBe(true);
    const events = (await readConfirmationAudit(store)).map(({ entry }) => entry.event);
    expect(events).toEqual([
      'approval_requested',
      'approval_approved',
      'approval_claimed',
      'approval_executed',
      'approval_requested',
    ]);
  });

  it('wake a call waiting on one instance when another decides', async () => {
    const store = new MemoryStore();
    const held = approvalDesk({ store });
    const page = approvalDesk({ store });
    const { record } = await held.open(input());
    const waiting = held.wait(record.id, { timeoutMs: 10_000 });
    const seen: string[] = [];
    const stop = await page.watch((changed) => seen.push(changed.state));
    await page.decide(record.id, { approve: false, by: 'op', reason: 'no' });
    expect(await waiting).toMatchObject({ state: 'denied', reason: 'no' });
    await stop();
    expect(seen).toContain('denied');
  });

  it('list newest first, by state, and refuse unknown ids', async () => {
    const desk = approvalDesk({ store: new MemoryStore() });
    const a = await desk.open(input({ argsDigest: 'a' }));
    const b = await desk.open(input({ argsDigest: 'b' }));
    await desk.decide(a.record.id, { approve: true, by: 'op' });
    expect((await desk.list()).map((record) => record.id)).toEqual([b.record.id, a.record.id]);
    expect((await desk.list({ state: 'pending' })).map((record) => record.id)).toEqual([b.record.id]);
    await expect(desk.decide('nope', { approve: true, by: 'op' })).rejects.toMatchObject({
      code: 'APPROVAL_NOT_FOUND',
    });
  });
});

// Approval requests counted (GW-39): opened and decided where it happens, pending on the store every instance shares.
import { MemoryStore } from '@ext/core';
import { silentLogger } from '@ext/core/kit';
import { approvalDesk, type ApprovalRequestInput } from '@ext/confirmation/approvals';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { approvalsBackend, PendingApprovals, watchPendingApprovals } from './approvals.js';
import { gatewayRecorder } from './recorder.js';
import { exposition, gatewayMetrics } from './registry.js';
import { readScrape } from './testing.js';
import { UpstreamStates } from './upstream-states.js';

function held(tool: string, argsDigest: string): ApprovalRequestInput {
  return {
    principal: 'agent-1',
    tool,
    argsDigest,
    toolDigest: 'tool-1',
    riskLevel: 'destructive',
    message: `Run ${tool}`,
    arguments: {},
  };
}

const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
});

/** An instance of the gateway as far as approvals go: its desk on `store`, its series, its watch. */
async function instance(store: MemoryStore) {
  const states = new UpstreamStates();
  const pending = new PendingApprovals();
  const metrics = gatewayMetrics({ states, upstreams: () => [], pendingApprovals: () => pending.count(Date.now()) });
  const recorder = gatewayRecorder(states, metrics.series);
  const desk = approvalDesk({ store, backends: [approvalsBackend(recorder)] });
  stops.push(await watchPendingApprovals(desk, pending, silentLogger));
  return { desk, scrape: async () => readScrape(await exposition(metrics)) };
}

describe('approval requests in the metrics', () => {
  it('counts each request and decision on the instance where it happened, and the pending ones on every instance', async () => {
    const store = new MemoryStore();
    const one = await instance(store);
    const other = await instance(store);
    const first = await one.desk.open(held('write_file', 'a'));
    await one.desk.open(held('write_file', 'b'));
    await one.desk.open(held('delete_file', 'c'));
    await other.desk.decide(first.record.id, { approve: false, by: 'ops' });
    await one.desk.drain();
    await other.desk.drain();

    const pendingOn = async (side: typeof one) => (await side.scrape()).value('mcp_gateway_approvals_pending', {});
    await vi.waitFor(async () => {
      expect([await pendingOn(one), await pendingOn(other)]).toEqual([2, 2]);
    });
    const mine = await one.scrape();
    const theirs = await other.scrape();
    expect(mine.value('mcp_gateway_approvals_requested_total', { gen_ai_tool_name: 'write_file' })).toBe(2);
    expect(mine.value('mcp_gateway_approvals_requested_total', { gen_ai_tool_name: 'delete_file' })).toBe(1);
    expect(mine.family('mcp_gateway_approvals_decided_total').samples).toEqual([]);
    expect(theirs.family('mcp_gateway_approvals_requested_total').samples).toEqual([]);
    expect(
      theirs.value('mcp_gateway_approvals_decided_total', { gen_ai_tool_name: 'write_file', decision: 'denied' }),
    ).toBe(1);
  });

  it('an instance started later reads the requests already pending', async () => {
    const store = new MemoryStore();
    const early = await instance(store);
    await early.desk.open(held('write_file', 'a'));
    const late = await instance(store);
    expect((await late.scrape()).value('mcp_gateway_approvals_pending', {})).toBe(1);
  });
});

describe('PendingApprovals', () => {
  const record = (id: string, state: 'pending' | 'approved', expires_at = 2_000) => ({ id, state, expires_at });

  it('forgets a request once decided, and once past its expiry', () => {
    const pending = new PendingApprovals();
    pending.seen(record('a', 'pending'));
    pending.seen(record('b', 'pending', 1_000));
    pending.seen(record('c', 'pending'));
    pending.seen(record('c', 'approved'));
    expect(pending.count(500)).toBe(2);
    expect(pending.count(1_500)).toBe(1);
  });

  it('a stale read of the pending ones does not bring back one decided meanwhile', async () => {
    const pending = new PendingApprovals();
    await pending.seeding(() => {
      // Heard while the read was under way: `a` was decided after the read had seen it pending.
      pending.seen(record('a', 'approved'));
      return Promise.resolve([record('a', 'pending'), record('b', 'pending')]);
    });
    expect(pending.count(0)).toBe(1);
    // Once the read is done, a new request is counted as usual.
    pending.seen(record('c', 'pending'));
    expect(pending.count(0)).toBe(2);
  });
});

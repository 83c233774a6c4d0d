import {
  MemoryStore,
  WireError,
  type AuthInfo,
  type ServerAttachment,
  type ServerExtension,
  type Store,
  type ToolResult,
} from '@ext/core';
import { silentLogger } from '@ext/core/kit';

type RunTool = NonNullable<ServerAttachment['runTool']>;
import { createTestPair, seedValidators, TEST_LINES, type TestLine, type TestPair } from '@ext/core/testing';
import { callWithConfirmation, confirmationClient } from '@ext/confirmation/client';
import { confirmationServer } from '@ext/confirmation/server';
import { errorsClient, getStructuredError } from '@ext/errors/client';
import { errorsServer } from '@ext/errors/server';
import { afterEach, describe, expect, it } from 'vitest';
import { BudgetExceededError, costClient, costGuard, getCostInfo, getCostStatus, getToolCost } from './client.js';
import { COST_ID } from './schema.js';
import { getCostSettings } from './settings.js';
import { costServer } from './server.js';
import { Clock, DECLARATIONS, Fixture, textOf } from './test-fixtures.js';

const open: TestPair[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((pair) => pair.close()));
});

interface PairOptions {
  readonly clock?: Clock;
  readonly client?: boolean;
  readonly errors?: boolean;
  readonly confirmation?: boolean;
  readonly store?: Store;
  readonly authInfo?: AuthInfo;
  readonly server?: boolean;
}

async function pair(line: TestLine, fixture: Fixture, options: PairOptions = {}): Promise<TestPair> {
  const errors = options.errors ?? true;
  const clock = options.clock ?? new Clock();
  const created = await createTestPair({
    line,
    serverExtensions: [
      errors && errorsServer(),
      options.server !== false && costServer({ now: clock.read }),
      options.confirmation === true && confirmationServer(),
    ],
    clientExtensions: [
      errors && errorsClient(),
      options.client !== false && costClient(),
      options.confirmation === true && confirmationClient(),
    ],
    setup: fixture.setup,
    serverOptions: { store: options.store ?? new MemoryStore(), logger: silentLogger },
    clientOptions: { logger: silentLogger },
    authInfo: options.authInfo,
  });
  open.push(created);
  return created;
}

const seeds = seedValidators();
const errorSchema = seeds.check('error');

/** The structured error of a refused call, checked against the seed error schema. */
function refusalOf(result: ToolResult): ReturnType<typeof getStructuredError> {
  expect(result.isError).toBe(true);
  const error = getStructuredError(result);
  expect(errorSchema(error)).toEqual({ valid: true, errors: '' });
  return error;
}

describe.each(TEST_LINES)('cost end to end on %s', (line) => {
  it("COST-1 COST-2: advertises its settings and each declared tool's cost, latency and limits", async () => {
    const { client } = await pair(line, new Fixture());
    expect(getCostSettings(client.serverExtensions())).toEqual({ version: '1.0' });
    const tools = new Map((await client.listTools()).map((tool) => [tool.name, tool]));
    expect(getToolCost(tools.get('export_analytics')!)).toEqual({
      cost: { category: 'metered', estimated_units: 5, unit_label: 'API calls' },
      latency: 'minutes',
      quota: { limit: 12, window_seconds: 86_400, window: 'fixed' },
    });
    expect(getToolCost(tools.get('search')!)).toEqual({
      cost: { category: 'free', estimated_units: 1 },
      latency: 'instant',
      rate_limits: { requests_per_minute: 3 },
    });
    expect(tools.get('lookup')?._meta?.[COST_ID]).toBeUndefined();
    const costInfo = seeds.check('service-manifest', 'CostInfo');
    const rateLimits = seeds.check('service-manifest', 'RateLimits');
    for (const tool of tools.values()) {
      const meta = getToolCost(tool);
      if (meta === undefined) continue;
      expect(costInfo(meta.cost).valid).toBe(true);
      if (meta.rate_limits !== undefined) expect(rateLimits(meta.rate_limits).valid).toBe(true);
    }
  });

  it('COST-6 COST-8 COST-12: counts units against the quota, reports what is left, then refuses with retry_after_seconds', async () => {
    const fixture = new Fixture();
    const { client } = await pair(line, fixture);
    const first = await client.callTool('export_analytics', { range: 'q1' });
    expect(textOf(first)).toBe('exported q1');
    expect(getCostInfo(first)).toEqual({
      units_used: 5,
      estimated_units: 5,
      unit_label: 'API calls',
      quota: { limit: 12, used: 5, remaining: 7, resets_at: '2026-03-16T00:00:00.000Z', window_seconds: 86_400 },
    });
    const second = await client.callTool('export_analytics', { range: 'q2' });
    expect(getCostInfo(second)?.quota).toMatchObject({ used: 10, remaining: 2 });
    const refused = await client.callTool('export_analytics', { range: 'q3' });
    expect(refusalOf(refused)).toMatchObject({
      code: 'QUOTA_EXHAUSTED',
      category: 'rate_limited',
      // 11 h 59 min 40 s until midnight UTC.
      retry_after_seconds: 43_180,
      user_actionable: true,
      details: {
        tool: 'export_analytics',
        limit: 12,
        used: 10,
        requested_units: 5,
        resets_at: '2026-03-16T00:00:00.000Z',
      },
    });
    expect(fixture.count('export_analytics')).toBe(2);
  });

  it('COST-5 COST-9: a refused call holds nothing, and the next window starts afresh', async () => {
    const fixture = new Fixture();
    const clock = new Clock();
    const { client } = await pair(line, fixture, { clock });
    for (const range of ['a', 'b', 'c', 'd']) await client.callTool('export_analytics', { range });
    expect(fixture.count('export_analytics')).toBe(2);
    expect((await getCostStatus(client, ['export_analytics']))?.tools[0]?.quota).toMatchObject({
      used: 10,
      remaining: 2,
    });
    clock.advance(43_180_000 - 1);
    expect(getStructuredError(await client.callTool('export_analytics', { range: 'e' }))).toMatchObject({
      code: 'QUOTA_EXHAUSTED',
      retry_after_seconds: 1,
    });
    clock.advance(1);
    const renewed = await client.callTool('export_analytics', { range: 'f' });
    expect(getCostInfo(renewed)?.quota).toEqual({
      limit: 12,
      used: 5,
      remaining: 7,
      resets_at: '2026-03-17T00:00:00.000Z',
      window_seconds: 86_400,
    });
  });

  it('COST-7 COST-8: a rate limit refuses the call past it until its window ends, free tools included', async () => {
    const fixture = new Fixture();
    const clock = new Clock();
    const { client } = await pair(line, fixture, { clock });
    for (let i = 0; i < 3; i += 1) {
      const result = await client.callTool('search', { q: String(i) });
      expect(getCostInfo(result)?.rate_limits?.requests_per_minute).toEqual({
        limit: 3,
        remaining: 2 - i,
        resets_at: '2026-03-15T12:01:00.000Z',
      });
    }
    expect(refusalOf(await client.callTool('search', { q: 'x' }))).toMatchObject({
      code: 'RATE_LIMIT_EXCEEDED',
      category: 'rate_limited',
      retry_after_seconds: 40,
      details: { tool: 'search', limit: 3, window: 'requests_per_minute', window_seconds: 60 },
    });
    expect(fixture.count('search')).toBe(3);
    clock.advance(40_000);
    expect(textOf(await client.callTool('search', { q: 'y' }))).toBe('found y');
  });

  it('COST-11: the handler reports the units it used; a failure is charged only what it reported', async () => {
    const fixture = new Fixture();
    const { client } = await pair(line, fixture);
    const three = await client.callTool('render', { pages: 3 });
    expect(getCostInfo(three)).toMatchObject({
      units_used: 3,
      estimated_units: 2,
      quota: { used: 3, remaining: 7, resets_at: '2026-03-15T13:00:00.000Z' },
    });
    const estimated = await client.callTool('render', { pages: 9, report: false });
    expect(getCostInfo(estimated)).toMatchObject({ units_used: 2, quota: { used: 5 } });
    const softFailure = await client.callTool('render', { pages: 4, report: false, fail: 'result' });
    expect(softFailure.isError).toBe(true);
    expect(getCostInfo(softFailure)).toMatchObject({ units_used: 0, quota: { used: 5 } });
    const reportedFailure = await client.callTool('render', { pages: 1, fail: 'result' });
    expect(getCostInfo(reportedFailure)).toMatchObject({ units_used: 1, quota: { used: 6 } });
    const thrown = await client.callTool('render', { pages: 2, report: false, fail: 'throw' });
    expect(getStructuredError(thrown)).toBeDefined();
    expect((await getCostStatus(client, ['render']))?.tools[0]?.quota).toMatchObject({ used: 6, remaining: 4 });
    expect(fixture.count('render')).toBe(5);
  });

  it('COST-11: a call that uses more than estimated overdraws the quota, and the next call waits for the reset', async () => {
    const { client } = await pair(line, new Fixture());
    expect(getCostInfo(await client.callTool('render', { pages: 12 }))).toMatchObject({
      units_used: 12,
      quota: { used: 12, remaining: 0 },
    });
    expect(getStructuredError(await client.callTool('render', { pages: 1 }))).toMatchObject({
      code: 'QUOTA_EXHAUSTED',
      retry_after_seconds: 3580,
    });
  });

  it('COST-5: tools of one pool share its quota', async () => {
    const fixture = new Fixture();
    const { client } = await pair(line, fixture);
    await client.callTool('send_sms', { to: 'a' });
    await client.callTool('send_email', { to: 'b' });
    await client.callTool('send_sms', { to: 'c' });
    expect(getCostInfo(await client.callTool('send_email', { to: 'd' }))?.quota).toMatchObject({
      pool: 'messages',
      used: 4,
      remaining: 0,
    });
    expect(getStructuredError(await client.callTool('send_sms', { to: 'e' }))).toMatchObject({
      code: 'QUOTA_EXHAUSTED',
      details: { pool: 'messages' },
    });
    expect(fixture.count('send_sms') + fixture.count('send_email')).toBe(4);
  });

  it('COST-5: quotas are per principal, and shared by every server instance on one store', async () => {
    const store = new MemoryStore();
    const clock = new Clock();
    const fixture = new Fixture();
    const alice = await pair(line, fixture, { store, clock, authInfo: { clientId: 'alice' } });
    await alice.client.callTool('export_analytics', { range: '1' });
    await alice.client.callTool('export_analytics', { range: '2' });
    const aliceAgain = await pair(line, fixture, { store, clock, authInfo: { clientId: 'alice' } });
    expect(getStructuredError(await aliceAgain.client.callTool('export_analytics', { range: '3' }))).toMatchObject({
      code: 'QUOTA_EXHAUSTED',
    });
    const bob = await pair(line, fixture, { store, clock, authInfo: { clientId: 'bob' } });
    expect(getCostInfo(await bob.client.callTool('export_analytics', { range: '4' }))?.quota).toMatchObject({
      used: 5,
      remaining: 7,
    });
  });

  it('COST-4 COST-12: a client without the extension is held to the same limits, and its results carry no cost entry', async () => {
    const fixture = new Fixture();
    const { client } = await pair(line, fixture, { client: false });
    const first = await client.callTool('export_analytics', { range: 'a' });
    expect(textOf(first)).toBe('exported a');
    expect(first._meta?.[COST_ID]).toBeUndefined();
    await client.callTool('export_analytics', { range: 'b' });
    expect(refusalOf(await client.callTool('export_analytics', { range: 'c' }))).toMatchObject({
      code: 'QUOTA_EXHAUSTED',
    });
    expect(fixture.count('export_analytics')).toBe(2);
  });

  it('COST-8: without @ext/errors a refusal is still a tool error that says why', async () => {
    const fixture = new Fixture();
    const { client } = await pair(line, fixture, { errors: false });
    for (let i = 0; i < 3; i += 1) await client.callTool('search', { q: String(i) });
    const refused = await client.callTool('search', { q: 'x' });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toContain('Too many calls of "search"');
    expect(fixture.count('search')).toBe(3);
  });

  it('COST-12: a server without the extension is called plainly', async () => {
    const fixture = new Fixture();
    const { client } = await pair(line, fixture, { server: false });
    expect(getCostSettings(client.serverExtensions())).toBeUndefined();
    for (let i = 0; i < 4; i += 1) expect(textOf(await client.callTool('search', { q: String(i) }))).toBe(`found ${i}`);
    expect(await getCostStatus(client)).toBeUndefined();
  });

  it('COST-13: requires_approval without a confirmation gate is refused (fail closed) and charges nothing', async () => {
    const fixture = new Fixture();
    const { client } = await pair(line, fixture);
    const refused = await client.callTool('wire_funds', { amount: 10 });
    expect(refusalOf(refused)).toMatchObject({
      code: 'APPROVAL_REQUIRED',
      category: 'permanent',
      details: { requested_by: ['@ext/cost'] },
    });
    expect(fixture.count('wire_funds')).toBe(0);
    expect((await getCostStatus(client, ['wire_funds']))?.tools[0]?.quota).toMatchObject({ used: 0, remaining: 5 });
  });

  it('COST-10 COST-13: with @ext/confirmation composed, a person approves; declined or pending calls charge nothing', async () => {
    const fixture = new Fixture();
    const { client } = await pair(line, fixture, { confirmation: true });
    const asked: string[] = [];
    const declined = await callWithConfirmation(
      client,
      'wire_funds',
      { amount: 10 },
      {
        confirm: (request) => {
          if (request.kind === 'call') asked.push(request.message);
          return Promise.resolve(false);
        },
      },
    );
    expect(declined.isError).toBe(true);
    expect(asked).toEqual(['"wire_funds" is billed: each call uses about 1 of your transfers.']);
    expect(fixture.count('wire_funds')).toBe(0);
    // The held call reports the quota it would draw on, and used nothing.
    const held = await client.callTool('wire_funds', { amount: 20 });
    expect(getCostInfo(held)).toMatchObject({ units_used: 0, quota: { used: 0, remaining: 5 } });
    const approved = await callWithConfirmation(
      client,
      'wire_funds',
      { amount: 30 },
      { confirm: () => Promise.resolve(true) },
    );
    expect(textOf(approved)).toBe('wired 30');
    expect(getCostInfo(approved)).toMatchObject({ units_used: 1, quota: { used: 1, remaining: 4 } });
    expect(fixture.count('wire_funds')).toBe(1);
  });

  it('COST-13: with @ext/confirmation and an eliciting client without it, the person is asked in-band', async () => {
    const fixture = new Fixture();
    const created = await createTestPair({
      line,
      serverExtensions: [errorsServer(), costServer({ now: new Clock().read }), confirmationServer()],
      clientExtensions: [errorsClient()],
      setup: fixture.setup,
      serverOptions: { logger: silentLogger },
      clientOptions: { logger: silentLogger },
      onElicit: (request) =>
        Promise.resolve(
          request.message.includes('billed') ? { action: 'accept', content: { confirm: true } } : { action: 'decline' },
        ),
    });
    open.push(created);
    expect(textOf(await created.client.callTool('wire_funds', { amount: 5 }))).toBe('wired 5');
    expect(fixture.count('wire_funds')).toBe(1);
  });

  it("COST-14: status reports the caller's standing without using anything, and names an unknown tool", async () => {
    const fixture = new Fixture();
    const { client } = await pair(line, fixture);
    await client.callTool('export_analytics', { range: 'a' });
    await client.callTool('search', { q: 'a' });
    const before = await getCostStatus(client);
    const again = await getCostStatus(client);
    expect(again).toEqual(before);
    expect(before?.tools.map((tool) => tool.tool).sort()).toEqual(Object.keys(DECLARATIONS).sort());
    expect(before?.tools.find((tool) => tool.tool === 'export_analytics')).toEqual({
      tool: 'export_analytics',
      cost: { category: 'metered', estimated_units: 5, unit_label: 'API calls' },
      latency: 'minutes',
      quota: { limit: 12, used: 5, remaining: 7, resets_at: '2026-03-16T00:00:00.000Z', window_seconds: 86_400 },
    });
    expect(before?.tools.find((tool) => tool.tool === 'search')?.rate_limits).toEqual({
      requests_per_minute: { limit: 3, remaining: 2, resets_at: '2026-03-15T12:01:00.000Z' },
    });
    const failure = await getCostStatus(client, ['search', 'lookup']).catch((error: unknown) => error);
    expect(WireError.isInstance(failure)).toBe(true);
    expect(failure).toMatchObject({
      code: -32602,
      data: { code: 'INVALID_INPUT', category: 'invalid_input', details: { pointer: '/tools/1' } },
    });
    expect(errorSchema((failure as WireError).data).valid).toBe(true);
  });

  it('COST-15: the budget guard refuses a call its budget cannot pay, before sending it', async () => {
    const fixture = new Fixture();
    const { client } = await pair(line, fixture);
    const guard = costGuard(client, { budget: { 'API calls': 7, credits: 2 } });
    expect(await guard.describe('export_analytics', { subject: 'this export' })).toBe(
      'This export takes minutes and uses 5 of your 12 remaining API calls (the quota resets at 2026-03-16T00:00:00.000Z).',
    );
    expect(textOf(await guard.callTool('export_analytics', { range: 'a' }))).toBe('exported a');
    expect(guard.spent('API calls')).toBe(5);
    expect(guard.remaining('API calls')).toBe(2);
    expect(await guard.check('export_analytics')).toMatchObject({
      allowed: false,
      estimatedUnits: 5,
      budgetRemaining: 2,
    });
    const refused = await guard.callTool('export_analytics', { range: 'b' }).catch((error: unknown) => error);
    expect(BudgetExceededError.isInstance(refused)).toBe(true);
    expect(refused).toMatchObject({
      code: 'BUDGET_EXCEEDED',
      tool: 'export_analytics',
      estimatedUnits: 5,
      budgetRemaining: 2,
    });
    expect(fixture.count('export_analytics')).toBe(1);
    expect(await guard.describe('export_analytics')).toBe(
      '"export_analytics" takes minutes and uses 5 of your 7 remaining API calls (the quota resets at 2026-03-16T00:00:00.000Z). That is more than the 2 API calls left in your budget.',
    );
    // The guard charges what the server says was used, not the estimate.
    await guard.callTool('render', { pages: 1 });
    expect(guard.spent('credits')).toBe(1);
    // Free tools and tools without a declaration are never counted; a label without a budget is refused.
    await guard.callTool('search', { q: 'a' });
    await guard.callTool('lookup', { id: 'a' });
    await expect(guard.callTool('send_sms', { to: 'a' })).rejects.toMatchObject({ code: 'BUDGET_EXCEEDED' });
    expect(fixture.count('send_sms')).toBe(0);
  });

  it('COST-15: calls started at once through one guard cannot overspend it together', async () => {
    const fixture = new Fixture();
    const { client } = await pair(line, fixture);
    const guard = costGuard(client, { budget: 11 });
    await guard.check('export_analytics');
    const outcomes = await Promise.allSettled(
      [0, 1, 2, 3].map((i) => guard.callTool('export_analytics', { range: String(i) })),
    );
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(2);
    expect(fixture.count('export_analytics')).toBe(2);
    expect(guard.remaining()).toBe(1);
  });

  it("COST-15: without the extension on the server a tool's cost is unknown: allowed by default, refused on request", async () => {
    const fixture = new Fixture();
    const { client } = await pair(line, fixture, { server: false });
    expect(await costGuard(client, { budget: 0 }).describe('export_analytics')).toBeUndefined();
    expect(textOf(await costGuard(client, { budget: 0 }).callTool('export_analytics', { range: 'a' }))).toBe(
      'exported a',
    );
    await expect(
      costGuard(client, { budget: 100, unknownCost: 'refuse' }).callTool('export_analytics', { range: 'b' }),
    ).rejects.toMatchObject({
      code: 'COST_UNKNOWN',
    });
    expect(fixture.count('export_analytics')).toBe(1);
  });
});

describe('COST-18: a call that resumes a run its caller already paid for (runTool with resumes)', () => {
  /** Captures the `runTool` a server hands its extensions, through an extension of no stage. */
  function catcher(): { extension: ServerExtension; runTool: () => RunTool } {
    let captured: RunTool | undefined;
    const extension: ServerExtension = {
      side: 'server',
      name: '@ext/run-tool-catcher',
      ids: ['com.example/run-tool-catcher'],
      settings: { version: '1.0' },
      attach: ({ runTool }) => {
        captured = runTool;
      },
    };
    return { extension, runTool: () => captured! };
  }

  it('is charged nothing, even with the quota spent; a requires_approval tool is still gated', async () => {
    const fixture = new Fixture();
    const caught = catcher();
    const created = await createTestPair({
      line: 'v2-modern',
      serverExtensions: [errorsServer(), costServer({ now: new Clock().read }), caught.extension],
      clientExtensions: [errorsClient(), costClient()],
      setup: fixture.setup,
      serverOptions: { store: new MemoryStore(), logger: silentLogger },
      clientOptions: { logger: silentLogger },
      authInfo: { clientId: 'ada', scopes: [] },
    });
    open.push(created);
    const { client } = created;
    for (let i = 0; i < 5; i += 1) await client.callTool('render', { pages: 2, report: false });
    expect((await getCostStatus(client, ['render']))?.tools[0]?.quota).toMatchObject({ used: 10, remaining: 0 });
    const identity = { principal: 'client:ada', source: 'custom' } as const;
    const resumed = await caught.runTool()({ name: 'render', arguments: { pages: 2 }, identity, resumes: true });
    expect(textOf(resumed)).toBe('rendered 2 pages');
    expect((await getCostStatus(client, ['render']))?.tools[0]?.quota).toMatchObject({ used: 10, remaining: 0 });
    // Not a resumption: refused, as any call past the quota.
    const fresh = await caught.runTool()({ name: 'render', arguments: { pages: 2 }, identity });
    expect(fresh.isError).toBe(true);
    expect(fixture.count('render')).toBe(6);
    // The approval gate is not a charge: a resumption nobody can approve is refused.
    const ungated = await caught.runTool()({ name: 'wire_funds', arguments: { amount: 5 }, identity, resumes: true });
    expect(ungated.isError).toBe(true);
    expect(textOf(ungated)).toContain('approv');
    expect(fixture.count('wire_funds')).toBe(0);
  });
});

import { ConfigurationError, composeServer, type ServerExtension, type ToolInfo } from '@ext/core';
import { silentLogger } from '@ext/core/kit';
import { createTestPair, TEST_LINES, type TestPair } from '@ext/core/testing';
import { errorsClient, getStructuredError } from '@ext/errors/client';
import { errorsServer } from '@ext/errors/server';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { costClient, getCostStatus } from './client.js';
import { costOf, estimateCallUnits, type CostCall } from './locals.js';
import { COST_ID } from './schema.js';
import { COST_STATUS_TOOL, costServer, registerCostTools } from './server.js';
import { Clock } from './test-fixtures.js';

function tool(name: string, entry: unknown): ToolInfo {
  return { name, _meta: { [COST_ID]: entry } };
}

function registrationError(extension: ReturnType<typeof costServer>, info: ToolInfo): ConfigurationError | undefined {
  try {
    composeServer([extension], { logger: silentLogger }).decorateTool(info);
    return undefined;
  } catch (error) {
    return ConfigurationError.isInstance(error) ? error : undefined;
  }
}

let pair: TestPair | undefined;
afterEach(async () => {
  await pair?.close();
  pair = undefined;
});

describe('costServer options', () => {
  it('refuses bad options, naming them', () => {
    expect(() => costServer({ keyPrefix: '' })).toThrow(/keyPrefix/);
    expect(() => costServer({ now: 5 as unknown as () => number })).toThrow(/now/);
  });

  it('COST-1: advertises the wire version and serves the status method', () => {
    const extension = costServer();
    expect(extension.settings).toEqual({ version: '1.0' });
    expect(extension.stage).toBe('cost');
    expect(Object.keys(extension.methods ?? {})).toEqual(['status']);
  });
});

describe('tool declarations at registration (COST-3)', () => {
  it('fails with a ConfigurationError naming the tool and the field', () => {
    const error = registrationError(
      costServer(),
      tool('export', { cost: { category: 'metered' }, quota: { limit: 0 } }),
    );
    expect(error?.code).toBe('INVALID_TOOL_META');
    expect(error?.message).toContain('tool "export"');
    expect(error?.message).toContain(`_meta["${COST_ID}"].quota.limit`);
    expect(registrationError(costServer(), tool('export', 'cheap'))?.message).toContain(
      `_meta["${COST_ID}"]: the entry must be an object`,
    );
  });

  it('refuses tools of one pool that disagree on its limit or window', () => {
    const extension = costServer();
    const composed = composeServer([extension], { logger: silentLogger });
    composed.decorateTool(tool('send_sms', { quota: { limit: 4, pool: 'messages' } }));
    composed.decorateTool(tool('send_email', { quota: { limit: 4, pool: 'messages' } }));
    const error = registrationError(extension, tool('send_fax', { quota: { limit: 5, pool: 'messages' } }));
    expect(error?.message).toContain('pool "messages" is declared by "send_sms"');
  });

  it('COST-2: a tool without an entry gets none; a declared one gets the normalized entry', () => {
    const composed = composeServer([costServer()], { logger: silentLogger });
    expect(composed.decorateTool({ name: 'plain' })._meta[COST_ID]).toBeUndefined();
    expect(composed.decorateTool(tool('slow', { latency: 'minutes' }))._meta[COST_ID]).toEqual({
      cost: { category: 'free', estimated_units: 1 },
      latency: 'minutes',
    });
  });

  it('fails at startup through a real server, before any call', async () => {
    await expect(
      createTestPair({
        line: 'v1',
        serverExtensions: [costServer()],
        setup: (server) => {
          server.registerTool('bad', { _meta: { [COST_ID]: { rate_limits: { requests_per_second: 1 } } } }, () => ({
            content: [],
          }));
        },
        serverOptions: { logger: silentLogger },
      }),
    ).rejects.toThrow(/tool "bad".*rate_limits\.requests_per_second/);
  });
});

describe('costOf, the handler helper (COST-11)', () => {
  it('tells the handler its estimate and quota, and refuses a nonsense report as a tool error', async () => {
    const seen: (Omit<CostCall, 'reportUnits'> | undefined)[] = [];
    pair = await createTestPair({
      line: 'v2-modern',
      serverExtensions: [errorsServer(), costServer({ now: new Clock().read })],
      clientExtensions: [errorsClient(), costClient()],
      serverOptions: { logger: silentLogger },
      setup: (server) => {
        server.registerTool(
          'render',
          {
            inputSchema: z.object({ units: z.number() }),
            _meta: {
              [COST_ID]: {
                cost: { category: 'metered', estimated_units: 2, unit_label: 'credits' },
                quota: { limit: 10 },
              },
            },
          },
          (args, ctx) => {
            const call = costOf(ctx);
            if (call !== undefined)
              seen.push({
                category: call.category,
                estimatedUnits: call.estimatedUnits,
                unitLabel: call.unitLabel,
                quota: call.quota,
              });
            call?.reportUnits(args.units);
            return { content: [{ type: 'text', text: 'ok' }] };
          },
        );
        server.registerTool('plain', {}, (_args, ctx) => {
          seen.push(costOf(ctx));
          return { content: [] };
        });
      },
    });
    await pair.client.callTool('render', { units: 1 });
    await pair.client.callTool('plain', {});
    expect(seen).toEqual([
      {
        category: 'metered',
        estimatedUnits: 2,
        unitLabel: 'credits',
        // The quota slides (COST-20): the charge made at 12:00:20 counts until the same time tomorrow.
        quota: { limit: 10, used: 2, remaining: 8, resets_at: '2026-03-16T12:00:20.000Z', window_seconds: 86_400 },
      },
      undefined,
    ]);
    const refused = await pair.client.callTool('render', { units: -1 });
    expect(refused.isError).toBe(true);
    expect(getStructuredError(refused)).toMatchObject({ code: 'INTERNAL_ERROR' });
    // The handler threw before reporting, so the failed call is charged nothing.
    expect((await getCostStatus(pair.client, ['render']))?.tools[0]?.quota).toMatchObject({ used: 1, remaining: 9 });
  });
});

describe.each(TEST_LINES)('get_cost_status, the status method as a tool, on %s (COST-14)', (line) => {
  it('answers a client without the extension with the same standing and one sentence per tool', async () => {
    const clock = new Clock();
    pair = await createTestPair({
      line,
      serverExtensions: [costServer({ now: clock.read })],
      serverOptions: { logger: silentLogger },
      setup: (server) => {
        server.registerTool(
          'export',
          {
            _meta: {
              [COST_ID]: {
                cost: { category: 'metered', estimated_units: 5, unit_label: 'API calls' },
                latency: 'minutes',
                quota: { limit: 12 },
              },
            },
          },
          () => ({ content: [] }),
        );
        registerCostTools(server);
      },
    });
    await pair.client.callTool('export', {});
    const answer = await pair.client.callTool(COST_STATUS_TOOL, {});
    expect(answer.structuredContent).toMatchObject({ tools: [{ tool: 'export', quota: { used: 5, remaining: 7 } }] });
    expect(answer.content[0]).toMatchObject({
      type: 'text',
      text: '"export" takes minutes and uses 5 of your 7 remaining API calls (the quota resets at 2026-03-16T12:00:20.000Z).',
    });
    // Asking twice changes nothing: the status tool uses no quota.
    expect((await pair.client.callTool(COST_STATUS_TOOL, {})).structuredContent).toEqual(answer.structuredContent);
  });
});

describe('registerCostTools', () => {
  it('needs the extension composed', () => {
    expect(() => {
      registerCostTools({ composed: composeServer([], { logger: silentLogger }), registerTool: () => ({ name: 'x' }) });
    }).toThrow(/@ext\/cost is not composed/);
  });
});

describe('an estimate from a stage before cost (COST-19)', () => {
  it('reserves and charges what an earlier stage read from the arguments, so a quota caps spend', async () => {
    let ran = 0;
    // What a gateway's policy does with `units: "args.amount"`: the estimate comes from the call itself.
    const estimator: ServerExtension = {
      side: 'server',
      name: 'estimator',
      ids: ['com.example/estimator'],
      settings: { version: '1.0' },
      stage: 'permissions',
      middleware: (call, ctx, next) => {
        estimateCallUnits(ctx, Number(call.arguments.amount));
        return next();
      },
    };
    pair = await createTestPair({
      line: 'v2-modern',
      serverExtensions: [errorsServer(), estimator, costServer({ now: new Clock().read })],
      clientExtensions: [errorsClient(), costClient()],
      serverOptions: { logger: silentLogger },
      setup: (server) => {
        server.registerTool(
          'pay',
          {
            inputSchema: z.object({ amount: z.number() }),
            _meta: { [COST_ID]: { cost: { category: 'metered', estimated_units: 1 }, quota: { limit: 10 } } },
          },
          () => {
            ran += 1;
            return { content: [{ type: 'text', text: 'paid' }] };
          },
        );
      },
    });
    expect((await pair.client.callTool('pay', { amount: 6 })).isError).toBeFalsy();
    const refused = await pair.client.callTool('pay', { amount: 6 });
    expect(getStructuredError(refused)).toMatchObject({ code: 'QUOTA_EXHAUSTED' });
    expect(ran).toBe(1);
    expect((await pair.client.callTool('pay', { amount: 4 })).isError).toBeFalsy();
    expect((await getCostStatus(pair.client, ['pay']))?.tools[0]?.quota).toMatchObject({ used: 10, remaining: 0 });
  });

  it('refuses a nonsense estimate', () => {
    const ctx = { locals: new Map<symbol, unknown>() };
    for (const units of [-1, Number.NaN, Infinity]) {
      expect(() => {
        estimateCallUnits(ctx, units);
      }).toThrow(RangeError);
    }
  });
});

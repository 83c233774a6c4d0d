/** The cost suite: the checks of a server that advertises `io.github.mcp-ext/cost`. */
import { isRecord } from '@ext/core/kit';
import { describe, ensure } from '../assert.js';
import type { ExtensionSuite } from '../types.js';
import { expectMethodError } from './methods.js';

export const COST_ID = 'io.github.mcp-ext/cost';
const CATEGORIES = ['free', 'metered', 'requires_approval'];
const LATENCIES = ['instant', 'seconds', 'minutes'];

/** `@ext/cost` (SPEC: packages/cost/SPEC.md). Only metadata and the side-effect-free status method are exercised. */
export const costSuite: ExtensionSuite = {
  extension: 'cost',
  ids: [COST_ID],
  spec: 'packages/cost/SPEC.md',
  checks: [
    {
      id: 'cost/tool-meta',
      requirement: 'COST-2',
      level: 'MUST',
      title: 'declared tools carry cost {category, estimated_units}, an optional latency class and integer quotas',
      run(ctx) {
        const problems: string[] = [];
        for (const tool of ctx.server.tools) {
          const meta = tool._meta?.[ctx.id ?? ''];
          if (meta === undefined) continue;
          if (!isRecord(meta) || !isRecord(meta.cost)) {
            problems.push(`${tool.name}: ${describe(meta)}`);
            continue;
          }
          ctx.expectSeedShape(meta.cost, 'service-manifest', 'CostInfo', `${tool.name} cost`);
          if (!(typeof meta.cost.category === 'string' && CATEGORIES.includes(meta.cost.category)))
            problems.push(`${tool.name}: category ${describe(meta.cost.category)}`);
          if (typeof meta.cost.estimated_units !== 'number' || meta.cost.estimated_units < 0)
            problems.push(`${tool.name}: estimated_units ${describe(meta.cost.estimated_units)}`);
          if (meta.latency !== undefined && !(typeof meta.latency === 'string' && LATENCIES.includes(meta.latency)))
            problems.push(`${tool.name}: latency ${describe(meta.latency)}`);
          if (
            meta.quota !== undefined &&
            !(
              isRecord(meta.quota) &&
              Number.isSafeInteger(meta.quota.limit) &&
              Number.isSafeInteger(meta.quota.window_seconds)
            )
          ) {
            problems.push(`${tool.name}: quota ${describe(meta.quota)}`);
          }
        }
        ensure(problems.length === 0, problems.join('; '));
        return Promise.resolve();
      },
    },
    {
      id: 'cost/status',
      requirement: 'COST-14',
      level: 'MUST',
      title: 'status lists every declared tool with its cost, and changes nothing when asked twice',
      async run(ctx) {
        const declared = ctx.server.tools
          .filter((tool) => tool._meta?.[ctx.id ?? ''] !== undefined)
          .map((tool) => tool.name);
        if (declared.length === 0) return ctx.skip('no tool declares a cost');
        const probe = await ctx.connect();
        const first = await probe.request(`${ctx.id ?? ''}/status`, {});
        const second = await probe.request(`${ctx.id ?? ''}/status`, {});
        const names = Array.isArray(first.tools) ? first.tools.filter(isRecord).map((entry) => entry.tool) : [];
        ensure(
          [...names].sort().join() === [...declared].sort().join(),
          `status lists ${describe(names)}, tools/list declares ${describe(declared)}`,
        );
        const { _meta: _a, ...a } = first;
        const { _meta: _b, ...b } = second;
        ensure(JSON.stringify(a) === JSON.stringify(b), 'asking for the status twice changed it');
      },
    },
    {
      id: 'cost/status-unknown-tool',
      requirement: 'COST-14',
      level: 'MUST',
      title: 'status refuses a name that is not a declared tool as invalid_input (-32602)',
      async run(ctx) {
        const probe = await ctx.connect();
        await expectMethodError(
          ctx,
          probe,
          `${ctx.id ?? ''}/status`,
          { tools: ['conformance_no_such_tool'] },
          { category: 'invalid_input' },
        );
      },
    },
  ],
};

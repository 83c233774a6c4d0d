/** The extension's JSON-RPC method `<id>/status`: the caller's standing for the tools that declare a cost. */
import { firstViolation, invalidInputError, lazyValidator } from '@ext/core/kit';
import { type ExtensionError, type MethodHandler } from '@ext/core';
import { fixedWindow, planMeters, quotaState, rateState, slidingMeterOf } from './meters.js';
import type { ResolvedOptions } from './options.js';
import { CostStatusParamsSchema, type CostStatusResult, type CostToolStatus, type RateLimitStates } from './schema.js';
import { slidingStanding } from './sliding-counter.js';
import type { ToolCosts } from './tool-costs.js';

const statusParams = lazyValidator(CostStatusParamsSchema);

function invalidParams(pointer: string, message: string): ExtensionError {
  // The field is the first segment of the pointer (`tools` for `/tools/1`): the params have no deeper names.
  return invalidInputError(
    { pointer, field: pointer.split('/')[1] ?? 'params', message },
    'Send { "tools": [<tool name>...] } naming tools that declare a cost, or no params for all of them.',
  );
}

/** The `status` method: reads the counters, uses none. */
export function statusMethod(config: ResolvedOptions, costs: ToolCosts): MethodHandler {
  return async (params, ctx) => {
    const validator = statusParams();
    if (!validator.Check(params)) {
      const { pointer, message } = firstViolation(validator.Errors(params));
      throw invalidParams(pointer, `params${pointer} ${message}`);
    }
    const names = params.tools ?? costs.names();
    const nowMs = config.now();
    const tools: CostToolStatus[] = [];
    for (const [index, name] of names.entries()) {
      const meta = costs.declared(name);
      if (meta === undefined)
        throw invalidParams(`/tools/${index}`, `No tool named "${name}" declares a cost on this server`);
      const entry: CostToolStatus = { tool: name, cost: { ...meta.cost } };
      if (meta.latency !== undefined) entry.latency = meta.latency;
      const rates: RateLimitStates = {};
      for (const meter of planMeters(meta, name, ctx.principal, nowMs, config.keyPrefix)) {
        if (meter.mode === 'sliding') {
          const standing = await slidingStanding(ctx.store, slidingMeterOf(meter), nowMs);
          // Nothing counted, nothing to reset: the clock window's end keeps asking twice answering the same (COST-20).
          entry.quota = quotaState(
            meter,
            standing.used,
            standing.used === 0 ? fixedWindow(nowMs, meter.windowSeconds).endMs : standing.resetsAtMs,
          );
          continue;
        }
        const stored = await ctx.store.get(meter.key);
        const used = typeof stored === 'number' ? stored : 0;
        if (meter.kind === 'quota') entry.quota = quotaState(meter, used);
        else rates[meter.name as keyof RateLimitStates] = rateState(meter, used);
      }
      if (Object.keys(rates).length > 0) entry.rate_limits = rates;
      tools.push(entry);
    }
    return { tools } satisfies CostStatusResult;
  };
}

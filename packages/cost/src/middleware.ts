/**
 * The tool-call middleware: reserves a call's charges before it runs (or
 * refuses it), asks for approval where the tool requires it, and settles and
 * reports what the call used.
 */
import {
  handlerStarted,
  isInputRequiredResult,
  requireApproval,
  resumesDetachedRun,
  withResultMeta,
} from '@ext/core/kit';
import { type ToolMiddleware, type ToolResult } from '@ext/core';
import { reserveAll, settle } from './counters.js';
import { callEstimateOf, openCostCall } from './locals.js';
import { planMeters, quotaState } from './meters.js';
import type { ResolvedOptions } from './options.js';
import { COST_ID, COST_PACKAGE, type CostToolMeta } from './schema.js';
import type { ToolCosts } from './tool-costs.js';

function approvalReason(tool: string, meta: CostToolMeta): string {
  const { estimated_units: units, unit_label: label } = meta.cost;
  return `"${tool}" is billed: each call uses about ${units} ${label === undefined ? (units === 1 ? 'unit' : 'units') : `of your ${label}`}.`;
}

/** The middleware of the `cost` stage. */
/** The tool's declaration, with this call's own estimate when a stage before cost gave one (COST-19). */
function withCallEstimate(meta: CostToolMeta | undefined, estimate: number | undefined): CostToolMeta | undefined {
  if (meta === undefined || estimate === undefined) return meta;
  return { ...meta, cost: { ...meta.cost, estimated_units: estimate } };
}

export function costMiddleware(config: ResolvedOptions, costs: ToolCosts): ToolMiddleware {
  return async (call, ctx, next) => {
    const meta = withCallEstimate(costs.metaOf(ctx.tool), callEstimateOf(ctx));
    if (meta === undefined) return next();
    const approval = () => {
      if (meta.cost.category === 'requires_approval') {
        requireApproval(ctx, { requestedBy: COST_PACKAGE, reason: approvalReason(call.name, meta) });
      }
    };
    // A call taken up again after its runner died was charged when its caller made it; its gate still holds (COST-18).
    if (resumesDetachedRun(ctx)) {
      approval();
      return next();
    }
    const nowMs = config.now();
    const meters = planMeters(meta, call.name, ctx.principal, nowMs, config.keyPrefix);
    const reservations = await reserveAll(ctx, meters, meta, nowMs, call.name);
    const quota = reservations.find((reservation) => reservation.meter.kind === 'quota');
    const reported = openCostCall(ctx, {
      category: meta.cost.category,
      estimatedUnits: meta.cost.estimated_units,
      unitLabel: meta.cost.unit_label,
      quota: quota === undefined ? undefined : quotaState(quota.meter, quota.total, quota.resetsAtMs),
    });
    approval();
    let result: ToolResult;
    try {
      result = await next();
    } catch (error) {
      await settle(
        ctx,
        meta,
        reservations,
        { ran: handlerStarted(ctx), failed: true, reported: reported() },
        nowMs,
        call.name,
      );
      throw error;
    }
    const entry = await settle(
      ctx,
      meta,
      reservations,
      { ran: handlerStarted(ctx), failed: result.isError === true, reported: reported() },
      nowMs,
      call.name,
    );
    const negotiated = ctx.negotiated(COST_ID);
    // An input_required answer is not a tool result: it carries no extension entries.
    if (negotiated === undefined || isInputRequiredResult(result)) return result;
    return withResultMeta(result, negotiated.id, entry);
  };
}

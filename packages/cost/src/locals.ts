/** The current call's cost, as the tool handler sees it on `ctx.locals`: what it declares, and what it reports using. */
import { defineLocal } from '@ext/core/kit';
import { type RequestContext } from '@ext/core';
import type { CostCategory, QuotaState } from './schema.js';

/** What a tool handler can learn and report about the cost of the current call. */
export interface CostCall {
  readonly category: CostCategory;
  /** Units the tool declares per call. */
  readonly estimatedUnits: number;
  readonly unitLabel: string | undefined;
  /** The caller's standing against the quota once this call's estimate was reserved; `undefined` without a quota. */
  readonly quota: QuotaState | undefined;
  /**
   * Reports the units this call really used (replacing the estimate); the
   * last report wins. Throws a `RangeError` for a negative or non-finite
   * number. A failed call is charged only what was reported.
   */
  reportUnits(units: number): void;
}

const COST_CALL = defineLocal<CostCall>('cost/call');

/** The cost of the current call, or `undefined` when the tool declares none or `@ext/cost` is not composed. */
export function costOf(ctx: Pick<RequestContext, 'locals'>): CostCall | undefined {
  return COST_CALL.get(ctx);
}

/** Fills the slot for the handler; returns a reader of what it reported. */
export function openCostCall(
  ctx: Pick<RequestContext, 'locals'>,
  info: Omit<CostCall, 'reportUnits'>,
): () => number | undefined {
  let reported: number | undefined;
  COST_CALL.set(ctx, {
    ...info,
    reportUnits(units) {
      if (typeof units !== 'number' || !Number.isFinite(units) || units < 0 || units > Number.MAX_SAFE_INTEGER) {
        throw new RangeError(`reportUnits: units must be a finite number >= 0, got ${String(units)}`);
      }
      reported = units;
    },
  });
  return () => reported;
}

const CALL_ESTIMATE = defineLocal<number>('cost/estimate');

/**
 * For a stage that runs before cost (a gateway's policy reading `units`
 * from the arguments): the units this call is estimated at, replacing the
 * tool's declared estimate for its reservation against quotas and for its
 * charge (COST-19). Throws a `RangeError` for a negative or non-finite number.
 */
export function estimateCallUnits(ctx: Pick<RequestContext, 'locals'>, units: number): void {
  if (typeof units !== 'number' || !Number.isFinite(units) || units < 0 || units > Number.MAX_SAFE_INTEGER) {
    throw new RangeError(`estimateCallUnits: units must be a finite number >= 0, got ${String(units)}`);
  }
  CALL_ESTIMATE.set(ctx, units);
}

/** The estimate a stage before cost gave this call, if any. */
export function callEstimateOf(ctx: Pick<RequestContext, 'locals'>): number | undefined {
  return CALL_ESTIMATE.get(ctx);
}

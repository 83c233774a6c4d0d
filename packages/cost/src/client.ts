/**
 * The client half of `@ext/cost`: the descriptor that advertises the
 * extension, what a client reads from the server, and the budget guard.
 */
import type { ClientExtension } from '@ext/core';
import { COST_ID, COST_PACKAGE, COST_WIRE_VERSION, CostSettingsSchema } from './schema.js';

export { getCostInfo, getCostStatus, getToolCost } from './reports.js';
export { BudgetExceededError, costGuard } from './guard.js';
export type { BudgetErrorCode, CostGuard, CostGuardOptions } from './guard.js';
export type { BudgetCheck } from './budget.js';

/** The client half: advertises the extension, so the server reports cost and quota on every result. */
export function costClient(): ClientExtension {
  return {
    side: 'client',
    name: COST_PACKAGE,
    ids: [COST_ID],
    settings: { version: COST_WIRE_VERSION },
    peerSettings: CostSettingsSchema,
  };
}

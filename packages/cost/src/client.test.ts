import { ConfigurationError, type ExtendedClient } from '@ext/core';
import { describe, expect, it } from 'vitest';
import { BudgetExceededError, costClient, costGuard, getCostInfo, getToolCost } from './client.js';
import { COST_ID } from './schema.js';

// Option checks run before the client is touched.
const unusedClient = {} as ExtendedClient;

describe('costClient', () => {
  it('COST-1: advertises the wire version under the identifier', () => {
    expect(costClient()).toMatchObject({
      side: 'client',
      name: '@ext/cost',
      ids: [COST_ID],
      settings: { version: '1.0' },
    });
  });
});

describe('readers', () => {
  it("COST-12: read a result's entry and a listed tool's declaration, refusing malformed ones", () => {
    expect(getCostInfo({ content: [], _meta: { [COST_ID]: { units_used: 2, estimated_units: 1 } } })).toEqual({
      units_used: 2,
      estimated_units: 1,
    });
    expect(getCostInfo({ content: [], _meta: { [COST_ID]: { units_used: '2' } } })).toBeUndefined();
    expect(getCostInfo('not a result')).toBeUndefined();
    expect(getToolCost({ _meta: { [COST_ID]: { cost: { category: 'metered', estimated_units: 3 } } } })).toEqual({
      cost: { category: 'metered', estimated_units: 3 },
    });
    expect(getToolCost({})).toBeUndefined();
  });
});

describe('BudgetExceededError', () => {
  it('is branded, so isInstance works across copies of the package', () => {
    const error = new BudgetExceededError('BUDGET_EXCEEDED', 'too dear', {
      tool: 'export',
      estimatedUnits: 5,
      budgetRemaining: 2,
      unitLabel: 'credits',
    });
    expect(BudgetExceededError.isInstance(error)).toBe(true);
    expect(BudgetExceededError.isInstance(new Error('too dear'))).toBe(false);
    expect(BudgetExceededError.isInstance(Object.assign(new Error('too dear'), { code: 'BUDGET_EXCEEDED' }))).toBe(
      false,
    );
    expect(error).toMatchObject({
      code: 'BUDGET_EXCEEDED',
      tool: 'export',
      estimatedUnits: 5,
      budgetRemaining: 2,
      unitLabel: 'credits',
    });
  });
});

describe('costGuard options (COST-15)', () => {
  it('refuses a budget that is not a number >= 0 or a record of them, and an unknown policy', () => {
    for (const budget of [-1, Number.NaN, '5', null, [], { credits: -1 }, { credits: '1' }]) {
      expect(() => costGuard(unusedClient, { budget: budget as number })).toThrow(ConfigurationError);
    }
    expect(() => costGuard(unusedClient, { budget: 1, unknownCost: 'maybe' as 'allow' })).toThrow(/unknownCost/);
    expect(costGuard(unusedClient, { budget: { credits: 3 } }).remaining('credits')).toBe(3);
    expect(costGuard(unusedClient, { budget: { credits: 3 } }).remaining('API calls')).toBe(0);
    // A unit label the server names like an Object.prototype member is a unit without budget, not a function.
    for (const label of ['constructor', 'toString', '__proto__'])
      expect(costGuard(unusedClient, { budget: { credits: 3 } }).remaining(label)).toBe(0);
    expect(costGuard(unusedClient, { budget: 4 }).remaining('anything')).toBe(4);
  });
});

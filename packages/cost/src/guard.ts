/**
 * The client's budget guard: refuses to start a call whose declared cost
 * exceeds what is left of the host's budget, and charges what results report.
 */
import { brandError, isBrandedError } from '@ext/core/kit';
import { ConfigurationError, type CallToolOptions, type ExtendedClient, type ToolResult } from '@ext/core';
import { Budget, type BudgetCheck } from './budget.js';
import { describeCost } from './describe.js';
import { getCostInfo, getCostStatus, getToolCost } from './reports.js';
import { COST_ID, type CostToolMeta } from './schema.js';

export type BudgetErrorCode = 'BUDGET_EXCEEDED' | 'COST_UNKNOWN';

/** The guard refused to start a call: it was never sent. A local error (string code), branded across package copies. */
export class BudgetExceededError extends Error {
  static readonly brand: string = 'io.github.mcp-ext/cost/BudgetExceededError';
  readonly code: BudgetErrorCode;
  readonly tool: string | undefined;
  readonly estimatedUnits: number | undefined;
  readonly budgetRemaining: number | undefined;
  readonly unitLabel: string | undefined;

  constructor(
    code: BudgetErrorCode,
    message: string,
    facts: { tool?: string; estimatedUnits?: number; budgetRemaining?: number; unitLabel?: string | undefined } = {},
  ) {
    super(message);
    this.name = 'BudgetExceededError';
    this.code = code;
    this.tool = facts.tool;
    this.estimatedUnits = facts.estimatedUnits;
    this.budgetRemaining = facts.budgetRemaining;
    this.unitLabel = facts.unitLabel;
    brandError(this, BudgetExceededError.brand);
  }

  static isInstance(value: unknown): value is BudgetExceededError {
    return isBrandedError(value, BudgetExceededError.brand);
  }
}

export interface CostGuardOptions {
  /**
   * Units the host lets this guard spend: one number for every unit, or one
   * per unit label (`{ credits: 20, "API calls": 100 }`; a label not listed
   * has no budget). Tools declared `free` are never counted.
   */
  readonly budget: number | Readonly<Record<string, number>>;
  /**
   * A tool whose cost is unknown (no declaration, or a server without the
   * extension): `'allow'` calls it, `'refuse'` refuses it. Default `'allow'`.
   */
  readonly unknownCost?: 'allow' | 'refuse' | undefined;
}

/** A budget over the calls made through it. */
export interface CostGuard {
  /** Whether a call of `name` may start now (reads the tool list once, and again for a tool it does not know). */
  check(name: string): Promise<BudgetCheck>;
  /**
   * Calls the tool when its declared cost fits the budget, and charges what
   * the result says it used (the estimate when the server reports nothing;
   * nothing for a failed call without a report). Throws a
   * {@link BudgetExceededError} without sending anything otherwise.
   */
  callTool(name: string, args?: Record<string, unknown>, options?: CallToolOptions): Promise<ToolResult>;
  /** Budget left for a unit label (any label when the budget is one number), calls in flight included. */
  remaining(unitLabel?: string): number;
  /** Units charged so far for a unit label (all labels when the budget is one number). */
  spent(unitLabel?: string): number;
  /**
   * One sentence for a person about the next call of `name`, e.g. `"export"
   * takes minutes and uses 5 of your 12 remaining API calls (...)`, with
   * the caller's quota read from the server. `undefined` when the cost is unknown.
   */
  describe(name: string, options?: { readonly subject?: string | undefined }): Promise<string | undefined>;
  /** Reads the tool list again (after `notifications/tools/list_changed`). */
  refresh(): Promise<void>;
}

function checkBudget(budget: unknown): void {
  const valid = (value: unknown): boolean => typeof value === 'number' && Number.isFinite(value) && value >= 0;
  if (valid(budget)) return;
  if (typeof budget === 'object' && budget !== null && !Array.isArray(budget) && Object.values(budget).every(valid))
    return;
  throw new ConfigurationError(
    'INVALID_OPTION',
    'costGuard: budget must be a number >= 0 or an object of numbers >= 0 by unit label',
  );
}

/**
 * A budget guard for a host: refuses to start a call whose declared cost
 * exceeds what is left of the budget the host set, and keeps the account
 * with the units each result reports.
 */
export function costGuard(client: ExtendedClient, options: CostGuardOptions): CostGuard {
  checkBudget(options.budget);
  // Checked at run time too: JavaScript callers get no help from the type.
  const policy: unknown = options.unknownCost ?? 'allow';
  if (policy !== 'allow' && policy !== 'refuse') {
    throw new ConfigurationError('INVALID_OPTION', 'costGuard: unknownCost must be "allow" or "refuse"');
  }
  const budget = new Budget(options.budget, policy);
  let tools: Map<string, CostToolMeta | undefined> | undefined;

  async function load(): Promise<void> {
    const listed = await client.listTools();
    const negotiated = client.negotiated(COST_ID) !== undefined;
    // Without negotiation nothing the server lists is read as a cost declaration.
    tools = new Map(listed.map((tool) => [tool.name, negotiated ? getToolCost(tool) : undefined]));
  }

  async function lookup(name: string): Promise<CostToolMeta | undefined> {
    if (tools?.has(name) !== true) await load();
    return tools?.get(name);
  }

  return {
    async check(name) {
      return budget.decide(name, await lookup(name));
    },

    async callTool(name, args = {}, callOptions) {
      const verdict = budget.decide(name, await lookup(name));
      if (!verdict.allowed) throw refused(verdict);
      const counted = verdict.meta !== undefined && verdict.meta.cost.category !== 'free';
      const key = budget.account(verdict.unitLabel);
      // Held while the call runs, so calls started at once cannot overspend together.
      if (counted) budget.hold(key, verdict.estimatedUnits);
      let result: ToolResult | undefined;
      try {
        result = await client.callTool(name, args, callOptions);
        return result;
      } finally {
        if (counted) {
          const reported = result === undefined ? undefined : getCostInfo(result)?.units_used;
          const failed = result === undefined || result.isError === true;
          budget.charge(key, verdict.estimatedUnits, reported ?? (failed ? 0 : verdict.estimatedUnits));
        }
      }
    },

    remaining(unitLabel) {
      return budget.remaining(budget.account(unitLabel));
    },

    spent(unitLabel) {
      return budget.spent(budget.account(unitLabel));
    },

    async describe(name, describeOptions = {}) {
      const meta = await lookup(name);
      if (meta === undefined) return undefined;
      const status = meta.quota === undefined ? undefined : await getCostStatus(client, [name]);
      const verdict = budget.decide(name, meta);
      return describeCost({
        subject: describeOptions.subject ?? `"${name}"`,
        meta,
        quota: status?.tools[0]?.quota,
        budgetRemaining: verdict.budgetRemaining,
      });
    },

    async refresh() {
      await load();
    },
  };
}

/** The error for a call the guard will not start. */
function refused(verdict: BudgetCheck): BudgetExceededError {
  return new BudgetExceededError(
    verdict.meta === undefined ? 'COST_UNKNOWN' : 'BUDGET_EXCEEDED',
    verdict.reason ?? 'refused',
    {
      tool: verdict.tool,
      estimatedUnits: verdict.estimatedUnits,
      budgetRemaining: verdict.budgetRemaining,
      unitLabel: verdict.unitLabel,
    },
  );
}

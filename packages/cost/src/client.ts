import {
  ConfigurationError,
  brandError,
  isBrandedError,
  type CallToolOptions,
  type ClientExtension,
  type ExtendedClient,
  type ToolResult,
} from '@ext/core';
import { Compile } from 'typebox/compile';
import { describeCost, readResultCost, readToolCost } from './logic.js';
import {
  COST_ID,
  COST_PACKAGE,
  COST_WIRE_VERSION,
  CostSettingsSchema,
  CostStatusResultSchema,
  type CostResultMeta,
  type CostStatusResult,
  type CostToolMeta,
} from './schema.js';

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

/** What a result says the call used and what the caller has left; `undefined` when the server sent no (valid) entry. */
export function getCostInfo(result: unknown): CostResultMeta | undefined {
  return readResultCost(result, COST_ID);
}

/** A listed tool's cost declaration (`Tool._meta[COST_ID]`); `undefined` when it has none or it is malformed. */
export function getToolCost(tool: { readonly _meta?: Record<string, unknown> | undefined }): CostToolMeta | undefined {
  return readToolCost(tool._meta, COST_ID);
}

let statusValidator: ReturnType<typeof Compile<typeof CostStatusResultSchema>> | undefined;

/**
 * The caller's standing for the named tools (default: every tool that
 * declares a cost), from `COST_ID/status`; no quota is used. `undefined`
 * when the server does not negotiate the extension.
 */
export async function getCostStatus(
  client: ExtendedClient,
  tools?: readonly string[],
): Promise<CostStatusResult | undefined> {
  const negotiated = client.negotiated(COST_PACKAGE);
  if (negotiated === undefined) return undefined;
  const answer = await client.request(`${negotiated.id}/status`, tools === undefined ? {} : { tools: [...tools] });
  statusValidator ??= Compile(CostStatusResultSchema);
  if (!statusValidator.Check(answer)) throw new TypeError(`${negotiated.id}/status answered a malformed result`);
  return answer;
}

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

/** Whether the guard would start a call, and why. */
export interface BudgetCheck {
  readonly tool: string;
  readonly allowed: boolean;
  /** The tool's declaration; `undefined` when its cost is unknown. */
  readonly meta: CostToolMeta | undefined;
  /** Units the call is expected to use against the budget (0 for free or unknown tools). */
  readonly estimatedUnits: number;
  readonly unitLabel: string | undefined;
  /** Budget left in the tool's unit, calls in flight included; `undefined` when the call draws on none. */
  readonly budgetRemaining: number | undefined;
  /** Why the call is refused. */
  readonly reason?: string | undefined;
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

const ANY_UNIT = '*';

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
  const unknownCost = policy;
  const budget = options.budget;
  const spent = new Map<string, number>();
  const pending = new Map<string, number>();
  let tools: Map<string, CostToolMeta | undefined> | undefined;

  const account = (label: string | undefined): string => (typeof budget === 'number' ? ANY_UNIT : (label ?? 'units'));
  // Unit labels come from the server's tool metadata: only the budget's own entries are limits.
  const limitOf = (key: string): number =>
    typeof budget === 'number' ? budget : Object.hasOwn(budget, key) ? (budget[key] ?? 0) : 0;
  const remainingOf = (key: string): number => limitOf(key) - (spent.get(key) ?? 0) - (pending.get(key) ?? 0);
  const add = (map: Map<string, number>, key: string, units: number): void => {
    map.set(key, (map.get(key) ?? 0) + units);
  };

  async function load(): Promise<void> {
    const listed = await client.listTools();
    const negotiated = client.negotiated(COST_PACKAGE) !== undefined;
    // Without negotiation nothing the server lists is read as a cost declaration.
    tools = new Map(listed.map((tool) => [tool.name, negotiated ? getToolCost(tool) : undefined]));
  }

  async function lookup(name: string): Promise<CostToolMeta | undefined> {
    if (tools?.has(name) !== true) await load();
    return tools?.get(name);
  }

  function decide(name: string, meta: CostToolMeta | undefined): BudgetCheck {
    if (meta === undefined) {
      const allowed = unknownCost === 'allow';
      return {
        tool: name,
        allowed,
        meta,
        estimatedUnits: 0,
        unitLabel: undefined,
        budgetRemaining: undefined,
        reason: allowed ? undefined : `The cost of "${name}" is unknown, and this guard refuses tools of unknown cost`,
      };
    }
    const { category, estimated_units: units, unit_label: label } = meta.cost;
    if (category === 'free') {
      return { tool: name, allowed: true, meta, estimatedUnits: 0, unitLabel: label, budgetRemaining: undefined };
    }
    const left = remainingOf(account(label));
    const allowed = units <= left;
    return {
      tool: name,
      allowed,
      meta,
      estimatedUnits: units,
      unitLabel: label,
      budgetRemaining: left,
      reason: allowed
        ? undefined
        : `"${name}" is estimated at ${units} ${label ?? 'units'}, more than the ${Math.max(0, left)} left in the budget`,
    };
  }

  return {
    async check(name) {
      return decide(name, await lookup(name));
    },

    async callTool(name, args = {}, callOptions) {
      const verdict = decide(name, await lookup(name));
      if (!verdict.allowed) {
        throw new BudgetExceededError(
          verdict.meta === undefined ? 'COST_UNKNOWN' : 'BUDGET_EXCEEDED',
          verdict.reason ?? 'refused',
          {
            tool: name,
            estimatedUnits: verdict.estimatedUnits,
            budgetRemaining: verdict.budgetRemaining,
            unitLabel: verdict.unitLabel,
          },
        );
      }
      const counted = verdict.meta !== undefined && verdict.meta.cost.category !== 'free';
      const key = account(verdict.unitLabel);
      // Held while the call runs, so calls started at once cannot overspend together.
      if (counted) add(pending, key, verdict.estimatedUnits);
      let result: ToolResult | undefined;
      try {
        result = await client.callTool(name, args, callOptions);
        return result;
      } finally {
        if (counted) {
          add(pending, key, -verdict.estimatedUnits);
          const reported = result === undefined ? undefined : getCostInfo(result)?.units_used;
          const failed = result === undefined || result.isError === true;
          add(spent, key, reported ?? (failed ? 0 : verdict.estimatedUnits));
        }
      }
    },

    remaining(unitLabel) {
      return remainingOf(account(unitLabel));
    },

    spent(unitLabel) {
      return spent.get(account(unitLabel)) ?? 0;
    },

    async describe(name, describeOptions = {}) {
      const meta = await lookup(name);
      if (meta === undefined) return undefined;
      const status = meta.quota === undefined ? undefined : await getCostStatus(client, [name]);
      const verdict = decide(name, meta);
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

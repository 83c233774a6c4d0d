/**
 * A host's budget over the calls a guard makes: what was spent, what calls
 * in flight hold, and whether the next call fits. No I/O.
 */
import type { CostToolMeta } from './schema.js';

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

/** What a host lets a guard spend: one number for every unit, or one per unit label. */
export type BudgetLimits = number | Readonly<Record<string, number>>;

/** The account of a budget given as one number: every unit label draws on it. */
const ANY_UNIT = '*';

export class Budget {
  readonly #limits: BudgetLimits;
  readonly #unknownCost: 'allow' | 'refuse';
  readonly #spent = new Map<string, number>();
  readonly #pending = new Map<string, number>();

  constructor(limits: BudgetLimits, unknownCost: 'allow' | 'refuse') {
    this.#limits = limits;
    this.#unknownCost = unknownCost;
  }

  /** The account a unit label draws on. */
  account(label: string | undefined): string {
    return typeof this.#limits === 'number' ? ANY_UNIT : (label ?? 'units');
  }

  /** What is left in an account, calls in flight included. */
  remaining(key: string): number {
    return this.#limitOf(key) - (this.#spent.get(key) ?? 0) - (this.#pending.get(key) ?? 0);
  }

  /** What an account has been charged so far. */
  spent(key: string): number {
    return this.#spent.get(key) ?? 0;
  }

  /** Holds `units` while a call runs, so calls started at once cannot overspend together. */
  hold(key: string, units: number): void {
    add(this.#pending, key, units);
  }

  /** Ends a hold of `held` units and charges what the call used. */
  charge(key: string, held: number, used: number): void {
    add(this.#pending, key, -held);
    add(this.#spent, key, used);
  }

  /** Whether a call of `name`, declared as `meta`, may start now. */
  decide(name: string, meta: CostToolMeta | undefined): BudgetCheck {
    if (meta === undefined) {
      const allowed = this.#unknownCost === 'allow';
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
    const left = this.remaining(this.account(label));
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

  // Unit labels come from the server's tool metadata: only the budget's own entries are limits.
  #limitOf(key: string): number {
    const limits = this.#limits;
    return typeof limits === 'number' ? limits : Object.hasOwn(limits, key) ? (limits[key] ?? 0) : 0;
  }
}

function add(map: Map<string, number>, key: string, units: number): void {
  map.set(key, (map.get(key) ?? 0) + units);
}

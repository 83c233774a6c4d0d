import {
  ConfigurationError,
  ExtensionError,
  handlerStarted,
  isInputRequiredResult,
  requireApproval,
  type CallContext,
  type Logger,
  type MethodHandler,
  type ServerExtension,
  type Store,
  type ToolInfo,
  type ToolMiddleware,
  type ToolResult,
} from '@ext/core';
import { Compile } from 'typebox/compile';
import { openCostCall } from './locals.js';
import {
  admits,
  chargeOf,
  counterTtlMs,
  parseToolCost,
  planMeters,
  quotaState,
  rateState,
  roomAfterUndo,
  secondsUntil,
  settledUnits,
  withResultMeta,
  type Meter,
} from './logic.js';
import {
  COST_ID,
  COST_PACKAGE,
  COST_WIRE_VERSION,
  CostSettingsSchema,
  CostStatusParamsSchema,
  type CostResultMeta,
  type CostStatusResult,
  type CostToolMeta,
  type CostToolStatus,
  type RateLimitStates,
} from './schema.js';

export interface CostServerOptions {
  /** Clock in milliseconds that places calls in quota and rate-limit windows (tests pass a fake one). Default `Date.now`. */
  readonly now?: (() => number) | undefined;
  /** Namespace of every store key this extension writes. Default `"cost"`. */
  readonly keyPrefix?: string | undefined;
}

interface ResolvedOptions {
  readonly now: () => number;
  readonly keyPrefix: string;
}

/** Tries per counter when taking a refused charge back reveals room (others' charges were taken back meanwhile). */
const RESERVE_ATTEMPTS = 3;

function resolveOptions(options: CostServerOptions): ResolvedOptions {
  if (options.now !== undefined && typeof options.now !== 'function') {
    throw new ConfigurationError('INVALID_OPTION', 'costServer: now must be a function returning milliseconds');
  }
  const keyPrefix = options.keyPrefix ?? 'cost';
  if (typeof keyPrefix !== 'string' || keyPrefix.length === 0) {
    throw new ConfigurationError('INVALID_OPTION', 'costServer: keyPrefix must be a non-empty string');
  }
  return { now: options.now ?? Date.now, keyPrefix };
}

/** A counter this call holds a charge on, and the total right after charging it. */
interface Reservation {
  readonly meter: Meter;
  readonly total: number;
}

type ReserveOutcome =
  { readonly admitted: true; readonly total: number } | { readonly admitted: false; readonly used: number };

/**
 * Adds the charge, and takes it back when the total passes the limit: the
 * counter never admits more than its limit, whatever the concurrency, and a
 * refused call holds nothing once it is refused.
 */
async function reserve(store: Store, meter: Meter, nowMs: number): Promise<ReserveOutcome> {
  const options = { ttlMs: counterTtlMs(meter, nowMs) };
  for (let attempt = 1; ; attempt += 1) {
    const total = await store.increment(meter.key, meter.charge, options);
    if (admits(total, meter.limit)) return { admitted: true, total };
    if (meter.charge === 0) return { admitted: false, used: total };
    const after = await store.increment(meter.key, -meter.charge, options);
    if (attempt >= RESERVE_ATTEMPTS || !roomAfterUndo(after, meter.charge, meter.limit))
      return { admitted: false, used: after };
  }
}

async function release(store: Store, reservation: Reservation, nowMs: number): Promise<number> {
  const { meter } = reservation;
  if (meter.charge === 0) return reservation.total;
  return store.increment(meter.key, -meter.charge, { ttlMs: counterTtlMs(meter, nowMs) });
}

function refusal(meter: Meter, used: number, tool: string, meta: CostToolMeta, nowMs: number): ExtensionError {
  const resetsAt = new Date(meter.endMs).toISOString();
  const retryAfterSeconds = secondsUntil(meter.endMs, nowMs);
  if (meter.kind === 'quota') {
    const label = meta.cost.unit_label ?? 'units';
    const details: Record<string, unknown> = {
      tool,
      limit: meter.limit,
      used,
      requested_units: meter.charge,
      window_seconds: meter.windowSeconds,
      resets_at: resetsAt,
    };
    if (meta.cost.unit_label !== undefined) details.unit_label = meta.cost.unit_label;
    if (meter.pool !== undefined) details.pool = meter.pool;
    return new ExtensionError(
      'rate_limited',
      'QUOTA_EXHAUSTED',
      `The quota for "${tool}" is exhausted: ${used} of ${meter.limit} ${label} used in this window, and a call needs ${meter.charge}; it resets at ${resetsAt}`,
      {
        retryAfterSeconds,
        userActionable: true,
        suggestion: `Wait until ${resetsAt}, or choose a cheaper tool or a smaller request.`,
        details,
      },
    );
  }
  return new ExtensionError(
    'rate_limited',
    'RATE_LIMIT_EXCEEDED',
    `Too many calls of "${tool}": at most ${meter.limit} per ${windowWord(meter.windowSeconds)}; the window resets at ${resetsAt}`,
    {
      retryAfterSeconds,
      userActionable: false,
      suggestion: `Retry after ${retryAfterSeconds} seconds.`,
      details: {
        tool,
        limit: meter.limit,
        window: meter.name,
        window_seconds: meter.windowSeconds,
        resets_at: resetsAt,
      },
    },
  );
}

function windowWord(seconds: number): string {
  if (seconds === 60) return 'minute';
  if (seconds === 3_600) return 'hour';
  if (seconds === 86_400) return 'day';
  return `${seconds} seconds`;
}

function invalidParams(pointer: string, message: string): ExtensionError {
  return new ExtensionError('invalid_input', 'INVALID_INPUT', message, {
    userActionable: false,
    suggestion: 'Send { "tools": [<tool name>...] } naming tools that declare a cost, or no params for all of them.',
    details: { field: pointer.split('/')[1] ?? 'params', pointer },
  });
}

let statusParamsValidator: ReturnType<typeof Compile<typeof CostStatusParamsSchema>> | undefined;

/** What a settled call reports in `result._meta[COST_ID]`. */
function resultEntry(
  meta: CostToolMeta,
  unitsUsed: number,
  quota: CostResultMeta['quota'],
  rates: RateLimitStates | undefined,
): CostResultMeta {
  const entry: CostResultMeta = { units_used: unitsUsed, estimated_units: meta.cost.estimated_units };
  if (meta.cost.unit_label !== undefined) entry.unit_label = meta.cost.unit_label;
  if (quota !== undefined) entry.quota = quota;
  if (rates !== undefined && Object.keys(rates).length > 0) entry.rate_limits = rates;
  return entry;
}

/**
 * The server half of cost transparency. Tools declare their cost, latency,
 * quota and rate limits in `Tool._meta["io.github.mcp-ext/cost"]`; calls are
 * counted per principal with the store's atomic counters and refused with
 * `QUOTA_EXHAUSTED` / `RATE_LIMIT_EXCEEDED` (`rate_limited`) beyond them;
 * `requires_approval` tools ask a person through the confirmation gate.
 */
export function costServer(options: CostServerOptions = {}): ServerExtension {
  const config = resolveOptions(options);
  const metas = new WeakMap<ToolInfo, CostToolMeta | null>();
  const declared = new Map<string, CostToolMeta>();
  const pools = new Map<string, { tool: string; limit: number; windowSeconds: number }>();

  function metaOf(tool: ToolInfo): CostToolMeta | undefined {
    const cached = metas.get(tool);
    if (cached !== undefined) return cached ?? undefined;
    const raw = tool._meta?.[COST_ID];
    let meta: CostToolMeta | undefined;
    if (raw !== undefined) {
      const parsed = parseToolCost(raw);
      if (!parsed.ok) {
        const where = parsed.field === '' ? `_meta["${COST_ID}"]` : `_meta["${COST_ID}"].${parsed.field}`;
        throw new ConfigurationError(
          'INVALID_TOOL_META',
          `costServer: tool "${tool.name}": ${where}: ${parsed.message}`,
        );
      }
      meta = parsed.value;
      checkPool(tool.name, meta);
    }
    metas.set(tool, meta ?? null);
    return meta;
  }

  // Tools sharing a pool count into one counter, so they must agree on its limit and window.
  function checkPool(tool: string, meta: CostToolMeta): void {
    const quota = meta.quota;
    if (quota?.pool === undefined) return;
    const known = pools.get(quota.pool);
    if (known === undefined || known.tool === tool) {
      pools.set(quota.pool, { tool, limit: quota.limit, windowSeconds: quota.window_seconds });
      return;
    }
    if (known.limit !== quota.limit || known.windowSeconds !== quota.window_seconds) {
      throw new ConfigurationError(
        'INVALID_TOOL_META',
        `costServer: tool "${tool}": _meta["${COST_ID}"].quota: pool "${quota.pool}" is declared by "${known.tool}" with limit ${known.limit} per ${known.windowSeconds} s; every tool of a pool must declare the same limit and window_seconds`,
      );
    }
  }

  async function undoAll(
    store: Store,
    logger: Logger,
    reservations: readonly Reservation[],
    nowMs: number,
    tool: string,
  ): Promise<Map<Meter, number>> {
    const totals = new Map<Meter, number>();
    for (const reservation of reservations) {
      try {
        totals.set(reservation.meter, await release(store, reservation, nowMs));
      } catch (error) {
        // The charge stays counted until its window ends: the caller loses capacity, never gains it.
        logger.warn('cost: taking back a reserved charge failed', {
          tool,
          counter: reservation.meter.name,
          error: String(error),
        });
        totals.set(reservation.meter, reservation.total);
      }
    }
    return totals;
  }

  async function reserveAll(
    ctx: CallContext,
    meters: readonly Meter[],
    meta: CostToolMeta,
    nowMs: number,
    tool: string,
  ): Promise<Reservation[]> {
    const reservations: Reservation[] = [];
    for (const meter of meters) {
      let outcome: ReserveOutcome;
      try {
        outcome = await reserve(ctx.store, meter, nowMs);
      } catch (error) {
        await undoAll(ctx.store, ctx.logger, reservations, nowMs, tool);
        throw error;
      }
      if (!outcome.admitted) {
        await undoAll(ctx.store, ctx.logger, reservations, nowMs, tool);
        throw refusal(meter, outcome.used, tool, meta, nowMs);
      }
      reservations.push({ meter, total: outcome.total });
    }
    return reservations;
  }

  /** Keeps the charges of a call that ran, adjusted to the units it used; gives back everything for a call that did not. */
  async function settle(
    ctx: CallContext,
    meta: CostToolMeta,
    reservations: readonly Reservation[],
    outcome: { ran: boolean; failed: boolean; reported: number | undefined },
    nowMs: number,
    tool: string,
  ): Promise<CostResultMeta> {
    let unitsUsed = 0;
    let totals: Map<Meter, number>;
    if (!outcome.ran) {
      totals = await undoAll(ctx.store, ctx.logger, reservations, nowMs, tool);
    } else {
      unitsUsed = settledUnits(meta.cost.estimated_units, outcome.reported, outcome.failed);
      totals = new Map(reservations.map((reservation) => [reservation.meter, reservation.total]));
      const quota = reservations.find((reservation) => reservation.meter.kind === 'quota');
      const delta = quota === undefined ? 0 : chargeOf(unitsUsed) - quota.meter.charge;
      if (quota !== undefined && delta !== 0) {
        try {
          totals.set(
            quota.meter,
            await ctx.store.increment(quota.meter.key, delta, { ttlMs: counterTtlMs(quota.meter, nowMs) }),
          );
        } catch (error) {
          // The estimate stays charged: the result still reports what the call used.
          ctx.logger.warn('cost: charging the units a call used failed', { tool, error: String(error) });
        }
      }
    }
    let quotaEntry: CostResultMeta['quota'];
    const rates: RateLimitStates = {};
    for (const [meter, total] of totals) {
      if (meter.kind === 'quota') quotaEntry = quotaState(meter, total);
      else rates[meter.name as keyof RateLimitStates] = rateState(meter, total);
    }
    return resultEntry(meta, unitsUsed, quotaEntry, rates);
  }

  const middleware: ToolMiddleware = async (call, ctx, next) => {
    const meta = metaOf(ctx.tool);
    if (meta === undefined) return next();
    const nowMs = config.now();
    const meters = planMeters(meta, call.name, ctx.principal, nowMs, config.keyPrefix);
    const reservations = await reserveAll(ctx, meters, meta, nowMs, call.name);
    const quota = reservations.find((reservation) => reservation.meter.kind === 'quota');
    const reported = openCostCall(ctx, {
      category: meta.cost.category,
      estimatedUnits: meta.cost.estimated_units,
      unitLabel: meta.cost.unit_label,
      quota: quota === undefined ? undefined : quotaState(quota.meter, quota.total),
    });
    if (meta.cost.category === 'requires_approval') {
      const { estimated_units: units, unit_label: label } = meta.cost;
      requireApproval(ctx, {
        requestedBy: COST_PACKAGE,
        reason: `"${call.name}" is billed: each call uses about ${units} ${label === undefined ? (units === 1 ? 'unit' : 'units') : `of your ${label}`}.`,
      });
    }
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
    const negotiated = ctx.negotiated(COST_PACKAGE);
    // An input_required answer is not a tool result: it carries no extension entries.
    if (negotiated === undefined || isInputRequiredResult(result)) return result;
    return withResultMeta(result, negotiated.id, entry);
  };

  const status: MethodHandler = async (params, ctx) => {
    statusParamsValidator ??= Compile(CostStatusParamsSchema);
    if (!statusParamsValidator.Check(params)) {
      const issue = statusParamsValidator.Errors(params)[0];
      const pointer = issue?.instancePath ?? '';
      throw invalidParams(pointer, `params${pointer} ${issue?.message ?? 'is invalid'}`);
    }
    const names = params.tools ?? [...declared.keys()];
    const nowMs = config.now();
    const tools: CostToolStatus[] = [];
    for (const [index, name] of names.entries()) {
      const meta = declared.get(name);
      if (meta === undefined)
        throw invalidParams(`/tools/${index}`, `No tool named "${name}" declares a cost on this server`);
      const entry: CostToolStatus = { tool: name, cost: { ...meta.cost } };
      if (meta.latency !== undefined) entry.latency = meta.latency;
      const rates: RateLimitStates = {};
      for (const meter of planMeters(meta, name, ctx.principal, nowMs, config.keyPrefix)) {
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

  return {
    side: 'server',
    keepsCallerState: true,
    name: COST_PACKAGE,
    ids: [COST_ID],
    settings: { version: COST_WIRE_VERSION },
    peerSettings: CostSettingsSchema,
    stage: 'cost',
    middleware,
    methods: { status },
    toolMeta(tool) {
      // Validates the author's entry at registration, so a mistake fails at startup.
      const meta = metaOf(tool);
      if (meta === undefined) return undefined;
      declared.set(tool.name, meta);
      return JSON.parse(JSON.stringify(meta)) as Record<string, unknown>;
    },
  };
}

export { registerCostTools, statusSummary, COST_STATUS_TOOL } from './tools.js';

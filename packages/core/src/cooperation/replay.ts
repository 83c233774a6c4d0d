/**
 * Stored answers: a stage that can answer a call from a result it stored,
 * without running anything (an idempotency replay), offers a probe in its
 * `beginCall` hook; a gate further out asks it before asking a person, since
 * a call that runs nothing needs nobody's yes (CORE-45).
 */
import { StoreUnavailableError } from '../contract/errors.js';
import { defineLocal } from '../kit/locals.js';
import type { CallContext, RequestContext } from '../contract/extension.js';
import type { ToolCall } from '../contract/types.js';

/** Says whether the stage that offered it will answer `call` from a stored result. */
export type ReplayProbe = (call: ToolCall) => Promise<boolean>;

// Keyed by Symbol.for, so duplicate copies of core agree on the slot.
const replaySlot = defineLocal<ReplayProbe>('core/replay');

/** Offers the probe of a stage that answers some calls from stored results (call from `beginCall`). */
export function offerReplay(ctx: Pick<RequestContext, 'locals'>, probe: ReplayProbe): void {
  replaySlot.set(ctx, probe);
}

/**
 * Whether a stage further in will answer `call` from a stored result rather
 * than run it. `false` when no stage offered a probe, or when the probe
 * fails (logged, unless the store is out: the store reports its own
 * outages): a gate then asks as it would anyway. A `true` is a
 * forecast, not a promise; a gate that trusts it should `requireApproval`
 * without granting it, so the core refuses the handler if the call runs
 * after all (CORE-22).
 */
export async function willReplay(ctx: Pick<CallContext, 'locals' | 'logger'>, call: ToolCall): Promise<boolean> {
  const probe = replaySlot.get(ctx);
  if (probe === undefined) return false;
  try {
    return await probe(call);
  } catch (error) {
    if (StoreUnavailableError.isInstance(error)) return false;
    ctx.logger.warn('core: a replay probe failed; the call is gated as usual', {
      tool: call.name,
      error: String(error),
    });
    return false;
  }
}

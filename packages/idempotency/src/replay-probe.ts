/**
 * Stored answers: the server half, which can answer a call from a result it
 * stored without running anything (a replay), offers a probe in its
 * `beginCall` hook; a gate further out (confirmation) asks it from this
 * SDK-free entry before asking a person, since a call that runs nothing needs
 * nobody's yes (IDEM-17).
 */
import { StoreUnavailableError, type CallContext, type RequestContext, type ToolCall } from '@ext/core';
import { defineLocal } from '@ext/core/kit';

/** Says whether the server half will answer `call` from a stored result. */
export type ReplayProbe = (call: ToolCall) => Promise<boolean>;

// Keyed by Symbol.for, so two installed copies of this package agree on the slot.
const replaySlot = defineLocal<ReplayProbe>('idempotency/replay');

/** Offers the probe of the stage that answers some calls from stored results (from its `beginCall`). */
export function offerReplay(ctx: Pick<RequestContext, 'locals'>, probe: ReplayProbe): void {
  replaySlot.set(ctx, probe);
}

/**
 * Whether the idempotency stage, further in, will answer `call` from a
 * stored result rather than run it. `false` when no stage offered a probe, or when the probe
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
    ctx.logger.warn('idempotency: a replay probe failed; the call is gated as usual', {
      tool: call.name,
      error: String(error),
    });
    return false;
  }
}

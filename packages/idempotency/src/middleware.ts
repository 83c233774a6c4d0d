/**
 * The tool-call middleware: a call carrying a key executes at most once per
 * key (per principal and tool); a repeat replays the stored result, waits
 * for the execution in flight, or is refused when its arguments differ.
 */
import { withResultMeta, type InputFault } from '@ext/core/kit';
import { type CallContext, type ToolCall, type ToolMiddleware, type ToolResult } from '@ext/core';
import { claimKey, countClaim, executeClaimed, type KeyedCall } from './claims.js';
import { conflictError, inProgressError, invalidMetaError, unreadableError } from './errors.js';
import { callFingerprint, parseIdempotencyMeta, participates, recordKey, settledChannel } from './logic.js';
import type { IdempotencyConfig } from './options.js';
import { decide, type Decision } from './records.js';
import { IDEMPOTENCY_ID } from './schema.js';
import { openWaiter, type Waiter } from './waiter.js';
import { type ReplayProbe } from './replay-probe.js';

/** Decides on the key's record until the call is replayed, executed under a claim of its own, or refused. */
async function runOnce(keyed: KeyedCall): Promise<ToolResult> {
  const { config, ctx, id, request, storeKey } = keyed;
  const { store } = ctx;
  const deadline = performance.now() + config.inFlightWaitMs;
  const inProgress = () => inProgressError(request.key, config.inProgressRetryAfterSeconds);
  let waiter: Waiter | undefined;
  // A fresh key (the common case) is claimed outright, without reading it first; only a key found taken is read and decided on.
  let optimistic = true;
  try {
    for (;;) {
      const decision: Decision = optimistic
        ? { kind: 'claim', expected: undefined }
        : decide(await store.get(storeKey), keyed.fingerprint);
      const unread = optimistic;
      optimistic = false;
      switch (decision.kind) {
        case 'replay': {
          const { record } = decision;
          return withResultMeta(record.result, id, {
            idempotency_key: request.key,
            was_replay: true,
            original_timestamp: record.started_at,
          });
        }
        case 'conflict':
          throw conflictError(id, request.key);
        case 'unreadable':
          throw unreadableError();
        case 'wait':
          // Subscribe first, then re-read: a completion between the two reads cannot be missed.
          if (waiter === undefined) {
            waiter = await openWaiter(store, settledChannel(storeKey));
            continue;
          }
          if (performance.now() >= deadline) throw inProgress();
          await waiter.wait(Math.max(1, Math.min(config.pollIntervalMs, deadline - performance.now())), ctx.signal);
          continue;
        case 'claim': {
          const claim = await claimKey(keyed, decision.expected);
          if (claim === undefined) {
            // The key is taken (the first, unread try), or another caller changed the record first: read and decide again.
            if (!unread && performance.now() >= deadline) throw inProgress();
            continue;
          }
          // Counted once the key is ours, so a known key never touches the budget and still replays at the limit (IDEM-13).
          const undoBudget = await countClaim(keyed, claim);
          if (waiter !== undefined) {
            await waiter.close();
            waiter = undefined;
          }
          return await executeClaimed(keyed, claim, undoBudget);
        }
      }
    }
  } finally {
    await waiter?.close();
  }
}

/** What a call's key names, read as the stage reads it: `undefined` when the call does not take part. */
type KeyedRequest = Pick<KeyedCall, 'id' | 'request' | 'storeKey' | 'fingerprint'>;

/**
 * Reads the key `call` carries; an entry that is not a valid one is a
 * `fault` (IDEM-4). The entry is read whether or not the client declared
 * the extension (IDEM-3a): a client that sent a key meant the call to run
 * once, and ignoring the key would let its retry run the tool again.
 */
function readKey(
  config: IdempotencyConfig,
  call: ToolCall,
  ctx: CallContext,
): KeyedRequest | { readonly fault: InputFault } | undefined {
  const id = ctx.negotiated(IDEMPOTENCY_ID)?.id ?? IDEMPOTENCY_ID;
  const raw = call.meta[id];
  if (raw === undefined || !participates(ctx.tool, config.tools, id)) return undefined;
  const parsed = parseIdempotencyMeta(raw, id, config);
  if (!parsed.ok) return { fault: parsed };
  return {
    id,
    request: parsed.value,
    storeKey: recordKey(config.keyPrefix, ctx.principal, call.name, parsed.value.key),
    fingerprint: callFingerprint(call.name, call.arguments),
  };
}

/**
 * The probe a gate asks before asking a person (core `willReplay`): `true`
 * when the key holds a completed result for these very arguments, which the
 * stage will replay without running anything (IDEM-17).
 */
export function replayProbe(config: IdempotencyConfig, ctx: CallContext): ReplayProbe {
  return async (call) => {
    const keyed = readKey(config, call, ctx);
    if (keyed === undefined || 'fault' in keyed) return false;
    return decide(await ctx.store.get(keyed.storeKey), keyed.fingerprint).kind === 'replay';
  };
}

/** The middleware of the `idempotency` stage. */
export function idempotencyMiddleware(config: IdempotencyConfig): ToolMiddleware {
  return async (call, ctx, next) => {
    const keyed = readKey(config, call, ctx);
    if (keyed === undefined) return next();
    if ('fault' in keyed) throw invalidMetaError(keyed.fault);
    return runOnce({ config, call, ctx, next, ...keyed });
  };
}

/**
 * A key's in-flight claim in the store: taking it, counting it against the
 * caller's record budget, keeping its lease alive while the handler runs,
 * and settling it as completed (the result to replay) or released.
 */
import { randomUUID } from 'node:crypto';
import { withResultMeta, type JsonValue } from '@ext/core/kit';
import { type CallContext, type Store, type ToolCall, type ToolResult } from '@ext/core';
import { reserveBudget } from './budget.js';
import { setLocalCallInfo } from './locals.js';
import { settledChannel, storableResult, type IdempotencyRequest } from './logic.js';
import type { IdempotencyConfig } from './options.js';
import {
  completeRecord,
  inFlightRecord,
  recordToJson,
  releaseRecord,
  type InFlightRecord,
  type ReleasedRecord,
} from './records.js';

/** One call under one key: what every step of its handling needs. */
export interface KeyedCall {
  readonly config: IdempotencyConfig;
  readonly call: ToolCall;
  readonly ctx: CallContext;
  readonly next: (call?: ToolCall) => Promise<ToolResult>;
  /** The negotiated identifier, under which the result's `_meta` entry goes. */
  readonly id: string;
  readonly request: IdempotencyRequest;
  readonly storeKey: string;
  readonly fingerprint: string;
}

/** A claim this execution holds, and the exact JSON stored for it (the expected value of every later swap). */
export interface Claim {
  readonly record: InFlightRecord;
  readonly json: JsonValue;
}

/** Claims the key, atomically replacing `expected` (absent or released); `undefined` when another write came first. */
export async function claimKey(keyed: KeyedCall, expected: ReleasedRecord | undefined): Promise<Claim | undefined> {
  const { config, ctx, storeKey } = keyed;
  const record = inFlightRecord(keyed.fingerprint, randomUUID(), new Date(config.now()).toISOString());
  const json = recordToJson(record);
  const won =
    expected === undefined
      ? await ctx.store.setIfAbsent(storeKey, json, { ttlMs: config.leaseMs })
      : await ctx.store.compareAndSet(storeKey, recordToJson(expected), json, { ttlMs: config.leaseMs });
  return won ? { record, json } : undefined;
}

/** Frees a claimed key, unless another claim replaced it, so a retry with the key can run. */
async function releaseClaim(config: IdempotencyConfig, store: Store, storeKey: string, claim: Claim): Promise<void> {
  const released = releaseRecord(claim.record, claim.record.claim_id);
  if (released) await store.compareAndSet(storeKey, claim.json, recordToJson(released), { ttlMs: config.leaseMs });
}

/**
 * Counts a new claim against the caller's record budget; returns the undo.
 * A claim the budget refuses is released, waking any duplicate waiting on it.
 */
export async function countClaim(keyed: KeyedCall, claim: Claim): Promise<() => Promise<void>> {
  const { config, ctx, storeKey } = keyed;
  try {
    return await reserveBudget(config, ctx.store, ctx.principal);
  } catch (error) {
    const giveBack = async (): Promise<void> => {
      await releaseClaim(config, ctx.store, storeKey, claim);
      await ctx.store.publish(settledChannel(storeKey), 'released');
    };
    await giveBack().catch((releaseError: unknown) => {
      ctx.logger.warn('idempotency: releasing a key refused by the record budget failed', {
        tool: keyed.call.name,
        error: String(releaseError),
      });
    });
    throw error;
  }
}

/** Renews the claim's lease every third of it while the handler runs; returns the stop. */
function keepLease(keyed: KeyedCall, claim: Claim): () => void {
  const { config, call, ctx, storeKey } = keyed;
  const { store, logger } = ctx;
  let lost = false;
  const renew = async (): Promise<void> => {
    const kept = await store.compareAndSet(storeKey, claim.json, claim.json, { ttlMs: config.leaseMs });
    if (!kept && !lost) {
      lost = true;
      logger.warn('idempotency: in-flight claim was lost while the tool ran (lease expired)', { tool: call.name });
    }
  };
  const heartbeat = setInterval(
    () => {
      renew().catch((error: unknown) => {
        logger.warn('idempotency: renewing the in-flight claim failed', { tool: call.name, error: String(error) });
      });
    },
    Math.floor(config.leaseMs / 3),
  );
  heartbeat.unref();
  return () => {
    clearInterval(heartbeat);
  };
}

/**
 * Runs the handler under the claim, then settles the key: a JSON result is
 * stored to replay; a failure, an error result or a result that is not
 * JSON frees the key for a retry and gives back its budget.
 */
export async function executeClaimed(
  keyed: KeyedCall,
  claim: Claim,
  undoBudget: () => Promise<void>,
): Promise<ToolResult> {
  const { config, call, ctx, id, request, storeKey } = keyed;
  const { store, logger } = ctx;
  const meta = { idempotency_key: request.key, was_replay: false, original_timestamp: claim.record.started_at };
  const stopLease = keepLease(keyed, claim);

  // Waiters also poll, so a lost announcement only delays them: log it instead of failing the call.
  const announce = async (state: 'released' | 'completed'): Promise<void> => {
    await store.publish(settledChannel(storeKey), state).catch((error: unknown) => {
      logger.warn('idempotency: announcing a settled key failed', { tool: call.name, error: String(error) });
    });
  };
  const release = async (): Promise<void> => {
    await releaseClaim(config, store, storeKey, claim);
    await undoBudget();
    await announce('released');
  };

  setLocalCallInfo(ctx, { idempotencyKey: request.key, originalTimestamp: claim.record.started_at });
  let result: ToolResult;
  try {
    result = await keyed.next(call);
  } catch (error) {
    stopLease();
    // A failed execution frees the key so a retry with it can run; the original error still propagates.
    await release().catch((releaseError: unknown) => {
      logger.warn('idempotency: releasing the key after a failure failed', {
        tool: call.name,
        error: String(releaseError),
      });
    });
    throw error;
  }
  stopLease();

  const storable = result.isError === true ? undefined : storableResult(result, id);
  if (storable === undefined) {
    if (result.isError !== true)
      logger.warn('idempotency: the result is not JSON and was not stored', { tool: call.name });
    await release();
    return withResultMeta(result, id, meta);
  }
  const completed = completeRecord(claim.record, claim.record.claim_id, storable);
  const stored =
    completed !== undefined &&
    (await store.compareAndSet(storeKey, claim.json, recordToJson(completed), { ttlMs: request.ttlSeconds * 1000 }));
  if (!stored) {
    logger.warn('idempotency: the result could not be recorded because the claim was lost', { tool: call.name });
  }
  await announce('completed');
  return withResultMeta(result, id, meta);
}

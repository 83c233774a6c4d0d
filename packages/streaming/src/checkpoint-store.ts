/**
 * Checkpoints in the store: saving one (with the fencing check that a newer
 * execution did not take over), reading the one a resume names, and taking
 * an execution's epoch.
 */
import { randomBytes } from 'node:crypto';
import { canonicalJson, type JsonValue } from '@ext/core/kit';
import { ConfigurationError, type CallContext } from '@ext/core';
import {
  checkpointKey,
  checkpointToJson,
  CHECKPOINT_RECORD_VERSION,
  decideResume,
  mintCheckpointToken,
  operationKey,
  TOKEN_RANDOM_BYTES,
  tokenDigest,
  type CheckpointRecord,
  type ResumeDecision,
  type ResumeQuery,
} from './checkpoints.js';
import type { ActiveOperation, StreamSetup } from './operation-stream.js';
import type { ResolvedOptions } from './options.js';
import { superseded } from './refusals.js';
import { STREAMING_ID } from './schema.js';

/** Throws the author's error when `state` is not JSON, or larger than `maxStateBytes` as canonical JSON. */
function assertStateFits(tool: string, state: JsonValue, maxStateBytes: number): void {
  let size: number;
  try {
    size = Buffer.byteLength(canonicalJson(state));
  } catch (cause) {
    throw new ConfigurationError(
      'INVALID_CHECKPOINT_STATE',
      `tool "${tool}": checkpoint state must be JSON (${String(cause)})`,
    );
  }
  if (size > maxStateBytes) {
    throw new ConfigurationError(
      'CHECKPOINT_TOO_LARGE',
      `tool "${tool}": checkpoint state is ${size} bytes, more than maxStateBytes (${maxStateBytes})`,
    );
  }
}

/**
 * Saves `state` as the checkpoint before chunk `nextSequence` and returns
 * its token; `undefined` when the call is not resumable. Aborts `fence`
 * and throws `OPERATION_SUPERSEDED` when a newer execution took over.
 */
export async function saveCheckpoint(
  ctx: CallContext,
  setup: StreamSetup,
  fence: AbortController,
  state: JsonValue,
  nextSequence: number,
): Promise<string | undefined> {
  const { config, toolCheckpoints, active } = setup;
  const tool = ctx.tool.name;
  if (toolCheckpoints === false) {
    throw new ConfigurationError(
      'CHECKPOINTS_NOT_DECLARED',
      `tool "${tool}" saves a checkpoint but does not declare it: register it with _meta: { "${STREAMING_ID}": { checkpoints: true } }`,
    );
  }
  if (config === undefined || active === undefined || active.epoch === undefined) return undefined;
  assertStateFits(tool, state, config.maxStateBytes);
  await assertCurrent(ctx, config, active, active.epoch, fence);
  const now = config.now();
  const record: CheckpointRecord = {
    v: CHECKPOINT_RECORD_VERSION,
    operation_id: active.operationId,
    tool,
    arguments: active.argumentsDigest,
    state,
    next_sequence: nextSequence,
    created_at: now,
    expires_at: now + config.ttlMs,
  };
  const token = mintCheckpointToken(randomBytes(TOKEN_RANDOM_BYTES), record.expires_at);
  await ctx.store.set(checkpointKey(config.keyPrefix, ctx.principal, tokenDigest(token)), checkpointToJson(record), {
    ttlMs: config.ttlMs,
  });
  return token;
}

/**
 * Fencing: a newer execution of the same operation (a resume) bumped the
 * epoch, so this one must stop rather than write checkpoints a client
 * could resume from twice. The compare-and-set also renews the epoch's TTL.
 */
async function assertCurrent(
  ctx: CallContext,
  config: ResolvedOptions,
  active: ActiveOperation,
  epoch: number,
  fence: AbortController,
): Promise<void> {
  const { store, principal } = ctx;
  const key = operationKey(config.keyPrefix, principal, active.operationId);
  if (await store.compareAndSet(key, epoch, epoch, { ttlMs: config.ttlMs })) return;
  // An epoch that merely expired during a very long run is re-created, not treated as taken over.
  if ((await store.get(key)) === undefined && (await store.setIfAbsent(key, epoch, { ttlMs: config.ttlMs }))) return;
  const error = superseded(active.operationId);
  fence.abort(error);
  throw error;
}

/** Looks up the checkpoint a resume request names and decides whether the call may continue from it. */
export async function findResume(
  ctx: CallContext,
  config: ResolvedOptions,
  query: ResumeQuery,
): Promise<ResumeDecision> {
  const key = checkpointKey(config.keyPrefix, ctx.principal, tokenDigest(query.token));
  return decideResume(query, await ctx.store.get(key));
}

/** Takes a new epoch for an execution of `operationId`, which fences off any older one still running. */
export function takeEpoch(ctx: CallContext, config: ResolvedOptions, operationId: string): Promise<number> {
  return ctx.store.increment(operationKey(config.keyPrefix, ctx.principal, operationId), 1, { ttlMs: config.ttlMs });
}

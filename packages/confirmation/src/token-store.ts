/**
 * Tokens and grants in the store: issuing them, redeeming a token once,
 * drawing one call on a grant, and approving a token for a batch. Each
 * decision is audited once, through `decide`; the checks themselves are in
 * `records.ts`.
 */
import { randomBytes } from 'node:crypto';
import type { RequestContext } from '@ext/core';
import { decide, type GatedCall } from './decisions.js';
import { callHash, toolDigest } from './logic.js';
import type { ConfirmationConfig } from './options.js';
import {
  checkGrant,
  checkToken,
  grantKey,
  grantUsesKey,
  parseGrantRecord,
  parseTokenRecord,
  recordJson,
  tokenKey,
  type GrantRecord,
  type TokenRecord,
  type TokenRefusal,
} from './records.js';
import type { GrantParams, GrantResult } from './schema.js';

/** 256 random bits, base64url: unguessable (CONF-8). */
export function newSecret(): string {
  return randomBytes(32).toString('base64url');
}

/** Stores a pending token bound to this caller, tool and arguments, and audits it. */
export async function issueToken(
  gated: GatedCall,
  message: string,
): Promise<{ readonly token: string; readonly record: TokenRecord }> {
  const { config, call, ctx, gate } = gated;
  const token = newSecret();
  const now = config.now();
  const record: TokenRecord = {
    v: 1,
    tool: call.name,
    args_hash: callHash(ctx.tool, call.arguments),
    principal: ctx.principal,
    message,
    risk_level: gate.riskLevel,
    issued_at: now,
    expires_at: now + config.tokenTtlMs,
    state: 'pending',
  };
  const key = tokenKey(config.keyPrefix, token);
  await ctx.store.set(key, recordJson(record), { ttlMs: config.tokenTtlMs + config.retentionMs });
  return decide(
    gated,
    { kind: 'token_issued', token },
    { run: () => ({ token, record }), undo: () => ctx.store.delete(key) },
  );
}

/** Uses up `token` for this call and runs it, or throws why it cannot (CONF-9, CONF-10). */
export async function redeemToken<T>(gated: GatedCall, token: string, run: () => Promise<T>): Promise<T> {
  const { config, call, ctx } = gated;
  const key = tokenKey(config.keyPrefix, token);
  const stored = await ctx.store.get(key);
  const record = parseTokenRecord(stored);
  const refusal = checkToken(record, {
    principal: ctx.principal,
    now: config.now(),
    call: { tool: call.name, argsHash: callHash(ctx.tool, call.arguments) },
  });
  if (refusal !== undefined || record === undefined || stored === undefined)
    return decide(gated, { kind: 'token_refused', code: refusal ?? 'CONFIRMATION_TOKEN_INVALID', token });
  const usedRecord: TokenRecord = { ...record, state: 'used', used_at: config.now() };
  const used = recordJson(usedRecord);
  // Exactly one of several concurrent retries wins the swap (CONF-10); the others see a replay.
  const won = await ctx.store.compareAndSet(key, stored, used, { ttlMs: config.retentionMs });
  if (!won) return decide(gated, { kind: 'token_refused', code: 'CONFIRMATION_TOKEN_REPLAYED', token });
  const redeemed = { kind: 'token_redeemed', token, riskLevel: record.risk_level, batchId: record.batch_id } as const;
  return decide(gated, redeemed, {
    run,
    // An approval nobody recorded was not spent: the token is unused again.
    undo: () => ctx.store.compareAndSet(key, used, stored, { ttlMs: tokenTtl(config, record) }),
  });
}

/** Counts one call against the grant and runs it with the calls left, or throws why the grant does not cover it. */
export async function drawGrant<T>(
  gated: GatedCall,
  grantId: string,
  run: (remaining: number) => Promise<T>,
): Promise<T> {
  const { config, call, ctx } = gated;
  const record = parseGrantRecord(await ctx.store.get(grantKey(config.keyPrefix, grantId)));
  const refusal = checkGrant(record, {
    principal: ctx.principal,
    tool: call.name,
    toolDigest: toolDigest(ctx.tool),
    now: config.now(),
  });
  if (refusal !== undefined || record === undefined)
    return decide(gated, { kind: 'grant_refused', code: refusal ?? 'CONFIRMATION_GRANT_INVALID', grantId });
  const usesKey = grantUsesKey(config.keyPrefix, grantId);
  const uses = await ctx.store.increment(usesKey, 1, {
    ttlMs: record.expires_at - record.issued_at + config.retentionMs,
  });
  if (uses > record.max_calls)
    return decide(gated, { kind: 'grant_refused', code: 'CONFIRMATION_GRANT_EXHAUSTED', grantId });
  return decide(
    gated,
    { kind: 'grant_used', grantId, uses },
    // A use nobody recorded is not counted.
    { run: () => run(record.max_calls - uses), undo: () => ctx.store.increment(usesKey, -1) },
  );
}

/** How long a token is kept from now: until it expires, and for the retention after. */
function tokenTtl(config: ConfirmationConfig, record: TokenRecord): number {
  return Math.max(1, record.expires_at - config.now()) + config.retentionMs;
}

/** Marks one of the caller's pending tokens approved as part of `batchId`; `undefined` when it was, else why not. */
export async function approveToken(
  config: ConfirmationConfig,
  ctx: RequestContext,
  token: string,
  batchId: string,
): Promise<TokenRefusal | undefined> {
  const key = tokenKey(config.keyPrefix, token);
  const stored = await ctx.store.get(key);
  const record = parseTokenRecord(stored);
  const refusal = checkToken(record, { principal: ctx.principal, now: config.now() });
  if (refusal !== undefined || record === undefined || stored === undefined)
    return refusal ?? 'CONFIRMATION_TOKEN_INVALID';
  const approvedRecord: TokenRecord = { ...record, state: 'approved', batch_id: batchId };
  const won = await ctx.store.compareAndSet(key, stored, recordJson(approvedRecord), {
    ttlMs: tokenTtl(config, record),
  });
  return won ? undefined : 'CONFIRMATION_TOKEN_REPLAYED';
}

/** Stores a grant of `params.max_calls` calls of one tool (as `digest` defines it) for this caller, and audits it. */
export async function issueGrant(
  config: ConfirmationConfig,
  ctx: RequestContext,
  params: GrantParams,
  digest: string | undefined,
): Promise<GrantResult> {
  const grantId = newSecret();
  const now = config.now();
  const record: GrantRecord = {
    v: 1,
    tool: params.tool,
    principal: ctx.principal,
    max_calls: params.max_calls,
    issued_at: now,
    expires_at: now + params.duration_seconds * 1000,
    ...(digest === undefined ? {} : { tool_digest: digest }),
  };
  const key = grantKey(config.keyPrefix, grantId);
  await ctx.store.set(key, recordJson(record), { ttlMs: params.duration_seconds * 1000 + config.retentionMs });
  const result: GrantResult = {
    grant_id: grantId,
    tool: params.tool,
    max_calls: params.max_calls,
    expires_at: new Date(record.expires_at).toISOString(),
  };
  const scope = { config, store: ctx.store, principal: ctx.principal, tool: params.tool };
  return decide(
    scope,
    { kind: 'grant_issued', grantId, maxCalls: params.max_calls },
    { run: () => result, undo: () => ctx.store.delete(key) },
  );
}

/**
 * Tokens and grants in the store: issuing them, redeeming a token once,
 * drawing one call on a grant, and approving a token for a batch. Every
 * decision is audited; the checks themselves are in `records.ts`.
 */
import { randomBytes } from 'node:crypto';
import type { CallContext, RequestContext, ToolCall } from '@ext/core';
import { audit } from './audit.js';
import { callHash, toolDigest, type ToolGate } from './logic.js';
import type { ConfirmationConfig } from './options.js';
import {
  checkGrant,
  checkToken,
  grantKey,
  grantUsesKey,
  parseGrantRecord,
  parseTokenRecord,
  recordJson,
  secretDigest,
  tokenKey,
  type GrantRecord,
  type TokenRecord,
  type TokenRefusal,
} from './records.js';
import { refusalError, type Refusal } from './refusals.js';
import type { GrantParams, GrantResult } from './schema.js';

/** 256 random bits, base64url: unguessable (CONF-8). */
export function newSecret(): string {
  return randomBytes(32).toString('base64url');
}

/** Stores a pending token bound to this caller, tool and arguments, and audits it. */
export async function issueToken(
  config: ConfirmationConfig,
  call: ToolCall,
  ctx: CallContext,
  gate: ToolGate,
  message: string,
): Promise<{ readonly token: string; readonly record: TokenRecord }> {
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
  await ctx.store.set(tokenKey(config.keyPrefix, token), recordJson(record), {
    ttlMs: config.tokenTtlMs + config.retentionMs,
  });
  await audit(config, ctx.store, {
    event: 'token_issued',
    principal: ctx.principal,
    tool: call.name,
    risk_level: gate.riskLevel,
    ref: secretDigest(token),
  });
  return { token, record };
}

/** Audits a refused token or grant, then throws its error. */
async function refuse(
  config: ConfirmationConfig,
  call: ToolCall,
  ctx: CallContext,
  event: 'token_refused' | 'grant_refused',
  code: Refusal,
  secret: string,
): Promise<never> {
  await audit(config, ctx.store, { event, principal: ctx.principal, tool: call.name, code, ref: secretDigest(secret) });
  throw refusalError(code, { tool: call.name });
}

/** Uses up `token` for this call, or throws why it cannot (CONF-9, CONF-10). */
export async function redeemToken(
  config: ConfirmationConfig,
  call: ToolCall,
  ctx: CallContext,
  token: string,
): Promise<void> {
  const key = tokenKey(config.keyPrefix, token);
  const stored = await ctx.store.get(key);
  const record = parseTokenRecord(stored);
  const refusal = checkToken(record, {
    principal: ctx.principal,
    now: config.now(),
    call: { tool: call.name, argsHash: callHash(ctx.tool, call.arguments) },
  });
  if (refusal !== undefined || record === undefined || stored === undefined)
    return refuse(config, call, ctx, 'token_refused', refusal ?? 'CONFIRMATION_TOKEN_INVALID', token);
  const used: TokenRecord = { ...record, state: 'used', used_at: config.now() };
  // Exactly one of several concurrent retries wins the swap (CONF-10); the others see a replay.
  const won = await ctx.store.compareAndSet(key, stored, recordJson(used), { ttlMs: config.retentionMs });
  if (!won) return refuse(config, call, ctx, 'token_refused', 'CONFIRMATION_TOKEN_REPLAYED', token);
  await audit(config, ctx.store, {
    event: 'token_redeemed',
    principal: ctx.principal,
    tool: call.name,
    risk_level: record.risk_level,
    batch_id: record.batch_id,
    ref: secretDigest(token),
  });
}

/** Counts one call against the grant; returns the calls it has left, or throws why it does not cover this one. */
export async function drawGrant(
  config: ConfirmationConfig,
  call: ToolCall,
  ctx: CallContext,
  grantId: string,
): Promise<number> {
  const record = parseGrantRecord(await ctx.store.get(grantKey(config.keyPrefix, grantId)));
  const refusal = checkGrant(record, {
    principal: ctx.principal,
    tool: call.name,
    toolDigest: toolDigest(ctx.tool),
    now: config.now(),
  });
  if (refusal !== undefined || record === undefined)
    return refuse(config, call, ctx, 'grant_refused', refusal ?? 'CONFIRMATION_GRANT_INVALID', grantId);
  const uses = await ctx.store.increment(grantUsesKey(config.keyPrefix, grantId), 1, {
    ttlMs: record.expires_at - record.issued_at + config.retentionMs,
  });
  if (uses > record.max_calls)
    return refuse(config, call, ctx, 'grant_refused', 'CONFIRMATION_GRANT_EXHAUSTED', grantId);
  await audit(config, ctx.store, {
    event: 'grant_used',
    principal: ctx.principal,
    tool: call.name,
    count: uses,
    ref: secretDigest(grantId),
  });
  return record.max_calls - uses;
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
  const ttlMs = Math.max(1, record.expires_at - config.now()) + config.retentionMs;
  const won = await ctx.store.compareAndSet(key, stored, recordJson(approvedRecord), { ttlMs });
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
  await ctx.store.set(grantKey(config.keyPrefix, grantId), recordJson(record), {
    ttlMs: params.duration_seconds * 1000 + config.retentionMs,
  });
  await audit(config, ctx.store, {
    event: 'grant_issued',
    principal: ctx.principal,
    tool: params.tool,
    count: params.max_calls,
    ref: secretDigest(grantId),
  });
  return {
    grant_id: grantId,
    tool: params.tool,
    max_calls: params.max_calls,
    expires_at: new Date(record.expires_at).toISOString(),
  };
}

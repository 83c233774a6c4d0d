/** What an idempotent execution tells the inner pipeline stages and the handler, through `ctx.locals`. */
import { deprecatedAliases, defineLocal } from '@ext/core/kit';
import { type RequestContext } from '@ext/core';

/** What inner pipeline stages (transactions) and the handler can learn about an idempotent execution. */
export interface IdempotencyCallInfo {
  readonly idempotencyKey: string;
  /** When this execution started (RFC 3339); replays of it report the same time. */
  readonly originalTimestamp: string;
  /** @deprecated Use `idempotencyKey`; the snake_case spelling goes in the next major. */
  readonly idempotency_key: string;
  /** @deprecated Use `originalTimestamp`; the snake_case spelling goes in the next major. */
  readonly original_timestamp: string;
}

// Symbol.for inside, so duplicate copies of this package agree on the slot.
const callInfo = defineLocal<IdempotencyCallInfo>('idempotency/call-info');

/**
 * The idempotency key under which the current tool call executes, or
 * `undefined` when the call is not handled idempotently. Set only on the
 * first execution: a replay never reaches inner stages or the handler.
 */
export function getIdempotencyCallInfo(ctx: Pick<RequestContext, 'locals'>): IdempotencyCallInfo | undefined {
  return callInfo.get(ctx);
}

/** Tells the inner stages and the handler of this call the key it executes under. */
export function setLocalCallInfo(
  ctx: Pick<RequestContext, 'locals'>,
  info: Pick<IdempotencyCallInfo, 'idempotencyKey' | 'originalTimestamp'>,
): void {
  const { idempotencyKey, originalTimestamp } = info;
  const value = deprecatedAliases(
    '@ext/idempotency IdempotencyCallInfo',
    { idempotencyKey, originalTimestamp },
    { idempotency_key: 'idempotencyKey', original_timestamp: 'originalTimestamp' },
  );
  callInfo.set(ctx, value as IdempotencyCallInfo);
}

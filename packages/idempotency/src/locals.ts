import type { RequestContext } from '@ext/core';

// Symbol.for, so duplicate copies of this package agree on the slot.
const CALL_INFO = Symbol.for('io.github.mcp-ext/idempotency/call-info');

/** What inner pipeline stages (transactions) and the handler can learn about an idempotent execution. */
export interface IdempotencyCallInfo {
  readonly idempotency_key: string;
  /** When this execution started; replays of it report the same time. */
  readonly original_timestamp: string;
}

/**
 * The idempotency key under which the current tool call executes, or
 * `undefined` when the call is not handled idempotently. Set only on the
 * first execution: a replay never reaches inner stages or the handler.
 */
export function getIdempotencyCallInfo(ctx: Pick<RequestContext, 'locals'>): IdempotencyCallInfo | undefined {
  const value = ctx.locals.get(CALL_INFO);
  return value === undefined ? undefined : (value as IdempotencyCallInfo);
}

export function setLocalCallInfo(ctx: Pick<RequestContext, 'locals'>, info: IdempotencyCallInfo): void {
  ctx.locals.set(CALL_INFO, info);
}

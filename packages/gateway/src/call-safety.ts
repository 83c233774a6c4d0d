/**
 * What the gateway knows of a proxied call that makes it safe to send to its
 * upstream again after a fault that may have reached it: the tool's
 * read-only hint as offered (the upstream's, or the policy's `annotations`),
 * the idempotency key the call runs under (the idempotency stage runs before
 * the upstream call, and tells it the key it holds), and the policy's `retry`.
 */
import type { RequestContext } from '@ext/core';
import { getIdempotencyCallInfo } from '@ext/idempotency/server';
import type { GatewayTool } from './gateway-tool.js';
import type { CallSafety } from './upstream/index.js';

/** How a call to the upstream may be retried. */
export interface CallRetry {
  readonly safety: CallSafety;
  /** Tries in all, from the policy's `retry.attempts`; `undefined`: the upstream's. */
  readonly attempts?: number | undefined;
}

/** The retry of a call of `tool` running with `ctx`. */
export function callRetry(tool: GatewayTool, ctx: Pick<RequestContext, 'locals'>): CallRetry {
  const retry = tool.policy.retry;
  const safety: CallSafety = {
    readOnly: tool.annotations?.readOnlyHint === true,
    idempotencyKey: getIdempotencyCallInfo(ctx) !== undefined,
    policy: retry === undefined ? undefined : retry !== false,
  };
  return typeof retry === 'object' && retry.attempts !== undefined ? { safety, attempts: retry.attempts } : { safety };
}

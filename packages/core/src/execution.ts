import type { RequestContext } from './types.js';

// Symbol.for, so duplicate copies of core agree on the slot.
const HANDLER_STARTED = Symbol.for('io.github.mcp-ext/core/handler-started');

/**
 * Whether the tool handler of the current call was started. A middleware
 * learns after `next()` whether the call really ran, or was answered
 * without running (an idempotent replay, a confirmation request, a
 * refusal by an inner stage), e.g. to charge quota only for executions.
 */
export function handlerStarted(ctx: Pick<RequestContext, 'locals'>): boolean {
  return ctx.locals.get(HANDLER_STARTED) === true;
}

/** Records that the handler starts now (the core does, just before calling it). */
export function markHandlerStarted(ctx: Pick<RequestContext, 'locals'>): void {
  ctx.locals.set(HANDLER_STARTED, true);
}

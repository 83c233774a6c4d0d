/** Whether the tool handler of the current call started: the core records it, middlewares read it after `next()`. */
import type { RequestContext } from '../contract/extension.js';
import { defineLocal } from '../kit/locals.js';

// Keyed by Symbol.for, so duplicate copies of core agree on the slot.
const handlerStartedSlot = defineLocal<boolean>('core/handler-started');

/**
 * Whether the tool handler of the current call was started. A middleware
 * learns after `next()` whether the call really ran, or was answered
 * without running (an idempotent replay, a confirmation request, a
 * refusal by an inner stage), e.g. to charge quota only for executions.
 */
export function handlerStarted(ctx: Pick<RequestContext, 'locals'>): boolean {
  return handlerStartedSlot.get(ctx) === true;
}

/** Records that the handler starts now (the core does, just before calling it). */
export function markHandlerStarted(ctx: Pick<RequestContext, 'locals'>): void {
  handlerStartedSlot.set(ctx, true);
}

/** What a tool handler running as a task can reach through `ctx.locals`: the task and where it is stored. */
import { defineLocal } from '@ext/core/kit';
import { type RequestContext } from '@ext/core';
import type { TaskStoreScope } from './records.js';

/** The task the current tool call runs as. */
export interface RunningTask {
  readonly taskId: string;
  readonly scope: TaskStoreScope;
  /** Aborted when the task is cancelled (also the handler's `ctx.signal`). */
  readonly signal: AbortSignal;
}

// Symbol.for inside, so duplicate copies of this package agree on the slot.
export const runningTask = defineLocal<RunningTask>('tasks/running');

/** The task id the current tool call runs as, or `undefined` when it runs synchronously. */
export function getTaskId(ctx: Pick<RequestContext, 'locals'>): string | undefined {
  return runningTask.get(ctx)?.taskId;
}

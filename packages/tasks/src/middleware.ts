/**
 * The tool-call stage: a call to a task-supporting tool from a client that
 * declared the extension on this request (2026-07-28 era) is stored as a
 * task, started in the background and answered at once with the
 * `CreateTaskResult`; any other call runs as usual, or is refused with
 * -32021 when the tool requires a task (TASK-1 to TASK-4).
 */
import { ErrorCodes, WireError, type CallContext, type ToolMiddleware, type ToolResult } from '@ext/core';
import { randomUUID } from 'node:crypto';
import { createTaskResult, newTaskRecord } from './logic.js';
import type { TasksConfig } from './options.js';
import { createRecord, type TaskStoreScope } from './records.js';
import { startTask } from './runner.js';
import { TASKS_ID } from './schema.js';

/** -32021 naming the extension the client must declare (TASK-2). */
export function missingCapabilityError(): WireError {
  return new WireError(ErrorCodes.MissingRequiredClientCapability, 'Missing required client capability', {
    requiredCapabilities: { extensions: { [TASKS_ID]: {} } },
  });
}

/** Whether this request's client declared the extension, on the era that defines it. */
export function declaresTasks(ctx: Pick<CallContext, 'era' | 'negotiated'>): boolean {
  return ctx.era === 'modern' && ctx.negotiated(TASKS_ID) !== undefined;
}

export function scopeOf(config: TasksConfig, ctx: Pick<CallContext, 'store'>): TaskStoreScope {
  return { store: ctx.store, keyPrefix: config.keyPrefix, now: config.now };
}

export function tasksMiddleware(config: TasksConfig): ToolMiddleware {
  return async (call, ctx, next) => {
    const support = config.support(ctx.tool);
    if (support === 'forbidden') return next();
    if (!declaresTasks(ctx)) {
      if (support === 'required') throw missingCapabilityError();
      return next();
    }
    const scope = scopeOf(config, ctx);
    const record = newTaskRecord({
      taskId: randomUUID(),
      principal: ctx.principal,
      tool: call.name,
      now: config.now(),
      ttlMs: config.ttlMs,
      pollIntervalMs: config.pollIntervalMs,
    });
    await createRecord(scope, record);
    await startTask(scope, record.taskId, ctx, () => next(call), ctx.logger);
    return createTaskResult(record) as unknown as ToolResult;
  };
}

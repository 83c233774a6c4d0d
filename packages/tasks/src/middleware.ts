/**
 * The tool-call stage: a call to a task-supporting tool from a client that
 * declared the extension on this request (2026-07-28 era) is stored as a
 * task, started in the background and answered at once with the
 * `CreateTaskResult`; any other call runs as usual, or is refused with
 * -32021 when the tool requires a task (TASK-1 to TASK-4).
 */
import {
  ErrorCodes,
  WireError,
  type CallContext,
  type ToolCall,
  type ToolMiddleware,
  type ToolResult,
} from '@ext/core';
import { randomUUID } from 'node:crypto';
import { createTaskResult, newTaskRecord, type TaskRecord } from './logic.js';
import type { TasksConfig } from './options.js';
import { createRecord, type TaskStoreScope } from './records.js';
import { indexStream, resumingTask } from './recovery.js';
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

/** Tasks the startup scan looks through, newest kept. */
const INDEX_LENGTH = 10_000;

export function scopeOf(config: TasksConfig, ctx: Pick<CallContext, 'store'>): TaskStoreScope {
  return { store: ctx.store, keyPrefix: config.keyPrefix, now: config.now };
}

/** A new task for this call, running on this instance. */
function taskFor(config: TasksConfig, call: ToolCall, ctx: CallContext): TaskRecord {
  const now = config.now();
  return {
    ...newTaskRecord({
      taskId: randomUUID(),
      principal: ctx.principal,
      tool: call.name,
      now,
      ttlMs: config.ttlMs,
      pollIntervalMs: config.pollIntervalMs,
    }),
    call: { arguments: call.arguments, source: ctx.identity?.source ?? 'anonymous' },
    lease: { owner: config.instance, until: now + config.leaseMs },
    executions: 1,
  };
}

export function tasksMiddleware(config: TasksConfig): ToolMiddleware {
  return async (call, ctx, next) => {
    const scope = scopeOf(config, ctx);
    // A call this server makes itself to take up an interrupted task (TASK-20).
    const resumed = resumingTask.get(ctx);
    if (resumed !== undefined) {
      await startTask(config, scope, resumed, ctx, () => next(call));
      return createTaskResult(resumed) as unknown as ToolResult;
    }
    const support = config.support(ctx.tool, call, ctx);
    if (support === 'forbidden') return next();
    if (!declaresTasks(ctx)) {
      if (support === 'required') throw missingCapabilityError();
      return next();
    }
    const record = taskFor(config, call, ctx);
    await createRecord(scope, record);
    await scope.store.append(indexStream(scope), record.taskId, { maxLength: INDEX_LENGTH, ttlMs: config.ttlMs });
    await startTask(config, scope, record, ctx, () => next(call));
    return createTaskResult(record) as unknown as ToolResult;
  };
}

/**
 * `tasks/get`, `tasks/update` and `tasks/cancel` (SEP-2663): params checked
 * with the field named, refused with -32021 for a client that did not
 * declare the extension, and a task that is unknown, expired or another
 * principal's answered alike with -32602 (TASK-6 to TASK-9).
 */
import { ErrorCodes, WireError, type MethodHandler, type RequestContext } from '@ext/core';
import { firstViolation, invalidInputError, lazyValidator, pointerField, type SchemaViolation } from '@ext/core/kit';
import type { TSchema, Static } from 'typebox';
import { announceInput } from './input.js';
import { detailedTask } from './logic.js';
import { declaresTasks, missingCapabilityError, scopeOf } from './middleware.js';
import type { TasksConfig } from './options.js';
import { applyEvent, readRecord, signalTask } from './records.js';
import { recoverIfOrphaned, type TaskRunners } from './recovery.js';
import { TASKS_METHODS, TaskRefParamsSchema, UpdateTaskParamsSchema } from './schema.js';

const refParams = lazyValidator(TaskRefParamsSchema);
const updateParams = lazyValidator(UpdateTaskParamsSchema);

interface Validator {
  Check(value: unknown): boolean;
  Errors(value: unknown): Iterable<SchemaViolation>;
}

function parse<S extends TSchema>(
  validator: () => Validator,
  params: Record<string, unknown>,
  method: string,
): Static<S> {
  const compiled = validator();
  if (compiled.Check(params)) return params as Static<S>;
  const site = firstViolation(compiled.Errors(params));
  throw invalidInputError(
    {
      pointer: site.pointer,
      field: pointerField(site.pointer, 'params'),
      message: `${method}: params${site.pointer} ${site.message}`,
    },
    'Send taskId as a string (and inputResponses as an object on tasks/update).',
  );
}

function unknownTask(taskId: string): WireError {
  return new WireError(ErrorCodes.InvalidParams, `Unknown task: ${taskId}`, { taskId });
}

function gate(ctx: RequestContext): void {
  if (!declaresTasks(ctx)) throw missingCapabilityError();
}

const ACK = { resultType: 'complete' } as const;

/** The three methods, by their SEP-2663 names (served by the core under those names, CORE-40). */
export function taskMethods(config: TasksConfig, runners: TaskRunners): Record<string, MethodHandler> {
  return {
    async [TASKS_METHODS.get](params, ctx) {
      gate(ctx);
      const { taskId } = parse<typeof TaskRefParamsSchema>(refParams, params, 'tasks/get');
      const scope = scopeOf(config, ctx);
      const found = await readRecord(scope, taskId, ctx.principal);
      if (found === undefined) throw unknownTask(taskId);
      // A task whose runner died is settled by its policy before anyone is told it still runs (TASK-19).
      const record = (await recoverIfOrphaned(config, scope, found, runners.get(ctx.store), ctx.logger)) ?? found;
      return { ...ACK, ...detailedTask(record) };
    },
    async [TASKS_METHODS.update](params, ctx) {
      gate(ctx);
      const { taskId, inputResponses } = parse<typeof UpdateTaskParamsSchema>(updateParams, params, 'tasks/update');
      const scope = scopeOf(config, ctx);
      if ((await readRecord(scope, taskId, ctx.principal)) === undefined) throw unknownTask(taskId);
      await applyEvent(scope, taskId, { type: 'respond', responses: inputResponses });
      await announceInput(scope, taskId);
      return { ...ACK };
    },
    async [TASKS_METHODS.cancel](params, ctx) {
      gate(ctx);
      const { taskId } = parse<typeof TaskRefParamsSchema>(refParams, params, 'tasks/cancel');
      const scope = scopeOf(config, ctx);
      if ((await readRecord(scope, taskId, ctx.principal)) === undefined) throw unknownTask(taskId);
      await applyEvent(scope, taskId, { type: 'cancel', message: 'Cancelled by the client.' });
      await signalTask(scope, taskId, 'cancel');
      return { ...ACK };
    },
  };
}

/**
 * Tasks whose runner died: found when a task is read or when a server
 * attaches to the store, and settled by the tool's declared policy: failed
 * with an error that says so, or run again on this instance from the last
 * checkpoint (TASK-19, TASK-20).
 */
import { ErrorCodes, type Logger, type ServerAttachment, type Store, type ToolResult } from '@ext/core';
import { defineLocal } from '@ext/core/kit';
import { isOrphaned, isTerminal, type TaskError, type TaskRecord } from './logic.js';
import type { TasksConfig } from './options.js';
import { applyEvent, loadRecord, tryEvent, type TaskStoreScope } from './records.js';
import { jsonRpcErrorOf } from './runner.js';

/** Set on a call that resumes a stored task: the tasks stage runs it as that task instead of creating one. */
export const resumingTask = defineLocal<TaskRecord>('tasks/resuming');

export type RunTool = NonNullable<ServerAttachment['runTool']>;

/** How each store's server runs a call of its own accord (`attach` hands it over; SDK v2 only). */
export type TaskRunners = WeakMap<Store, RunTool>;

/** The error an interrupted task fails with under the `'fail'` policy. */
export function interruptedError(record: TaskRecord): TaskError {
  return {
    code: ErrorCodes.InternalError,
    message: 'The server running this task stopped before it finished; call the tool again to start over.',
    data: { reason: 'interrupted', taskId: record.taskId },
  };
}

/** The error a resumed task fails with when the stages outside the tasks stage refuse to run it again. */
export function refusedOnResumeError(record: TaskRecord, result: ToolResult): TaskError {
  // Whatever answered may not be a well-formed result: read it defensively.
  const blocks: unknown = result.content;
  const text = (Array.isArray(blocks) ? (blocks as unknown[]) : [])
    .flatMap((block) => {
      const { type, text: said } = (block ?? {}) as { type?: unknown; text?: unknown };
      return type === 'text' && typeof said === 'string' ? [said] : [];
    })
    .join('\n');
  return {
    code: ErrorCodes.InternalError,
    message: `The server taking this task up again after an interruption was refused: ${text || 'no reason given'}`,
    data: { reason: 'refused_on_resume', taskId: record.taskId },
  };
}

/** Whether the tasks stage took the resumed call (it answers with the task), as opposed to a stage outside it answering. */
function takenUp(result: ToolResult): boolean {
  return (result as { resultType?: unknown }).resultType === 'task';
}

/**
 * Runs the task's call again on this instance, as a resumption (charged
 * nothing again, CORE-47); what the outer stages refuse, or answer instead
 * of running it, fails the task: nobody else would ever settle it.
 */
function resume(
  scope: TaskStoreScope,
  claimed: TaskRecord,
  call: NonNullable<TaskRecord['call']>,
  runTool: RunTool,
  logger: Logger,
): void {
  const fail = (error: TaskError) =>
    applyEvent(scope, claimed.taskId, { type: 'fail', error }).catch((failure: unknown) => {
      logger.warn('tasks: could not record that a resumed task failed', { taskId: claimed.taskId, error: failure });
    });
  runTool({
    name: claimed.tool,
    arguments: call.arguments,
    identity: { principal: claimed.principal, source: call.source },
    resumes: true,
    prepare: (ctx) => {
      resumingTask.set(ctx, claimed);
    },
  }).then(
    async (result) => {
      if (!takenUp(result)) await fail(refusedOnResumeError(claimed, result));
    },
    async (error: unknown) => {
      await fail(jsonRpcErrorOf(error) ?? interruptedError(claimed));
    },
  );
}

/**
 * Settles `record` when its runner died, by its tool's policy; resolves to
 * the record as it now stands. Only one instance takes a task up again: the
 * one whose claim on the expired lease wins.
 */
export async function recoverIfOrphaned(
  config: TasksConfig,
  scope: TaskStoreScope,
  record: TaskRecord,
  runTool: RunTool | undefined,
  logger: Logger,
): Promise<TaskRecord | undefined> {
  // This instance is alive: a lapsed lease of its own means a slow renewal, not a dead runner.
  if (!isOrphaned(record, config.now()) || record.lease?.owner === config.instance) return record;
  const call = record.call;
  if (config.onInterrupt(record.tool) !== 'resume' || runTool === undefined || call === undefined) {
    return applyEvent(scope, record.taskId, { type: 'fail', error: interruptedError(record) });
  }
  const until = config.now() + config.leaseMs;
  const claim = { type: 'claim', owner: config.instance, until, execution: true } as const;
  // Won only by the claim that took the lapsed lease: a second reader on this very instance must not run it again.
  const { record: claimed, applied } = await tryEvent(scope, record.taskId, claim);
  if (claimed === undefined || !applied) return claimed;
  resume(scope, claimed, call, runTool, logger);
  return claimed;
}

/** The stream that lists every task created, for the scan at startup. */
export function indexStream(scope: TaskStoreScope): string {
  return `${scope.keyPrefix}/index`;
}

const PAGE = 100;

/** Looks at `taskId` until it ends: settles it when its runner dies, checks again when its lease should lapse. */
async function watch(
  config: TasksConfig,
  scope: TaskStoreScope,
  taskId: string,
  runTool: RunTool | undefined,
  logger: Logger,
): Promise<void> {
  const record = await loadRecord(scope, taskId);
  if (record === undefined || isTerminal(record.status)) return;
  const now = await recoverIfOrphaned(config, scope, record, runTool, logger);
  if (now === undefined || isTerminal(now.status) || now.lease?.owner === config.instance) return;
  const wait = Math.max(1, (now.lease?.until ?? config.now()) - config.now() + 1);
  setTimeout(() => {
    watch(config, scope, taskId, runTool, logger).catch((error: unknown) => {
      logger.warn('tasks: could not check a task for an interrupted runner', { taskId, error });
    });
  }, wait).unref();
}

/**
 * Goes through every task created on the store (the index) and watches each
 * one still running elsewhere: a server started after a crash takes up the
 * tasks the dead instance left.
 */
export async function scanForOrphans(
  config: TasksConfig,
  scope: TaskStoreScope,
  runTool: RunTool | undefined,
  logger: Logger,
): Promise<void> {
  let after: string | undefined;
  for (;;) {
    const entries = await scope.store.read(indexStream(scope), { after, limit: PAGE });
    for (const entry of entries) {
      if (typeof entry.value === 'string') await watch(config, scope, entry.value, runTool, logger);
    }
    const last = entries.at(-1);
    if (entries.length < PAGE || last === undefined) return;
    after = last.id;
  }
}

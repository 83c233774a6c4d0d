/**
 * Task records in the core `Store`: one key per task, written with the
 * task's remaining TTL (so an expired task is gone on every store), moved
 * only by compare-and-set through the state machine, and a channel per task
 * that tells the instance running it about cancellation and new input.
 */
import type { JsonValue } from '@ext/core/kit';
import type { Store } from '@ext/core';
import { isExpired, remainingTtlMs, transition, type TaskEvent, type TaskRecord } from './logic.js';

/** Where one server's tasks live. */
export interface TaskStoreScope {
  readonly store: Store;
  readonly keyPrefix: string;
  readonly now: () => number;
}

/** What travels on a task's channel. */
export type TaskSignal = 'cancel' | 'input';

const MAX_ATTEMPTS = 16;

export function taskKey(scope: TaskStoreScope, taskId: string): string {
  return `${scope.keyPrefix}/task/${taskId}`;
}

export function taskChannel(scope: TaskStoreScope, taskId: string): string {
  return `${scope.keyPrefix}/signal/${taskId}`;
}

function asRecord(value: JsonValue | undefined): TaskRecord | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  return value as unknown as TaskRecord;
}

/** Stores a new task; resolves once a read would find it (TASK-4). */
export async function createRecord(scope: TaskStoreScope, record: TaskRecord): Promise<void> {
  const stored = await scope.store.setIfAbsent(taskKey(scope, record.taskId), record as unknown as JsonValue, {
    ttlMs: remainingTtlMs(record, scope.now()),
  });
  if (!stored) throw new Error(`task id ${record.taskId} is already taken`);
}

/** The task, when it exists and has not expired, whoever it belongs to (the instance running it). */
export async function loadRecord(scope: TaskStoreScope, taskId: string): Promise<TaskRecord | undefined> {
  const record = asRecord(await scope.store.get(taskKey(scope, taskId)));
  return record === undefined || isExpired(record, scope.now()) ? undefined : record;
}

/** The task, when it exists, has not expired and belongs to `principal` (TASK-7, TASK-8). */
export async function readRecord(
  scope: TaskStoreScope,
  taskId: string,
  principal: string,
): Promise<TaskRecord | undefined> {
  const record = await loadRecord(scope, taskId);
  return record?.principal === principal ? record : undefined;
}

/** What applying an event came to: the record as it now stands, and whether this event changed it. */
export interface EventOutcome {
  /** `undefined` when the task is gone. */
  readonly record: TaskRecord | undefined;
  readonly applied: boolean;
}

/** Applies `event` atomically, saying whether it changed the record (a claim that won, say). */
export async function tryEvent(scope: TaskStoreScope, taskId: string, event: TaskEvent): Promise<EventOutcome> {
  const key = taskKey(scope, taskId);
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const raw = await scope.store.get(key);
    const current = asRecord(raw);
    const now = scope.now();
    if (current === undefined || isExpired(current, now)) return { record: undefined, applied: false };
    const next = transition(current, event, now);
    if (next === current) return { record: current, applied: false };
    const ttl = { ttlMs: remainingTtlMs(next, now) };
    if (await scope.store.compareAndSet(key, raw, next as unknown as JsonValue, ttl)) {
      return { record: next, applied: true };
    }
  }
  throw new Error(`task ${taskId}: too many concurrent updates`);
}

/**
 * Applies `event` atomically; resolves to the record as it now stands
 * (unchanged when the event did not apply), or `undefined` when the task is
 * gone.
 */
export async function applyEvent(
  scope: TaskStoreScope,
  taskId: string,
  event: TaskEvent,
): Promise<TaskRecord | undefined> {
  return (await tryEvent(scope, taskId, event)).record;
}

/** Tells whichever instance runs the task. */
export async function signalTask(scope: TaskStoreScope, taskId: string, signal: TaskSignal): Promise<void> {
  await scope.store.publish(taskChannel(scope, taskId), signal);
}

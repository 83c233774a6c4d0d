/**
 * The pure part of tasks: the stored record, the state machine that moves
 * it (no transition ever leaves a terminal status), expiry, and the wire
 * shapes built from a record. No I/O: the server half reads and writes
 * records through the store and asks these functions what to write.
 */
import type { JsonValue } from '@ext/core/kit';
import type { PrincipalSource } from '@ext/core';
import { TASKS_ALIAS_ID, type CreateTaskResult, type DetailedTask, type TaskStatus } from './schema.js';

/** A JSON-RPC error as a failed task carries it. */
export interface TaskError {
  readonly code: number;
  readonly message: string;
  readonly data?: unknown;
}

/** What the store holds for one task (JSON: it may live in SQLite or Redis). */
export interface TaskRecord {
  readonly taskId: string;
  /** The principal that created it; nobody else can see it. */
  readonly principal: string;
  readonly tool: string;
  readonly status: TaskStatus;
  readonly statusMessage?: string | undefined;
  /** Milliseconds since the epoch. */
  readonly createdAt: number;
  readonly lastUpdatedAt: number;
  readonly ttlMs: number;
  readonly pollIntervalMs: number;
  readonly result?: Record<string, unknown> | undefined;
  readonly error?: TaskError | undefined;
  /** Outstanding input requests, by key (status `input_required`). */
  readonly inputRequests?: Record<string, Record<string, unknown>> | undefined;
  /** Answers received for keys the handler still waits on. */
  readonly inputResponses?: Record<string, unknown> | undefined;
  /** Every input key ever issued: a key is never reused over the task's lifetime. */
  readonly issuedKeys?: readonly string[] | undefined;
  /** What a new execution needs after the runner died: the arguments and how the caller was known. */
  readonly call?: TaskCall | undefined;
  /** The last progress the handler reported (statusMessage carries its message). */
  readonly progress?: TaskProgress | undefined;
  /** The state the last checkpoint saved: where a resumed execution starts. */
  readonly checkpoint?: JsonValue | undefined;
  /** Which server instance runs the task, and until when it is known to be alive. */
  readonly lease?: TaskLease | undefined;
  /** How many executions ran the task (1, more after resumes). */
  readonly executions?: number | undefined;
}

/** The call a task runs, as stored for a resume. */
export interface TaskCall {
  readonly arguments: Record<string, unknown>;
  readonly source: PrincipalSource;
}

/** Progress as the handler reported it (`streamOf(ctx).progress` of `@ext/streaming`). */
export interface TaskProgress {
  readonly done?: number | undefined;
  readonly total?: number | undefined;
  readonly estimatedRemainingSeconds?: number | undefined;
  readonly partialResult?: Record<string, unknown> | undefined;
}

/** The runner's claim on a task, renewed while it runs. */
export interface TaskLease {
  readonly owner: string;
  /** Milliseconds since the epoch. */
  readonly until: number;
}

/** What can happen to a task. */
export type TaskEvent =
  | { readonly type: 'input'; readonly requests: Record<string, Record<string, unknown>> }
  | { readonly type: 'respond'; readonly responses: Record<string, unknown> }
  | { readonly type: 'consume'; readonly keys: readonly string[] }
  | { readonly type: 'complete'; readonly result: Record<string, unknown> }
  | { readonly type: 'fail'; readonly error: TaskError }
  | { readonly type: 'cancel'; readonly message?: string | undefined }
  | { readonly type: 'progress'; readonly message?: string | undefined; readonly progress: TaskProgress }
  | { readonly type: 'checkpoint'; readonly state: JsonValue }
  /** Takes (or renews) the lease: only when it is free, expired or already `owner`'s. */
  | { readonly type: 'claim'; readonly owner: string; readonly until: number; readonly execution?: boolean };

export const TERMINAL_STATUSES: ReadonlySet<TaskStatus> = new Set<TaskStatus>(['completed', 'failed', 'cancelled']);

export function isTerminal(status: TaskStatus): boolean {
  return TERMINAL_STATUSES.has(status);
}

/** A new task's record, status `working`. */
export function newTaskRecord(fields: {
  taskId: string;
  principal: string;
  tool: string;
  now: number;
  ttlMs: number;
  pollIntervalMs: number;
}): TaskRecord {
  const { now, ...rest } = fields;
  return { ...rest, status: 'working', createdAt: now, lastUpdatedAt: now };
}

/** Whether the task's TTL, counted from creation, has run out: it is then gone. */
export function isExpired(record: TaskRecord, now: number): boolean {
  return now >= record.createdAt + record.ttlMs;
}

/** What is left of the task's TTL, for the store entry (at least 1 ms). */
export function remainingTtlMs(record: TaskRecord, now: number): number {
  return Math.max(1, record.createdAt + record.ttlMs - now);
}

function withoutInput(record: TaskRecord): TaskRecord {
  const { inputRequests: _requests, inputResponses: _responses, ...rest } = record;
  return rest;
}

function addInput(record: TaskRecord, requests: Record<string, Record<string, unknown>>, now: number): TaskRecord {
  const issued = new Set(record.issuedKeys ?? []);
  const fresh = Object.keys(requests);
  if (fresh.length === 0 || fresh.some((key) => issued.has(key))) return record;
  return {
    ...record,
    status: 'input_required',
    inputRequests: { ...record.inputRequests, ...requests },
    issuedKeys: [...issued, ...fresh],
    lastUpdatedAt: now,
  };
}

/** Answers for outstanding keys only (TASK-9): unknown or already answered keys are ignored. */
function addResponses(record: TaskRecord, responses: Record<string, unknown>, now: number): TaskRecord {
  const outstanding = record.inputRequests ?? {};
  const accepted = Object.entries(responses).filter(([key]) => key in outstanding);
  if (accepted.length === 0) return record;
  const answeredKeys = new Set(accepted.map(([key]) => key));
  const inputRequests = Object.fromEntries(Object.entries(outstanding).filter(([key]) => !answeredKeys.has(key)));
  const stillWaiting = Object.keys(inputRequests).length > 0;
  return {
    ...record,
    status: stillWaiting ? 'input_required' : 'working',
    inputRequests: stillWaiting ? inputRequests : undefined,
    inputResponses: { ...record.inputResponses, ...Object.fromEntries(accepted) },
    lastUpdatedAt: now,
  };
}

function consumeResponses(record: TaskRecord, keys: readonly string[]): TaskRecord {
  if (record.inputResponses === undefined || keys.length === 0) return record;
  const consumed = new Set(keys);
  const inputResponses = Object.fromEntries(
    Object.entries(record.inputResponses).filter(([key]) => !consumed.has(key)),
  );
  return { ...record, inputResponses: Object.keys(inputResponses).length > 0 ? inputResponses : undefined };
}

/**
 * The record after `event`, or the same record when the event does not
 * apply. A terminal record never changes (TASK-5).
 */
export function transition(record: TaskRecord, event: TaskEvent, now: number): TaskRecord {
  if (isTerminal(record.status)) return record;
  switch (event.type) {
    case 'input':
      return addInput(record, event.requests, now);
    case 'respond':
      return addResponses(record, event.responses, now);
    case 'consume':
      return consumeResponses(record, event.keys);
    case 'complete':
      return { ...withoutInput(record), status: 'completed', result: event.result, lastUpdatedAt: now };
    case 'fail':
      // The extension asks a failed task for a diagnostic statusMessage: the error's own words, not the last progress.
      return {
        ...withoutInput(record),
        status: 'failed',
        statusMessage: event.error.message,
        error: event.error,
        lastUpdatedAt: now,
      };
    case 'cancel':
      return { ...withoutInput(record), status: 'cancelled', statusMessage: event.message, lastUpdatedAt: now };
    case 'progress':
      return withProgress(record, event.progress, event.message, now);
    case 'checkpoint':
      return { ...record, checkpoint: event.state };
    case 'claim':
      return claim(record, event, now);
  }
}

function withProgress(
  record: TaskRecord,
  progress: TaskProgress,
  message: string | undefined,
  now: number,
): TaskRecord {
  const merged = { ...record.progress, ...definedOnly(progress) };
  const statusMessage = message ?? record.statusMessage;
  return { ...record, progress: merged, statusMessage, lastUpdatedAt: now };
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)) as Partial<T>;
}

function claim(record: TaskRecord, event: Extract<TaskEvent, { type: 'claim' }>, now: number): TaskRecord {
  const held = record.lease;
  const live = held !== undefined && held.until > now;
  // A renewal takes a lease that is its owner's or lapsed; a new execution only a lapsed one, so one runs at a time.
  if (live && (event.execution === true || held.owner !== event.owner)) return record;
  const executions = (record.executions ?? 0) + (event.execution === true ? 1 : 0);
  return { ...record, lease: { owner: event.owner, until: event.until }, executions };
}

/** Whether the task still runs but nobody has renewed its lease in time: its runner died (TASK-19). */
export function isOrphaned(record: TaskRecord, now: number): boolean {
  return !isTerminal(record.status) && record.lease !== undefined && record.lease.until <= now;
}

/** Our additions to a task on the wire, under our own `_meta` key: progress details and resumes (TASK-18). */
function progressMeta(record: TaskRecord): Record<string, unknown> | undefined {
  const progress = record.progress ?? {};
  const fields = {
    ...(progress.done === undefined ? {} : { done: progress.done }),
    ...(progress.total === undefined ? {} : { total: progress.total }),
    ...(progress.done !== undefined && progress.total !== undefined && progress.total > 0
      ? { progress: Math.min(1, progress.done / progress.total) }
      : {}),
    ...(progress.estimatedRemainingSeconds === undefined
      ? {}
      : { estimated_remaining_seconds: progress.estimatedRemainingSeconds }),
    ...(progress.partialResult === undefined ? {} : { partial_result: progress.partialResult }),
    ...((record.executions ?? 1) > 1 ? { resumed: true, executions: record.executions } : {}),
  };
  return Object.keys(fields).length === 0 ? undefined : { [TASKS_ALIAS_ID]: fields };
}

function baseTask(record: TaskRecord) {
  return {
    taskId: record.taskId,
    status: record.status,
    ...(record.statusMessage === undefined ? {} : { statusMessage: record.statusMessage }),
    createdAt: new Date(record.createdAt).toISOString(),
    lastUpdatedAt: new Date(record.lastUpdatedAt).toISOString(),
    ttlMs: record.ttlMs,
    pollIntervalMs: record.pollIntervalMs,
  };
}

/** The `CreateTaskResult` for a new task: flat, no `result`, `error` or `inputRequests` (TASK-3). */
export function createTaskResult(record: TaskRecord): CreateTaskResult {
  return { resultType: 'task', ...baseTask(record) };
}

/** The `tasks/get` answer: the status's own field inlined, nothing else (TASK-6). */
export function detailedTask(record: TaskRecord): DetailedTask {
  const meta = isTerminal(record.status) ? undefined : progressMeta(record);
  const base = { ...baseTask(record), ...(meta === undefined ? {} : { _meta: meta }) };
  switch (record.status) {
    case 'input_required':
      return { ...base, inputRequests: record.inputRequests ?? {} };
    case 'completed':
      return { ...base, result: completedResult(record.result ?? {}) };
    case 'failed':
      return { ...base, error: record.error ?? { code: -32603, message: 'Internal error' } };
    default:
      return base;
  }
}

/** The tool result as a task record keeps it: without the answer's `resultType` (records stored before carry none either). */
export function storedResult(result: Record<string, unknown>): Record<string, unknown> {
  const { resultType: _resultType, ...rest } = result;
  return rest;
}

/**
 * A completed task's `result` on the wire: the `CallToolResult` as a
 * 2026-07-28 server answers it, whose `resultType` is required (TASK-6).
 */
export function completedResult(stored: Record<string, unknown>): Record<string, unknown> {
  return { ...storedResult(stored), resultType: 'complete' };
}

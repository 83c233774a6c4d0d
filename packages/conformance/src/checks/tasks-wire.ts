/**
 * What the tasks checks read on the wire: raw answers (a result or a
 * JSON-RPC error), and the problems of a `CreateTaskResult` and of a
 * `tasks/get` answer against packages/tasks/SPEC.md, as pure functions.
 */
import { isRecord } from '@ext/core/kit';
import { WireError } from '@ext/core';
import { describe } from '../assert.js';
import type { Probe } from '../probe.js';

export const TASK_STATUSES: readonly string[] = ['working', 'input_required', 'completed', 'failed', 'cancelled'];
export const TERMINAL_STATUSES: readonly string[] = ['completed', 'failed', 'cancelled'];

/** A raw answer: the result as sent, or the JSON-RPC error. */
export type Answer = { readonly result: Record<string, unknown> } | { readonly error: WireError };

/** Sends a raw request and returns what came back; anything but a JSON-RPC error (a hang-up) is rethrown. */
export async function answerOf(probe: Probe, method: string, params: Record<string, unknown>): Promise<Answer> {
  try {
    return { result: await probe.rawRequest(method, params) };
  } catch (error) {
    if (error instanceof WireError) return { error };
    throw error;
  }
}

/** An answer in a failure message. */
export function describeAnswer(answer: Answer): string {
  return 'error' in answer
    ? `error ${String(answer.error.code)} ${describe(answer.error.message)}`
    : `result ${describe(answer.result)}`;
}

/** Whether a `tools/call` answer is a task handle (in any shape: flat, or the forbidden `task` wrapper). */
export function isTaskHandle(result: Record<string, unknown>): boolean {
  return result.resultType === 'task' || 'taskId' in result || 'task' in result;
}

function isIsoDate(value: unknown): boolean {
  return typeof value === 'string' && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(value) && !Number.isNaN(Date.parse(value));
}

function isPositiveInteger(value: unknown): boolean {
  return Number.isSafeInteger(value) && (value as number) >= 1;
}

/** Fields a `CreateTaskResult` must not carry (TASK-3). */
const NOT_ON_CREATE = ['result', 'error', 'inputRequests', 'requestState', 'ttl', 'pollInterval'] as const;

/** Why `value` is not the flat `CreateTaskResult` of TASK-3 (empty when it is). */
export function createTaskProblems(value: Record<string, unknown>): string[] {
  const problems: string[] = [];
  if ('task' in value) problems.push('carries a "task" wrapper (the task fields must be flat)');
  if (value.resultType !== 'task') problems.push(`resultType is ${describe(value.resultType)}, not "task"`);
  if (typeof value.taskId !== 'string' || value.taskId === '')
    problems.push(`taskId is ${describe(value.taskId)}, not a non-empty string`);
  if (value.status !== 'working') problems.push(`status is ${describe(value.status)}, not "working"`);
  for (const field of ['createdAt', 'lastUpdatedAt']) {
    if (!isIsoDate(value[field])) problems.push(`${field} is ${describe(value[field])}, not an ISO 8601 date-time`);
  }
  for (const field of ['ttlMs', 'pollIntervalMs']) {
    if (!isPositiveInteger(value[field]))
      problems.push(`${field} is ${describe(value[field])}, not a positive integer`);
  }
  for (const field of NOT_ON_CREATE) {
    if (field in value) problems.push(`carries "${field}"`);
  }
  return problems;
}

/** Why `result` (a completed task's `result`) is not a `CallToolResult` as a 2026-07-28 server answers it. */
function inlinedResultProblems(result: unknown): string[] {
  if (!isRecord(result)) return [`result is ${describe(result)}, not an object`];
  const problems: string[] = [];
  if (!Array.isArray(result.content)) problems.push(`result.content is ${describe(result.content)}, not an array`);
  if (result.resultType !== 'complete')
    problems.push(`result.resultType is ${describe(result.resultType)}, not "complete"`);
  return problems;
}

function errorProblems(error: unknown): string[] {
  if (!isRecord(error)) return [`error is ${describe(error)}, not an object`];
  return Number.isSafeInteger(error.code) && typeof error.message === 'string'
    ? []
    : [`error is ${describe(error)}, not { code: <integer>, message: <string> }`];
}

/**
 * Why `value` is not the `tasks/get` answer of TASK-6 for `taskId`: the task
 * with `resultType: "complete"`, and `inputRequests`, `result` and `error`
 * exactly when the status calls for them.
 */
export function detailedTaskProblems(value: Record<string, unknown>, taskId: string): string[] {
  const problems: string[] = [];
  if (value.resultType !== 'complete') problems.push(`resultType is ${describe(value.resultType)}, not "complete"`);
  if (value.taskId !== taskId) problems.push(`taskId is ${describe(value.taskId)}, expected "${taskId}"`);
  const status = value.status;
  if (typeof status !== 'string' || !TASK_STATUSES.includes(status)) {
    return [...problems, `status is ${describe(status)}`];
  }
  const expected = { inputRequests: 'input_required', result: 'completed', error: 'failed' } as const;
  for (const [field, when] of Object.entries(expected)) {
    if (field in value !== (status === when)) {
      problems.push(`status "${status}" ${field in value ? 'carries' : 'lacks'} "${field}"`);
    }
  }
  if (status === 'completed' && 'result' in value) problems.push(...inlinedResultProblems(value.result));
  if (status === 'failed' && 'error' in value) problems.push(...errorProblems(value.error));
  if (status === 'input_required' && 'inputRequests' in value && !isRecord(value.inputRequests))
    problems.push(`inputRequests is ${describe(value.inputRequests)}, not an object`);
  return problems;
}

/** Why an acknowledgement (`tasks/cancel`, `tasks/update`) is not exactly `{ resultType: "complete" }` (TASK-16). */
export function ackProblems(value: Record<string, unknown>): string[] {
  const extra = Object.keys(value).filter((key) => key !== 'resultType' && key !== '_meta');
  return [
    ...(value.resultType === 'complete' ? [] : [`resultType is ${describe(value.resultType)}, not "complete"`]),
    ...(extra.length === 0 ? [] : [`carries ${extra.map((key) => `"${key}"`).join(', ')} beside resultType`]),
  ];
}

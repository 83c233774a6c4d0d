/**
 * Multi-round-trip input inside a task: when the stages inside the tasks
 * stage answer `input_required` (a confirmation waiting for a person, a
 * handler asking a question), nobody is on the request to retry it. The task
 * shows the questions in `inputRequests` instead, waits for `tasks/update`,
 * and runs the inner stages again with the answers, as a client's retry
 * would (TASK-17).
 */
import { ErrorCodes, WireError, type CallContext, type ToolResult } from '@ext/core';
import { isInputRequiredResult } from '@ext/core/kit';
import { askTaskInput, type TaskInputRequest } from './input.js';
import type { RunningTask } from './locals.js';
import { loadRecord } from './records.js';

/** Rounds of input one call may ask for before the task fails. */
export const MAX_INPUT_ROUNDS = 16;

interface InputRequired {
  readonly inputRequests?: Record<string, TaskInputRequest>;
  readonly requestState?: unknown;
}

/**
 * The key each request travels under: its own, unless the task already
 * issued it in an earlier round (keys are unique over a task's lifetime,
 * TASK-10), then suffixed with the round.
 */
export function wireKeys(keys: readonly string[], issued: ReadonlySet<string>, round: number): Map<string, string> {
  const out = new Map<string, string>();
  // New keys keep their names first, so a suffixed one can never take a new key's name.
  for (const key of keys) if (!issued.has(key)) out.set(key, key);
  const taken = new Set([...issued, ...out.values()]);
  for (const key of keys) {
    if (out.has(key)) continue;
    let wire = `${key}~${round}`;
    for (let n = round + 1; taken.has(wire); n++) wire = `${key}~${n}`;
    taken.add(wire);
    out.set(key, wire);
  }
  return new Map(keys.map((key) => [key, out.get(key) ?? key]));
}

async function askOnce(task: RunningTask, asked: InputRequired, round: number): Promise<Record<string, unknown>> {
  const requests = asked.inputRequests ?? {};
  const issued = new Set((await loadRecord(task.scope, task.taskId))?.issuedKeys ?? []);
  const keys = wireKeys(Object.keys(requests), issued, round);
  const onWire = Object.fromEntries(Object.entries(requests).map(([key, request]) => [keys.get(key) ?? key, request]));
  const answers = await askTaskInput(task, onWire);
  return Object.fromEntries([...keys].map(([key, wire]) => [key, answers[wire]]));
}

/** The answers as the inner stages read them on their next round (`ctx.inputRound`). */
function answerRound(ctx: CallContext, responses: Record<string, unknown>, requestState: unknown): void {
  const state = typeof requestState === 'string' ? { requestState } : {};
  Object.defineProperty(ctx, 'inputRound', {
    value: { responses, ...state },
    enumerable: true,
    configurable: true,
  });
}

/** Runs the inner stages until they answer with something other than `input_required`. */
export async function runInputRounds(
  task: RunningTask,
  ctx: CallContext,
  run: () => Promise<ToolResult>,
): Promise<ToolResult> {
  for (let round = 1; ; round++) {
    const result = await run();
    if (!isInputRequiredResult(result)) return result;
    if (round > MAX_INPUT_ROUNDS) {
      throw new WireError(ErrorCodes.InternalError, `The call asked for input more than ${MAX_INPUT_ROUNDS} times`);
    }
    const asked = result as unknown as InputRequired;
    answerRound(ctx, await askOnce(task, asked, round), asked.requestState);
  }
}

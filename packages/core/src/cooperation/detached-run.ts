/**
 * A tool call that goes on after its request was answered (a task): the
 * stage that detached it records here how the call reports on itself, so
 * helpers inside the pipeline (streaming's progress and checkpoints) reach
 * whoever follows the run without knowing which extension detached it.
 */
import type { RequestContext } from '../contract/extension.js';
import { defineLocal } from '../kit/locals.js';
import type { JsonValue } from '../kit/canonical.js';

/** Progress of a detached run, as its handler reports it. */
export interface DetachedProgress {
  /** Work done so far, in the handler's own units (absent for a partial result alone). */
  readonly done?: number | undefined;
  readonly total?: number | undefined;
  readonly message?: string | undefined;
  readonly estimatedRemainingSeconds?: number | undefined;
  /** The result so far (an object); each replaces the previous one. */
  readonly partialResult?: Record<string, unknown> | undefined;
}

/** What a detached run offers the stages and the handler inside it. */
export interface DetachedRun {
  /** The run's identifier (the task id), stable across restarts. */
  readonly id: string;
  /** The state saved by the last checkpoint, when this execution resumes an interrupted one. */
  readonly resumeState: JsonValue | undefined;
  /** Records progress for whoever polls the run; resolves once recorded. */
  progress(update: DetachedProgress): Promise<void>;
  /** Saves the state an execution resumed after an interruption starts from; resolves once durable. */
  checkpoint(state: JsonValue): Promise<void>;
}

// Keyed by Symbol.for, so duplicate copies of core agree on the slot.
const detachedRunSlot = defineLocal<DetachedRun>('core/detached-run');

/** The detached run the current call belongs to, or `undefined` when it answers its own request. */
export function detachedRunOf(ctx: Pick<RequestContext, 'locals'>): DetachedRun | undefined {
  return detachedRunSlot.get(ctx);
}

/** Records that the current call runs detached (the stage that detaches it does, before `next()`). */
export function setDetachedRun(ctx: Pick<RequestContext, 'locals'>, run: DetachedRun): void {
  detachedRunSlot.set(ctx, run);
}

// Keyed by Symbol.for, so duplicate copies of core agree on the slot.
const resumedSlot = defineLocal<true>('core/resumed-run');

/**
 * Whether the current call takes up again a detached run that an earlier
 * execution started and did not finish (its runner died): the call was
 * admitted, and charged, when its caller first made it. A stage that
 * charges per call (a quota, a rate limit) must not charge it again; checks
 * that can change since (scopes) may run again, and what they refuse fails
 * the run (CORE-47).
 */
export function resumesDetachedRun(ctx: Pick<RequestContext, 'locals'>): boolean {
  return resumedSlot.get(ctx) === true;
}

/** Marks the current call as one that resumes a detached run (the core does, for a `DetachedCall` with `resumes`). */
export function markResumedRun(ctx: Pick<RequestContext, 'locals'>): void {
  resumedSlot.set(ctx, true);
}

/** Reading values off what a peer sent, without letting a hostile getter or proxy escape. */
import type { StructuredError } from '@ext/core';
import { fromToolFailure, isToolFailure, TOOL_FAILURE_KEY, type ToolFailure } from './tool-failure.js';

/** Reads a property without letting a hostile getter or proxy escape; `undefined` when absent or unreadable. */
export function readProperty(value: unknown, key: string): unknown {
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null) return undefined;
  try {
    return (value as Record<string, unknown>)[key];
  } catch {
    // A throwing getter is treated as an absent property.
    return undefined;
  }
}

/** The text of a result's first content block, when it is a text block. */
export function firstText(result: unknown): string | undefined {
  const content = readProperty(result, 'content');
  if (!Array.isArray(content)) return undefined;
  const first: unknown = readProperty(content, '0');
  if (readProperty(first, 'type') !== 'text') return undefined;
  const text = readProperty(first, 'text');
  return typeof text === 'string' ? text : undefined;
}

/** The SEP-3313 `ToolFailure` of a failed tool result (`isError: true`), or `undefined` (ERR-34). */
export function readToolFailure(result: unknown): ToolFailure | undefined {
  if (readProperty(result, 'isError') !== true) return undefined;
  const candidate = readProperty(readProperty(result, '_meta'), TOOL_FAILURE_KEY);
  return isToolFailure(candidate) ? candidate : undefined;
}

/** A failure read from the SEP-3313 key alone, in our model, with the draft's own retry flag beside it. */
export interface DraftFailure {
  readonly structured: StructuredError;
  readonly failure: ToolFailure;
}

/** The SEP-3313 failure of `result` as our structured error, at `nowMs` (ERR-34). */
export function readDraftFailure(result: unknown, nowMs: number): DraftFailure | undefined {
  const failure = readToolFailure(result);
  if (failure === undefined) return undefined;
  return { structured: fromToolFailure(failure, firstText(result), nowMs), failure };
}

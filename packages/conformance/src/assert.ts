/** What checks fail and skip with, and small helpers for their messages. */
import { isRecord } from '@ext/core/kit';

/** Thrown by a check whose requirement the server violates; the message says what was seen. */
export class CheckFailure extends Error {
  override readonly name = 'CheckFailure';
}

/** Thrown through `ctx.skip()`: the check does not apply to this server. */
export class CheckSkipped extends Error {
  override readonly name = 'CheckSkipped';
}

/** Fails the check with `message` unless `condition` holds. */
export function ensure(condition: unknown, message: string): asserts condition {
  if (!condition) throw new CheckFailure(message);
}

/** `value` as a plain object, or a failure naming `what`. */
export function record(value: unknown, what: string): Record<string, unknown> {
  ensure(isRecord(value), `${what} must be a JSON object, got ${describe(value)}`);
  return value;
}

/** A short, bounded rendering of a value for failure messages. */
export function describe(value: unknown): string {
  const text = value === undefined ? 'undefined' : JSON.stringify(value);
  return text.length > 160 ? `${text.slice(0, 157)}...` : text;
}

/** A fresh id for state the kit creates on the server (transactions, keys). */
export function freshId(prefix: string): string {
  return `${prefix}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
}

/** The words the tour uses to explain what it shows; plain data and formatting, no I/O. */
import type { ErrorCategory } from '@ext/core';

/** What a client should do with a structured error, by category (docs/ARCHITECTURE.md, 'Errors'). */
export const CATEGORY_ADVICE: Readonly<Record<ErrorCategory, string>> = {
  transient: 'the failure is temporary: retry the same call after a backoff (or after retry_after_seconds, if given).',
  permanent: 'the same call will fail the same way: do not retry it; follow the suggestion or tell the user.',
  auth_required: 'the caller lacks credentials or scopes: re-authenticate or ask for the scope, then retry.',
  invalid_input: 'the arguments are wrong: fix the field named in details and call again; never retry as is.',
  rate_limited: 'too many calls: wait retry_after_seconds, then retry.',
};

/** Reads `value[path[0]][path[1]]...`, tolerating anything along the way. */
export function dig(value: unknown, ...path: readonly string[]): unknown {
  let current = value;
  for (const key of path) {
    if (typeof current !== 'object' || current === null) return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

/** One-line JSON, or a marker for nothing. */
export function compact(value: unknown): string {
  return value === undefined ? '(nothing)' : JSON.stringify(value);
}

/** Indented JSON whose continuation lines start at `indent` spaces. */
export function pretty(value: unknown, indent: number): string {
  if (value === undefined) return '(nothing)';
  return JSON.stringify(value, null, 2)
    .split('\n')
    .join(`\n${' '.repeat(indent)}`);
}

/** Terminal styling that turns itself off when the output is not a terminal or `NO_COLOR` is set. */
export interface Styles {
  bold(text: string): string;
  dim(text: string): string;
  green(text: string): string;
  red(text: string): string;
  cyan(text: string): string;
}

export function styles(enabled: boolean): Styles {
  const wrap =
    (open: number, close: number) =>
    (text: string): string =>
      enabled ? `\u001b[${open}m${text}\u001b[${close}m` : text;
  return { bold: wrap(1, 22), dim: wrap(2, 22), green: wrap(32, 39), red: wrap(31, 39), cyan: wrap(36, 39) };
}

/** `[#########.........]  45%` for a fraction from 0 to 1 (clamped). */
export function progressBar(fraction: number, width = 30): string {
  const clamped = Number.isFinite(fraction) ? Math.min(1, Math.max(0, fraction)) : 0;
  const filled = Math.round(clamped * width);
  return `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${String(Math.round(clamped * 100)).padStart(3)}%`;
}

/** A long opaque token shortened for the screen: its start and its length. */
export function shorten(token: string, keep = 16): string {
  return token.length <= keep + 8 ? token : `${token.slice(0, keep)}... (${String(token.length)} characters)`;
}

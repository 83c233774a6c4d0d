/** Option validators for extension factories: each error names the factory and the option. */
import { ConfigurationError } from '../contract/errors.js';

function invalidOption(factory: string, option: string, rule: string, value: unknown): ConfigurationError {
  return new ConfigurationError('INVALID_OPTION', `${factory}: ${option} must be ${rule}, got ${String(value)}`);
}

/**
 * `value`, or `fallback` when it is `undefined`; throws `INVALID_OPTION`
 * unless it is a safe integer >= 1. Without `fallback`, `value` is an option
 * already given its default by destructuring, and is only checked.
 */
export function positiveIntegerOption(factory: string, option: string, value: number): number;
export function positiveIntegerOption(
  factory: string,
  option: string,
  value: number | undefined,
  fallback: number,
): number;
export function positiveIntegerOption(
  factory: string,
  option: string,
  value: number | undefined,
  fallback?: number,
): number {
  if (value === undefined && fallback !== undefined) return fallback;
  if (value === undefined || !Number.isSafeInteger(value) || value < 1) {
    throw invalidOption(factory, option, 'a positive integer', value);
  }
  return value;
}

/**
 * `value`, or `fallback` (which may be `undefined`: no default) when it is
 * `undefined`; throws `INVALID_OPTION` unless it is a safe integer >= 0.
 * Without `fallback`, `value` is an option already given its default by
 * destructuring, and is only checked.
 */
export function nonNegativeIntegerOption(factory: string, option: string, value: number): number;
export function nonNegativeIntegerOption<F extends number | undefined>(
  factory: string,
  option: string,
  value: number | undefined,
  fallback: F,
): number | F;
export function nonNegativeIntegerOption(
  factory: string,
  option: string,
  value: number | undefined,
  fallback?: number,
): number | undefined {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 0) throw invalidOption(factory, option, 'a non-negative integer', value);
  return value;
}

/**
 * `value`, or `fallback` when it is `undefined`; throws `INVALID_OPTION`
 * unless it is a finite number >= 0. Without `fallback`, `value` is an
 * option already given its default by destructuring, and is only checked.
 */
export function nonNegativeNumberOption(factory: string, option: string, value: number): number;
export function nonNegativeNumberOption(
  factory: string,
  option: string,
  value: number | undefined,
  fallback: number,
): number;
export function nonNegativeNumberOption(
  factory: string,
  option: string,
  value: number | undefined,
  fallback?: number,
): number {
  if (value === undefined && fallback !== undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw invalidOption(factory, option, 'a finite number >= 0', value);
  }
  return value;
}

/**
 * The options as a factory uses them once its defaults are applied: every
 * key present and none `undefined`, except the keys in `Unset` (options with
 * no default, such as an optional hook), which stay `undefined` when not
 * given. A field resolved to another type (a rule normalised to a function,
 * seconds to milliseconds) is `Omit`ted and intersected in its resolved form.
 */
export type Resolved<T, Unset extends keyof T = never> = {
  // Mapped over Required<T>, not with `-?`, which would take `undefined` from the Unset keys too.
  readonly [K in keyof Required<T>]: K extends Unset ? T[K] | undefined : Exclude<T[K], undefined>;
};

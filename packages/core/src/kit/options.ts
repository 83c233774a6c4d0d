/** Option validators for extension factories: each error names the factory and the option. */
import { ConfigurationError } from '../contract/errors.js';

function invalidOption(factory: string, option: string, rule: string, value: unknown): ConfigurationError {
  return new ConfigurationError('INVALID_OPTION', `${factory}: ${option} must be ${rule}, got ${String(value)}`);
}

/** `value`, or `fallback` when it is `undefined`; throws `INVALID_OPTION` unless it is a safe integer >= 1. */
export function positiveIntegerOption(
  factory: string,
  option: string,
  value: number | undefined,
  fallback: number,
): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 1) throw invalidOption(factory, option, 'a positive integer', value);
  return value;
}

/** `value`, or `fallback` when it is `undefined`; throws `INVALID_OPTION` unless it is a safe integer >= 0. */
export function nonNegativeIntegerOption<F extends number | undefined>(
  factory: string,
  option: string,
  value: number | undefined,
  fallback: F,
): number | F {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 0) throw invalidOption(factory, option, 'a non-negative integer', value);
  return value;
}

/** `value`, or `fallback` when it is `undefined`; throws `INVALID_OPTION` unless it is a finite number >= 0. */
export function nonNegativeNumberOption(
  factory: string,
  option: string,
  value: number | undefined,
  fallback: number,
): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw invalidOption(factory, option, 'a finite number >= 0', value);
  }
  return value;
}

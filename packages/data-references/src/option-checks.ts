/** Option checks this package needs beside core's kit: whole byte counts and media types, each error naming the option. */
import { ConfigurationError } from '@ext/core';
import { isMimeType } from './logic.js';

/**
 * `value`, or `fallback` when it is `undefined`; throws `INVALID_OPTION`
 * unless it is a safe integer >= 0. Without `fallback`, `value` is an option
 * already given its default by destructuring, and is only checked.
 */
export function byteCountOption(factory: string, option: string, value: number): number;
export function byteCountOption(factory: string, option: string, value: number | undefined, fallback: number): number;
export function byteCountOption(factory: string, option: string, value: number | undefined, fallback?: number): number {
  if (value === undefined && fallback !== undefined) return fallback;
  if (value === undefined || !Number.isSafeInteger(value) || value < 0) {
    throw new ConfigurationError(
      'INVALID_OPTION',
      `${factory}: ${option} must be a non-negative integer number of bytes, got ${String(value)}`,
    );
  }
  return value;
}

/** `value` when it is a media type this package accepts; throws `INVALID_OPTION` otherwise. */
export function mediaTypeOption(factory: string, option: string, value: unknown): string {
  if (!isMimeType(value))
    throw new ConfigurationError(
      'INVALID_OPTION',
      `${factory}: ${option} must be a media type such as text/csv, got ${JSON.stringify(value)}`,
    );
  return value;
}

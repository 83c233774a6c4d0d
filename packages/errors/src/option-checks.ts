/** How both halves check their options: each problem a `ConfigurationError` (`INVALID_OPTION`) naming it. */
import { ConfigurationError } from '@ext/core';
import { isRecord } from '@ext/core/kit';
import { ERRORS_PACKAGE_NAME } from './schema.js';

/** The error for a bad option; `message` says which and why. */
export function invalidOption(message: string): ConfigurationError {
  return new ConfigurationError('INVALID_OPTION', `${ERRORS_PACKAGE_NAME}: ${message}`);
}

/** `options` as a record of `known` options only (`{}` when absent); `factory` names the call in the error. */
export function optionRecord(options: unknown, factory: string, known: ReadonlySet<string>): Record<string, unknown> {
  if (options === undefined) return {};
  if (!isRecord(options)) throw invalidOption(`${factory}(options) expects an object`);
  for (const key of Object.keys(options)) {
    if (!known.has(key)) throw invalidOption(`unknown option "${key}"`);
  }
  return options;
}

/** Throws unless each of `names` is absent from `record` or a function. */
export function checkFunctionOptions(record: Readonly<Record<string, unknown>>, names: readonly string[]): void {
  for (const name of names) {
    if (record[name] !== undefined && typeof record[name] !== 'function') {
      throw invalidOption(`option "${name}" must be a function`);
    }
  }
}

/** How both halves check their options: each problem a `ConfigurationError` (`INVALID_OPTION`) naming it. */
import { ConfigurationError } from '@ext/core';
import { isRecord } from '@ext/core/kit';
import { CONTENT_NEGOTIATION_PACKAGE_NAME } from './schema.js';

/** Throws the error for a bad option; `message` says which and why. */
export function fail(message: string): never {
  throw new ConfigurationError('INVALID_OPTION', `${CONTENT_NEGOTIATION_PACKAGE_NAME}: ${message}`);
}

/** `options` as a record of `known` options only (`undefined` when absent); `factory` names the call in the error. */
export function optionRecord(
  options: unknown,
  factory: string,
  known: ReadonlySet<string>,
): Record<string, unknown> | undefined {
  if (options === undefined) return undefined;
  if (!isRecord(options)) return fail(`${factory}(options) expects an object`);
  for (const key of Object.keys(options)) if (!known.has(key)) fail(`unknown option "${key}"`);
  return options;
}

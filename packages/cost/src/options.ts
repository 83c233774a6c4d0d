/** The options of `costServer`, their defaults, and the checks made when the factory is called. */
import { ConfigurationError } from '@ext/core';

export interface CostServerOptions {
  /** Clock in milliseconds that places calls in quota and rate-limit windows (tests pass a fake one). Default `Date.now`. */
  readonly now?: (() => number) | undefined;
  /** Namespace of every store key this extension writes. Default `"cost"`. */
  readonly keyPrefix?: string | undefined;
}

/** The options the server half runs with, every default filled in. */
export interface ResolvedOptions {
  readonly now: () => number;
  readonly keyPrefix: string;
}

export function resolveOptions(options: CostServerOptions): ResolvedOptions {
  if (options.now !== undefined && typeof options.now !== 'function') {
    throw new ConfigurationError('INVALID_OPTION', 'costServer: now must be a function returning milliseconds');
  }
  const keyPrefix = options.keyPrefix ?? 'cost';
  if (typeof keyPrefix !== 'string' || keyPrefix.length === 0) {
    throw new ConfigurationError('INVALID_OPTION', 'costServer: keyPrefix must be a non-empty string');
  }
  return { now: options.now ?? Date.now, keyPrefix };
}

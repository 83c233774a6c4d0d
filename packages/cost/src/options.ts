/** The options of `costServer`, their defaults, and the checks made when the factory is called. */
import { ConfigurationError } from '@ext/core';
import type { Resolved } from '@ext/core/kit';

export interface CostServerOptions {
  /** Clock in milliseconds that places calls in quota and rate-limit windows (tests pass a fake one). Default `Date.now`. */
  readonly now?: (() => number) | undefined;
  /** Namespace of every store key this extension writes. Default `"cost"`. */
  readonly keyPrefix?: string | undefined;
}

/** The options the server half runs with, every default filled in. */
export type ResolvedOptions = Resolved<CostServerOptions>;

export function resolveOptions(options: CostServerOptions): ResolvedOptions {
  const { now = Date.now, keyPrefix = 'cost' } = options;
  if (typeof now !== 'function') {
    throw new ConfigurationError('INVALID_OPTION', 'costServer: now must be a function returning milliseconds');
  }
  if (typeof keyPrefix !== 'string' || keyPrefix.length === 0) {
    throw new ConfigurationError('INVALID_OPTION', 'costServer: keyPrefix must be a non-empty string');
  }
  return { now, keyPrefix };
}

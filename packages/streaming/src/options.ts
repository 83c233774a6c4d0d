/** The options of `streamingServer()`: what an author may set, the defaults, and their validation. */
import { ConfigurationError, positiveIntegerOption } from '@ext/core';
import { DEFAULT_CHECKPOINT_TTL_SECONDS } from './schema.js';

export interface StreamingServerOptions {
  /** How long a checkpoint stays resumable, in seconds. Default 86400 (24 h). */
  readonly checkpointTtlSeconds?: number | undefined;
  /** Largest checkpoint state (canonical JSON, in bytes) a handler may save. Default 1048576 (1 MiB). */
  readonly maxStateBytes?: number | undefined;
  /** Namespace of every store key this extension writes. Default `"streaming"`. */
  readonly keyPrefix?: string | undefined;
  /** Wall clock in milliseconds for checkpoint expiry (tests). Default `Date.now`. */
  readonly now?: (() => number) | undefined;
}

/** The options with every default applied. */
export interface ResolvedOptions {
  readonly ttlMs: number;
  readonly ttlSeconds: number;
  readonly maxStateBytes: number;
  readonly keyPrefix: string;
  readonly now: () => number;
}

const FACTORY = 'streamingServer';

/** Applies the defaults; throws `INVALID_OPTION` naming the first bad option. */
export function resolveOptions(options: StreamingServerOptions): ResolvedOptions {
  if (typeof options !== 'object' || Array.isArray(options)) {
    throw new ConfigurationError('INVALID_OPTION', 'streamingServer(options) expects an object');
  }
  const ttlSeconds = positiveIntegerOption(
    FACTORY,
    'checkpointTtlSeconds',
    options.checkpointTtlSeconds,
    DEFAULT_CHECKPOINT_TTL_SECONDS,
  );
  const keyPrefix = options.keyPrefix ?? 'streaming';
  if (typeof keyPrefix !== 'string' || keyPrefix.length === 0) {
    throw new ConfigurationError('INVALID_OPTION', 'streamingServer: keyPrefix must be a non-empty string');
  }
  if (options.now !== undefined && typeof options.now !== 'function') {
    throw new ConfigurationError('INVALID_OPTION', 'streamingServer: now must be a function returning milliseconds');
  }
  return {
    ttlSeconds,
    ttlMs: ttlSeconds * 1000,
    maxStateBytes: positiveIntegerOption(FACTORY, 'maxStateBytes', options.maxStateBytes, 1_048_576),
    keyPrefix,
    now: options.now ?? Date.now,
  };
}

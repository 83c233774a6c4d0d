/** The options of `streamingServer()`: what an author may set, the defaults, and their validation. */
import { ConfigurationError } from '@ext/core';
import { positiveIntegerOption, type Resolved } from '@ext/core/kit';
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

/** The options with every default applied, and the checkpoint TTL in milliseconds too. */
export type ResolvedOptions = Resolved<StreamingServerOptions> & { readonly ttlMs: number };

const FACTORY = 'streamingServer';

/** Applies the defaults; throws `INVALID_OPTION` naming the first bad option. */
export function resolveOptions(options: StreamingServerOptions): ResolvedOptions {
  if (typeof options !== 'object' || Array.isArray(options)) {
    throw new ConfigurationError('INVALID_OPTION', 'streamingServer(options) expects an object');
  }
  const {
    checkpointTtlSeconds = DEFAULT_CHECKPOINT_TTL_SECONDS,
    maxStateBytes = 1_048_576,
    keyPrefix = 'streaming',
    now = Date.now,
  } = options;
  positiveIntegerOption(FACTORY, 'checkpointTtlSeconds', checkpointTtlSeconds);
  if (typeof keyPrefix !== 'string' || keyPrefix.length === 0) {
    throw new ConfigurationError('INVALID_OPTION', 'streamingServer: keyPrefix must be a non-empty string');
  }
  if (typeof now !== 'function') {
    throw new ConfigurationError('INVALID_OPTION', 'streamingServer: now must be a function returning milliseconds');
  }
  return {
    checkpointTtlSeconds,
    ttlMs: checkpointTtlSeconds * 1000,
    maxStateBytes: positiveIntegerOption(FACTORY, 'maxStateBytes', maxStateBytes),
    keyPrefix,
    now,
  };
}

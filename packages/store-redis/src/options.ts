/** The options of `createRedisStore`, their defaults, and the checks they pass before connecting. */
import { consoleLogger, type Resolved } from '@ext/core/kit';
import { type Logger } from '@ext/core';

export interface RedisStoreOptions {
  /** `redis://[[user]:password@]host[:port][/db]` or `rediss://` for TLS. Default `redis://127.0.0.1:6379`. */
  readonly url?: string | undefined;
  /**
   * Prepended to every key and channel, so several deployments (tenants) can share
   * one Redis without seeing each other's state. Default `'mcp-ext:'`.
   */
  readonly keyPrefix?: string | undefined;
  /** How long the first connection may take before `createRedisStore` rejects, in ms. Default 5000. */
  readonly connectTimeoutMs?: number | undefined;
  /**
   * How long Redis may stay silent while an operation waits, in ms, before
   * the operation fails with core's `StoreUnavailableError` (`transient`): a
   * stopped or frozen Redis must not hold a tool call for longer than a
   * client waits. Counted from when the command is on the socket, so this
   * process's own event-loop backlog never makes a healthy Redis look down.
   * Default 500.
   */
  readonly commandTimeoutMs?: number | undefined;
  /** Where outages (once each), connection errors (debug) and listener failures are reported. Default: stderr. */
  readonly logger?: Logger | undefined;
}

/** The default `keyPrefix`. */
export const DEFAULT_KEY_PREFIX = 'mcp-ext:';

/** The default `commandTimeoutMs`: well under what an MCP client waits for a tool call. */
export const DEFAULT_COMMAND_TIMEOUT_MS = 500;

/** The options checked, with every default filled in. */
export type ResolvedOptions = Resolved<RedisStoreOptions>;

function positiveOption(name: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new RangeError(`RedisStore: ${name} must be a positive number`);
  }
  return value;
}

/** `options` checked (each problem a `TypeError` or `RangeError` naming the option) and completed. */
export function resolveOptions(options: RedisStoreOptions): ResolvedOptions {
  const {
    url = 'redis://127.0.0.1:6379',
    keyPrefix = DEFAULT_KEY_PREFIX,
    connectTimeoutMs = 5000,
    commandTimeoutMs = DEFAULT_COMMAND_TIMEOUT_MS,
    logger = consoleLogger,
  } = options;
  // Checked at run time too: JavaScript callers get no help from the type.
  if (typeof keyPrefix !== 'string') throw new TypeError('RedisStore: keyPrefix must be a string');
  return {
    url,
    keyPrefix,
    connectTimeoutMs: positiveOption('connectTimeoutMs', connectTimeoutMs),
    commandTimeoutMs: positiveOption('commandTimeoutMs', commandTimeoutMs),
    logger,
  };
}

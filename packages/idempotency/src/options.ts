/** `idempotencyServer` options: what a server author may set, the defaults, and the checks made at construction. */
import { ConfigurationError } from '@ext/core';
import { nonNegativeIntegerOption, positiveIntegerOption, type Resolved } from '@ext/core/kit';
import type { ParticipationRule } from './logic.js';
import { DEFAULT_TTL_SECONDS } from './schema.js';

export interface IdempotencyServerOptions {
  /** Which tools honour keys (see {@link ParticipationRule}). Default `'mutating'`. */
  readonly tools?: ParticipationRule | undefined;
  /** TTL when the client sends none. Default 86400 (24 h). */
  readonly defaultTtlSeconds?: number | undefined;
  /** Longer requested TTLs are lowered to this; also the window of the record budget. Default 604800 (7 days). */
  readonly maxTtlSeconds?: number | undefined;
  /** How long a duplicate waits for an in-flight execution before `IDEMPOTENCY_IN_PROGRESS`. Default 10000. */
  readonly inFlightWaitMs?: number | undefined;
  /** Re-read interval while waiting, in case a store's pub/sub message is missed. Default 100. */
  readonly pollIntervalMs?: number | undefined;
  /**
   * Lifetime of an in-flight claim; renewed every third of it while the
   * handler runs, so only a crashed server lets it lapse. Default 60000.
   */
  readonly leaseMs?: number | undefined;
  /** Most live records one principal may hold; beyond it new keys get `rate_limited`. Default 10000. */
  readonly maxKeysPerPrincipal?: number | undefined;
  /** `retry_after_seconds` of `IDEMPOTENCY_IN_PROGRESS`. Default 1. */
  readonly inProgressRetryAfterSeconds?: number | undefined;
  /** Namespace of every store key this extension writes. Default `"idempotency"`. */
  readonly keyPrefix?: string | undefined;
  /** Wall clock in milliseconds for timestamps and the record budget (tests). Default `Date.now`. */
  readonly now?: (() => number) | undefined;
}

/** The options as the server uses them, defaults applied. */
export type IdempotencyConfig = Resolved<IdempotencyServerOptions>;

const FACTORY = 'idempotencyServer';

function checkRule(tools: ParticipationRule): void {
  const validRule =
    tools === 'mutating' ||
    tools === 'all' ||
    typeof tools === 'function' ||
    (Array.isArray(tools) && tools.every((name) => typeof name === 'string'));
  if (!validRule) {
    throw new ConfigurationError(
      'INVALID_OPTION',
      'idempotencyServer: tools must be "mutating", "all", an array of tool names or a function',
    );
  }
}

/** Checks `options` and applies the defaults; throws `INVALID_OPTION` naming the option. */
export function resolveOptions(options: IdempotencyServerOptions): IdempotencyConfig {
  const {
    tools = 'mutating',
    maxTtlSeconds = 604_800,
    defaultTtlSeconds = Math.min(DEFAULT_TTL_SECONDS, maxTtlSeconds),
    inFlightWaitMs = 10_000,
    pollIntervalMs = 100,
    leaseMs = 60_000,
    maxKeysPerPrincipal = 10_000,
    inProgressRetryAfterSeconds = 1,
    keyPrefix = 'idempotency',
    now = Date.now,
  } = options;
  checkRule(tools);
  positiveIntegerOption(FACTORY, 'maxTtlSeconds', maxTtlSeconds);
  positiveIntegerOption(FACTORY, 'defaultTtlSeconds', defaultTtlSeconds);
  if (defaultTtlSeconds > maxTtlSeconds) {
    throw new ConfigurationError(
      'INVALID_OPTION',
      `idempotencyServer: defaultTtlSeconds (${defaultTtlSeconds}) must not exceed maxTtlSeconds (${maxTtlSeconds})`,
    );
  }
  positiveIntegerOption(FACTORY, 'leaseMs', leaseMs);
  if (leaseMs < 3) throw new ConfigurationError('INVALID_OPTION', 'idempotencyServer: leaseMs must be at least 3');
  if (typeof keyPrefix !== 'string' || keyPrefix.length === 0) {
    throw new ConfigurationError('INVALID_OPTION', 'idempotencyServer: keyPrefix must be a non-empty string');
  }
  if (typeof now !== 'function') {
    throw new ConfigurationError('INVALID_OPTION', 'idempotencyServer: now must be a function returning milliseconds');
  }
  return {
    tools,
    defaultTtlSeconds,
    maxTtlSeconds,
    inFlightWaitMs: nonNegativeIntegerOption(FACTORY, 'inFlightWaitMs', inFlightWaitMs),
    pollIntervalMs: positiveIntegerOption(FACTORY, 'pollIntervalMs', pollIntervalMs),
    leaseMs,
    maxKeysPerPrincipal: positiveIntegerOption(FACTORY, 'maxKeysPerPrincipal', maxKeysPerPrincipal),
    inProgressRetryAfterSeconds: nonNegativeIntegerOption(
      FACTORY,
      'inProgressRetryAfterSeconds',
      inProgressRetryAfterSeconds,
    ),
    keyPrefix,
    now,
  };
}

/** The options of `transactionsServer`, their defaults, and the checks made when the factory is called. */
import { ConfigurationError, type Logger } from '@ext/core';
import { positiveIntegerOption, type Resolved } from '@ext/core/kit';
import type { CompensationDefinition, Compensations } from './compensation.js';
import { bindingFault } from './recovery-annotation.js';
import { DEFAULT_TIMEOUT_SECONDS } from './schema.js';

export interface TransactionsServerOptions {
  /**
   * Compensations by tool name. Only these tools can be steps of a
   * transaction; a read-only tool (`readOnlyHint`) may also be called inside
   * one and is not recorded. Default: none.
   */
  readonly compensations?: Compensations | undefined;
  /** Inactivity timeout of a transaction whose `begin` names none. Default 300 s. */
  readonly defaultTimeoutSeconds?: number | undefined;
  /** A larger `timeout_seconds` is refused. Default `max(3600, defaultTimeoutSeconds)`. */
  readonly maxTimeoutSeconds?: number | undefined;
  /** How long a finished transaction stays readable. Default 86400 s. */
  readonly retentionSeconds?: number | undefined;
  /** A rollback run whose process died is taken over after this. Default `max(60, 2 × compensationTimeoutSeconds)`. */
  readonly leaseSeconds?: number | undefined;
  /** A compensation running longer fails with `OPERATION_TIMEOUT`. Default 30 s. */
  readonly compensationTimeoutSeconds?: number | undefined;
  /** Namespace of every store key. Default `"transactions"`. */
  readonly keyPrefix?: string | undefined;
  /** Entries kept in the sweeper's index stream. Default 100000. */
  readonly indexMaxLength?: number | undefined;
  /** Clock in milliseconds (tests pass a fake one). Default `Date.now`. */
  readonly now?: (() => number) | undefined;
  /** Where failed compensations are reported when no request's logger is at hand. */
  readonly logger?: Logger | undefined;
  /** Serve the four operations as tools too (see `registerTransactionTools`). Default `false`. */
  readonly exposeAsTools?: boolean | undefined;
  /**
   * How often the sweeper looks for timed-out transactions and abandoned
   * rollbacks. It starts, with a first pass at once, when the extension is
   * attached to a server and its store (`extendServer`), before any request.
   * `0` disables it: call `start(store)` or `sweep(store)` yourself.
   * Default 5000 ms.
   */
  readonly sweepIntervalMs?: number | undefined;
}

/** The options the engine runs with, every default filled in (`logger` has none). */
export type EngineOptions = Resolved<Omit<TransactionsServerOptions, 'exposeAsTools' | 'sweepIntervalMs'>, 'logger'>;

const FACTORY = 'transactionsServer';

function checkCompensations(compensations: Compensations): void {
  if (typeof compensations !== 'object') {
    throw new ConfigurationError(
      'INVALID_OPTION',
      'transactionsServer: "compensations" must be an object keyed by tool name',
    );
  }
  for (const [tool, entry] of Object.entries(compensations)) {
    const fn = typeof entry === 'function' ? entry : (entry as Partial<CompensationDefinition> | undefined)?.compensate;
    if (typeof fn !== 'function') {
      throw new ConfigurationError(
        'INVALID_OPTION',
        `transactionsServer: "compensations.${tool}" must be a function or an object with a "compensate" function`,
      );
    }
    if (typeof entry !== 'function') checkBindings(tool, entry.bindings);
  }
}

/** `bindings` must map names to strings whose expressions an MCP call can satisfy (SEP-3172 §4.2). */
function checkBindings(tool: string, bindings: unknown): void {
  if (bindings === undefined) return;
  const field = `compensations.${tool}.bindings`;
  if (typeof bindings !== 'object' || bindings === null || Array.isArray(bindings)) {
    throw new ConfigurationError('INVALID_OPTION', `transactionsServer: "${field}" must be an object of strings`);
  }
  for (const [name, value] of Object.entries(bindings)) {
    if (typeof value !== 'string') {
      throw new ConfigurationError('INVALID_OPTION', `transactionsServer: "${field}.${name}" must be a string`);
    }
  }
  const fault = bindingFault(bindings as Record<string, string>);
  if (fault !== undefined) {
    throw new ConfigurationError('INVALID_OPTION', `transactionsServer: "${field}.${fault.name}": ${fault.message}`);
  }
}

/** Resolves and validates the engine's options once, naming the option at fault. */
export function resolveEngineOptions(raw: TransactionsServerOptions): EngineOptions {
  const {
    compensations = {},
    defaultTimeoutSeconds = DEFAULT_TIMEOUT_SECONDS,
    maxTimeoutSeconds = Math.max(3600, defaultTimeoutSeconds),
    retentionSeconds = 86_400,
    compensationTimeoutSeconds = 30,
    leaseSeconds = Math.max(60, compensationTimeoutSeconds * 2),
    keyPrefix = 'transactions',
    indexMaxLength = 100_000,
    now = Date.now,
    logger,
  } = raw;
  checkCompensations(compensations);
  positiveIntegerOption(FACTORY, 'defaultTimeoutSeconds', defaultTimeoutSeconds);
  positiveIntegerOption(FACTORY, 'maxTimeoutSeconds', maxTimeoutSeconds);
  if (defaultTimeoutSeconds > maxTimeoutSeconds) {
    throw new ConfigurationError(
      'INVALID_OPTION',
      'transactionsServer: "defaultTimeoutSeconds" must not exceed "maxTimeoutSeconds"',
    );
  }
  positiveIntegerOption(FACTORY, 'compensationTimeoutSeconds', compensationTimeoutSeconds);
  positiveIntegerOption(FACTORY, 'leaseSeconds', leaseSeconds);
  if (leaseSeconds <= compensationTimeoutSeconds) {
    throw new ConfigurationError(
      'INVALID_OPTION',
      'transactionsServer: "leaseSeconds" must exceed "compensationTimeoutSeconds"',
    );
  }
  if (typeof keyPrefix !== 'string' || keyPrefix.length === 0) {
    throw new ConfigurationError('INVALID_OPTION', 'transactionsServer: "keyPrefix" must be a non-empty string');
  }
  if (typeof now !== 'function') {
    throw new ConfigurationError(
      'INVALID_OPTION',
      'transactionsServer: "now" must be a function returning milliseconds',
    );
  }
  return {
    compensations,
    defaultTimeoutSeconds,
    maxTimeoutSeconds,
    retentionSeconds: positiveIntegerOption(FACTORY, 'retentionSeconds', retentionSeconds),
    leaseSeconds,
    compensationTimeoutSeconds,
    keyPrefix,
    indexMaxLength: positiveIntegerOption(FACTORY, 'indexMaxLength', indexMaxLength),
    now,
    logger,
  };
}

/** The sweeper's period in milliseconds (`0`: no timer). */
export function resolveSweepInterval(value: number | undefined): number {
  const sweepIntervalMs = value ?? 5000;
  if (!Number.isSafeInteger(sweepIntervalMs) || sweepIntervalMs < 0) {
    throw new ConfigurationError(
      'INVALID_OPTION',
      'transactionsServer: "sweepIntervalMs" must be a non-negative integer',
    );
  }
  return sweepIntervalMs;
}

/** The options of `streamCall`, checked: `autoResume` with its defaults, `resumeFrom`, and the default resume test. */
import { ConfigurationError, WireError } from '@ext/core';
import { isRecord, renamedKeys, type Resolved } from '@ext/core/kit';
import type { AutoResumeOptions, Checkpoint, StreamCallOptions } from './call-types.js';
import { isValidOperationId } from './logic.js';
import { MAX_CHECKPOINT_TOKEN_LENGTH } from './schema.js';
import { checkpointOf } from './updates.js';

/** `autoResume` with every default applied (`reconnect` has none: the same client). */
export type ResolvedResume = Resolved<AutoResumeOptions, 'reconnect'>;

function nonNegativeInteger(name: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw new ConfigurationError(
      'INVALID_OPTION',
      `streamCall: ${name} must be a non-negative integer, got ${typeof value === 'number' ? value : typeof value}`,
    );
  }
  return value;
}

/** `autoResume` resolved, or `undefined` when it is off. Throws `INVALID_OPTION` naming the bad field. */
export function resolveResume(option: StreamCallOptions['autoResume']): ResolvedResume | undefined {
  if (option === undefined || option === false) return undefined;
  const given: AutoResumeOptions = option === true ? {} : option;
  if (typeof given !== 'object')
    throw new ConfigurationError('INVALID_OPTION', 'streamCall: autoResume must be a boolean or an object');
  const { maxAttempts = 3, delayMs = 250, reconnect, shouldResume = isInterruption } = given;
  if (reconnect !== undefined && typeof reconnect !== 'function') {
    throw new ConfigurationError('INVALID_OPTION', 'streamCall: autoResume.reconnect must be a function');
  }
  if (typeof shouldResume !== 'function') {
    throw new ConfigurationError('INVALID_OPTION', 'streamCall: autoResume.shouldResume must be a function');
  }
  return {
    maxAttempts: nonNegativeInteger('autoResume.maxAttempts', maxAttempts),
    delayMs: nonNegativeInteger('autoResume.delayMs', delayMs),
    reconnect,
    shouldResume,
  };
}

/**
 * JSON-RPC codes an SDK reports for a connection that went away or a reply
 * that never came (-32000 connection closed, -32001 request timeout),
 * rather than for an answer of the server.
 */
const INTERRUPTION_CODES: readonly number[] = [-32000, -32001];

/**
 * The default test of `autoResume`: an attempt was interrupted (transport
 * failure, closed connection, timeout) rather than answered with a
 * JSON-RPC error, which a repeat would get again.
 */
export function isInterruption(error: unknown): boolean {
  return !WireError.isInstance(error) || INTERRUPTION_CODES.includes(error.code);
}

/**
 * `resumeFrom` as a `Checkpoint` gave it (the 0.1 snake_case spelling still
 * accepted, deprecated); throws `INVALID_CHECKPOINT` for anything else.
 */
export function checkCheckpoint(value: unknown): Checkpoint {
  const record = renamedKeys('@ext/streaming streamCall resumeFrom', isRecord(value) ? value : {}, {
    operation_id: 'operationId',
    checkpoint_token: 'checkpointToken',
  });
  const token = record.checkpointToken;
  if (
    !isValidOperationId(record.operationId) ||
    typeof token !== 'string' ||
    token.length === 0 ||
    token.length > MAX_CHECKPOINT_TOKEN_LENGTH
  ) {
    throw new ConfigurationError(
      'INVALID_CHECKPOINT',
      'streamCall: resumeFrom must be { operationId, checkpointToken }, a checkpoint the call gave',
    );
  }
  return checkpointOf(record.operationId, token);
}

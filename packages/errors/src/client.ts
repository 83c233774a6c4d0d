import { ConfigurationError, type ClientExtension, type OutgoingCall, type StructuredError } from '@ext/core';
import { resolveErrorsIdentifiers, type ErrorsIdentifier } from './identifiers.js';
import { getStructuredError } from './retry.js';
import { ERRORS_PACKAGE_NAME, ERRORS_WIRE_VERSION, ErrorsSettingsSchema } from './schema.js';

export interface ErrorsClientOptions {
  /** Called with the structured error of every failed tool call, e.g. for telemetry. */
  readonly onToolError?: ((error: StructuredError, call: OutgoingCall) => void) | undefined;
  /**
   * Generations of the wire contract to advertise, e.g. `['v1', 'v2']`; the
   * newest one the server serves too is used. Default `['v1']`.
   */
  readonly identifiers?: readonly ErrorsIdentifier[] | undefined;
}

const OPTION_NAMES = new Set(['onToolError', 'identifiers']);

function validateOptions(options: unknown): ErrorsClientOptions {
  if (options === undefined) return {};
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new ConfigurationError('INVALID_OPTION', `${ERRORS_PACKAGE_NAME}: errorsClient(options) expects an object`);
  }
  const record = options as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    if (!OPTION_NAMES.has(key)) {
      throw new ConfigurationError('INVALID_OPTION', `${ERRORS_PACKAGE_NAME}: unknown option "${key}"`);
    }
  }
  if (record.onToolError !== undefined && typeof record.onToolError !== 'function') {
    throw new ConfigurationError('INVALID_OPTION', `${ERRORS_PACKAGE_NAME}: option "onToolError" must be a function`);
  }
  return record;
}

/**
 * The client half: advertises the extension so servers attach structured
 * errors to failed tool results. Read them with {@link getStructuredError};
 * retry with {@link withRetry}.
 */
export function errorsClient(options?: ErrorsClientOptions): ClientExtension {
  const { onToolError, identifiers } = validateOptions(options);
  return {
    side: 'client',
    name: ERRORS_PACKAGE_NAME,
    ids: resolveErrorsIdentifiers(identifiers, 'errorsClient'),
    settings: { version: ERRORS_WIRE_VERSION },
    peerSettings: ErrorsSettingsSchema,
    onResult:
      onToolError === undefined
        ? undefined
        : (result, call, negotiated) => {
            if (negotiated === undefined) return;
            const structured = getStructuredError(result);
            if (structured !== undefined) onToolError(structured, call);
          },
  };
}

export {
  getStructuredError,
  isRetryable,
  withRetry,
  retryDelayMs,
  resolveRetryPolicy,
  abortableSleep,
  DEFAULT_RETRY_POLICY,
} from './retry.js';
export type { RetryPolicy, ResolvedRetryPolicy, RetryEvent } from './retry.js';

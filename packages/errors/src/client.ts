/** The client half of `@ext/errors`: advertising the extension, and reading and retrying on structured errors. */
import type { ClientExtension, OutgoingCall, StructuredError } from '@ext/core';
import { resolveErrorsIdentifiers, type ErrorsIdentifier } from './identifiers.js';
import { checkFunctionOptions, optionRecord } from './option-checks.js';
import { readDraftFailure } from './read.js';
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
  const record = optionRecord(options, 'errorsClient', OPTION_NAMES);
  checkFunctionOptions(record, ['onToolError']);
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
            // Without our extension, a server may still send the SEP-3313 key alone (ERR-34).
            const structured =
              negotiated === undefined ? readDraftFailure(result, Date.now())?.structured : getStructuredError(result);
            if (structured !== undefined) onToolError(structured, call);
          },
  };
}

export { getStructuredError, isRetryable, withRetry } from './retry.js';
export { readToolFailure } from './read.js';
export type { RetryPolicy, RetryEvent } from './retry.js';

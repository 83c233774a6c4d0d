/** `confirmationServer` options: what a server author may set, the defaults, and the checks made at construction. */
import { ConfigurationError, positiveIntegerOption } from '@ext/core';

export interface ConfirmationGrantOptions {
  /** Most calls one grant may cover. Default 50. */
  readonly maxCalls?: number | undefined;
  /** Longest lifetime of a grant, in seconds. Default 600. */
  readonly maxDurationSeconds?: number | undefined;
}

/** Turns a call's arguments into the arguments a person is shown (`displayArguments`). */
export type DisplayArguments = (args: Readonly<Record<string, unknown>>) => Readonly<Record<string, unknown>>;

export interface ConfirmationServerOptions {
  /** Lifetime of a confirmation token, in seconds. Default 300 (5 minutes). */
  readonly tokenTtlSeconds?: number | undefined;
  /**
   * Which path wins when a client both negotiated the extension and can
   * elicit: `'token'` (default: the client half shows its own dialog) or
   * `'elicitation'` (the server asks in-band).
   */
  readonly prefer?: 'token' | 'elicitation' | undefined;
  /** Most tokens one `approve` request may carry. Default 100. */
  readonly maxBatchSize?: number | undefined;
  /** Offer `<id>/grant` (N calls of one tool within T seconds). Default `false`: not offered. */
  readonly grants?: ConfirmationGrantOptions | false | undefined;
  /** How long used and expired tokens are kept so a replay gets its own error. Default 3600 seconds. */
  readonly retentionSeconds?: number | undefined;
  /** Most entries kept in the audit stream. Default 10000. */
  readonly auditMaxLength?: number | undefined;
  /** Namespace of every store key this extension writes. Default `"confirmation"`. */
  readonly keyPrefix?: string | undefined;
  /**
   * How a call's arguments look to a person and in what is kept: the message
   * (placeholders filled in, or the generated one) that the elicitation, a
   * held call's `confirmation_required` entry, a token's record and a refusal
   * carry is built from what this returns, so a value it hides (a secret) is
   * neither shown nor stored; audit entries record no arguments at all. What
   * runs, and what a token or question is bound to, are the call's own
   * arguments. Default: the arguments as they are.
   */
  readonly displayArguments?: DisplayArguments | undefined;
  /** Wall clock in milliseconds (tests). Default `Date.now`. */
  readonly now?: (() => number) | undefined;
}

/** The options as the server uses them: defaults applied, durations in milliseconds. */
export interface ConfirmationConfig {
  readonly tokenTtlMs: number;
  readonly prefer: 'token' | 'elicitation';
  readonly maxBatchSize: number;
  readonly grants: { readonly maxCalls: number; readonly maxDurationSeconds: number } | undefined;
  readonly retentionMs: number;
  readonly auditMaxLength: number;
  readonly keyPrefix: string;
  readonly displayArguments: DisplayArguments;
  readonly now: () => number;
}

const FACTORY = 'confirmationServer';

/** Checks `options` and applies the defaults; throws `INVALID_OPTION` naming the option. */
export function resolveOptions(options: ConfirmationServerOptions): ConfirmationConfig {
  // Typed as string: JavaScript callers can pass anything.
  const prefer: string = options.prefer ?? 'token';
  if (prefer !== 'token' && prefer !== 'elicitation') {
    throw new ConfigurationError('INVALID_OPTION', 'confirmationServer: prefer must be "token" or "elicitation"');
  }
  const keyPrefix = options.keyPrefix ?? 'confirmation';
  if (typeof keyPrefix !== 'string' || keyPrefix.length === 0) {
    throw new ConfigurationError('INVALID_OPTION', 'confirmationServer: keyPrefix must be a non-empty string');
  }
  if (options.now !== undefined && typeof options.now !== 'function') {
    throw new ConfigurationError('INVALID_OPTION', 'confirmationServer: now must be a function returning milliseconds');
  }
  if (options.displayArguments !== undefined && typeof options.displayArguments !== 'function') {
    throw new ConfigurationError(
      'INVALID_OPTION',
      'confirmationServer: displayArguments must be a function from the arguments to the arguments shown',
    );
  }
  const grants =
    options.grants === undefined || options.grants === false
      ? undefined
      : {
          maxCalls: positiveIntegerOption(FACTORY, 'grants.maxCalls', options.grants.maxCalls, 50),
          maxDurationSeconds: positiveIntegerOption(
            FACTORY,
            'grants.maxDurationSeconds',
            options.grants.maxDurationSeconds,
            600,
          ),
        };
  return {
    tokenTtlMs: positiveIntegerOption(FACTORY, 'tokenTtlSeconds', options.tokenTtlSeconds, 300) * 1000,
    prefer,
    maxBatchSize: positiveIntegerOption(FACTORY, 'maxBatchSize', options.maxBatchSize, 100),
    grants,
    retentionMs: positiveIntegerOption(FACTORY, 'retentionSeconds', options.retentionSeconds, 3600) * 1000,
    auditMaxLength: positiveIntegerOption(FACTORY, 'auditMaxLength', options.auditMaxLength, 10_000),
    keyPrefix,
    displayArguments: options.displayArguments ?? ((args) => args),
    now: options.now ?? Date.now,
  };
}

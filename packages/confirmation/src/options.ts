/** `confirmationServer` options: what a server author may set, the defaults, and the checks made at construction. */
import {
  ConfigurationError,
  nonNegativeIntegerOption,
  positiveIntegerOption,
  type CallContext,
  type ToolCall,
  type ToolInfo,
} from '@ext/core';
import type { ApprovalDesk } from './approvals/desk.js';
import type { HeldCallConfig } from './approvals/held.js';

export interface ConfirmationGrantOptions {
  /** Most calls one grant may cover. Default 50. */
  readonly maxCalls?: number | undefined;
  /** Longest lifetime of a grant, in seconds. Default 600. */
  readonly maxDurationSeconds?: number | undefined;
}

/** Turns a call's arguments into the arguments a person is shown (`displayArguments`). */
export type DisplayArguments = (args: Readonly<Record<string, unknown>>) => Readonly<Record<string, unknown>>;

/**
 * Who approves a gated call (CONF-27): `'user'` through the client (a token
 * or an in-band question), `'operator'` out of band (an approval request on
 * the desk), `'either'` in-band when the client can ask, else out of band.
 */
export type Approver = 'user' | 'operator' | 'either';

/** The approver decided per call. */
export type ApproverRule = (tool: ToolInfo, call: ToolCall, ctx: CallContext) => Approver;

export interface ConfirmationServerOptions {
  /** Who approves a gated call, for every tool or per call. Default `'user'`. */
  readonly approver?: Approver | ApproverRule | undefined;
  /** Where calls held for an operator wait (`approvalDesk`); required when anything may be approved out of band. */
  readonly approvals?: ApprovalDesk | undefined;
  /**
   * How long a held call that is not a task waits for the decision before it
   * is answered `CONFIRMATION_PENDING`, in seconds; 0 answers at once. Default 20.
   */
  readonly holdSeconds?: number | undefined;
  /** The version of the policy in force, recorded with each approval request. Default none. */
  readonly policyVersion?: string | undefined;
  /**
   * Checked again once a request is approved and before the call runs (the
   * deployment's current policy: the tool still offered, the caller still
   * allowed); throws an `ExtensionError` to refuse. Default none.
   */
  readonly recheck?: ((call: ToolCall, ctx: CallContext) => void | Promise<void>) | undefined;
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
  readonly approver: ApproverRule;
  /** Set when an approval desk was given. */
  readonly held: HeldCallConfig | undefined;
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

const APPROVERS: readonly string[] = ['user', 'operator', 'either'];

function approverRule(option: ConfirmationServerOptions['approver'], desk: ApprovalDesk | undefined): ApproverRule {
  if (typeof option === 'function') return option;
  const approver: string = option ?? 'user';
  if (!APPROVERS.includes(approver)) {
    throw new ConfigurationError(
      'INVALID_OPTION',
      `${FACTORY}: approver must be "user", "operator", "either" or a function`,
    );
  }
  if (approver !== 'user' && desk === undefined) {
    throw new ConfigurationError(
      'INVALID_OPTION',
      `${FACTORY}: approver "${approver}" needs approvals (an approvalDesk)`,
    );
  }
  return () => approver as Approver;
}

function heldCalls(options: ConfirmationServerOptions): HeldCallConfig | undefined {
  const desk = options.approvals;
  if (desk === undefined) return undefined;
  if (typeof desk !== 'object' || typeof desk.open !== 'function') {
    throw new ConfigurationError('INVALID_OPTION', `${FACTORY}: approvals must be an approvalDesk`);
  }
  if (options.recheck !== undefined && typeof options.recheck !== 'function') {
    throw new ConfigurationError('INVALID_OPTION', `${FACTORY}: recheck must be a function`);
  }
  if (options.policyVersion !== undefined && typeof options.policyVersion !== 'string') {
    throw new ConfigurationError('INVALID_OPTION', `${FACTORY}: policyVersion must be a string`);
  }
  return {
    desk,
    holdMs: nonNegativeIntegerOption(FACTORY, 'holdSeconds', options.holdSeconds, 20) * 1000,
    policyVersion: options.policyVersion,
    recheck: options.recheck,
  };
}

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
    approver: approverRule(options.approver, options.approvals),
    held: heldCalls(options),
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

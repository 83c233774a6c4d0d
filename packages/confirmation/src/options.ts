/** `confirmationServer` options: what a server author may set, the defaults, and the checks made at construction. */
import { ConfigurationError, type CallContext, type ToolCall, type ToolInfo } from '@ext/core';
import { nonNegativeIntegerOption, positiveIntegerOption, type Resolved } from '@ext/core/kit';
import type { ApprovalDesk } from './approvals/desk-types.js';

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

/** A held call's settings (`approvals/held.ts`), from the server's options. */
export type HeldCallConfig = Resolved<
  Pick<ConfirmationServerOptions, 'policyVersion' | 'recheck'>,
  'policyVersion' | 'recheck'
> & {
  readonly desk: ApprovalDesk;
  readonly holdMs: number;
};

/** The options as the server uses them: defaults applied, the approver a rule, durations in milliseconds. */
export type ConfirmationConfig = Resolved<
  Omit<
    ConfirmationServerOptions,
    | 'approver'
    | 'approvals'
    | 'holdSeconds'
    | 'policyVersion'
    | 'recheck'
    | 'tokenTtlSeconds'
    | 'grants'
    | 'retentionSeconds'
  >
> & {
  readonly approver: ApproverRule;
  /** Set when an approval desk was given. */
  readonly held: HeldCallConfig | undefined;
  readonly tokenTtlMs: number;
  /** Set when grants are offered. */
  readonly grants: Resolved<ConfirmationGrantOptions> | undefined;
  readonly retentionMs: number;
};

const FACTORY = 'confirmationServer';

const APPROVERS: readonly string[] = ['user', 'operator', 'either'];

/** The default `displayArguments`: a person sees the arguments as they are. */
const asGiven: DisplayArguments = (args) => args;

function approverRule(option: Approver | ApproverRule, desk: ApprovalDesk | undefined): ApproverRule {
  if (typeof option === 'function') return option;
  // Typed as string: JavaScript callers can pass anything.
  const approver: string = option;
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
  const { approvals: desk, recheck, policyVersion, holdSeconds = 20 } = options;
  if (desk === undefined) return undefined;
  if (typeof desk !== 'object' || typeof desk.open !== 'function') {
    throw new ConfigurationError('INVALID_OPTION', `${FACTORY}: approvals must be an approvalDesk`);
  }
  if (recheck !== undefined && typeof recheck !== 'function') {
    throw new ConfigurationError('INVALID_OPTION', `${FACTORY}: recheck must be a function`);
  }
  if (policyVersion !== undefined && typeof policyVersion !== 'string') {
    throw new ConfigurationError('INVALID_OPTION', `${FACTORY}: policyVersion must be a string`);
  }
  return { desk, holdMs: nonNegativeIntegerOption(FACTORY, 'holdSeconds', holdSeconds) * 1000, policyVersion, recheck };
}

function grantLimits(grants: ConfirmationGrantOptions): Resolved<ConfirmationGrantOptions> {
  const { maxCalls = 50, maxDurationSeconds = 600 } = grants;
  return {
    maxCalls: positiveIntegerOption(FACTORY, 'grants.maxCalls', maxCalls),
    maxDurationSeconds: positiveIntegerOption(FACTORY, 'grants.maxDurationSeconds', maxDurationSeconds),
  };
}

/** Checks `options` and applies the defaults; throws `INVALID_OPTION` naming the option. */
export function resolveOptions(options: ConfirmationServerOptions): ConfirmationConfig {
  const {
    approver = 'user',
    approvals,
    tokenTtlSeconds = 300,
    prefer = 'token',
    maxBatchSize = 100,
    grants = false,
    retentionSeconds = 3600,
    auditMaxLength = 10_000,
    keyPrefix = 'confirmation',
    displayArguments = asGiven,
    now = Date.now,
  } = options;
  // Typed as string: JavaScript callers can pass anything.
  const preferred: string = prefer;
  if (preferred !== 'token' && preferred !== 'elicitation') {
    throw new ConfigurationError('INVALID_OPTION', 'confirmationServer: prefer must be "token" or "elicitation"');
  }
  if (typeof keyPrefix !== 'string' || keyPrefix.length === 0) {
    throw new ConfigurationError('INVALID_OPTION', 'confirmationServer: keyPrefix must be a non-empty string');
  }
  if (typeof now !== 'function') {
    throw new ConfigurationError('INVALID_OPTION', 'confirmationServer: now must be a function returning milliseconds');
  }
  if (typeof displayArguments !== 'function') {
    throw new ConfigurationError(
      'INVALID_OPTION',
      'confirmationServer: displayArguments must be a function from the arguments to the arguments shown',
    );
  }
  const offered = grants === false ? undefined : grantLimits(grants);
  return {
    approver: approverRule(approver, approvals),
    held: heldCalls(options),
    tokenTtlMs: positiveIntegerOption(FACTORY, 'tokenTtlSeconds', tokenTtlSeconds) * 1000,
    prefer,
    maxBatchSize: positiveIntegerOption(FACTORY, 'maxBatchSize', maxBatchSize),
    grants: offered,
    retentionMs: positiveIntegerOption(FACTORY, 'retentionSeconds', retentionSeconds) * 1000,
    auditMaxLength: positiveIntegerOption(FACTORY, 'auditMaxLength', auditMaxLength),
    keyPrefix,
    displayArguments,
    now,
  };
}

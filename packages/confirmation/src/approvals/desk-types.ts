/**
 * The approval desk's interface (CONF-22 to CONF-26) and what its approver
 * backends hear, apart from the desk itself (`desk.ts`), so that the server's
 * options and a held call name the desk without importing it.
 */
import type { Logger, Store } from '@ext/core';
import type {
  ApprovalDecision,
  ApprovalOutcome,
  ApprovalRecord,
  ApprovalRequestInput,
  ApprovalState,
} from './record.js';

/** What an approver backend hears: a new request, or a decision (expiry included). */
export interface ApprovalEvent {
  readonly type: 'requested' | 'decided';
  readonly record: ApprovalRecord;
  /** Where a person decides it (the desk's `link`), when the desk has a page. */
  readonly link: string | undefined;
}

/**
 * A way for approvers to hear of requests (a page, webhooks, a chat bot).
 * `notify` is called once per event on the instance where it happened, in
 * the background; a failure is logged and changes nothing for the held call.
 */
export interface ApproverBackend {
  readonly name: string;
  notify(event: ApprovalEvent, desk: ApprovalDesk): Promise<void>;
}

export interface ApprovalDeskOptions {
  /** The store the server uses: every instance on it shares the requests. */
  readonly store: Store;
  /** How long a request waits for a decision, in seconds. Default 900 (15 minutes). */
  readonly ttlSeconds?: number | undefined;
  /** How long a request is kept after it expires or is decided, for its audit trail. Default 604800 (7 days). */
  readonly retentionSeconds?: number | undefined;
  /** Where a person decides request `id` (an approvals page): a base URL the id is appended to, or a function. */
  readonly link?: string | ((id: string) => string) | undefined;
  /** Told of each request and decision. Default none. */
  readonly backends?: readonly ApproverBackend[] | undefined;
  /** Logs a backend's failure. Default: nothing logged. */
  readonly logger?: Logger | undefined;
  /** Namespace of the store keys; the confirmation server's `keyPrefix`. Default `"confirmation"`. */
  readonly keyPrefix?: string | undefined;
  /** Most entries kept in the audit stream. Default 10000. */
  readonly auditMaxLength?: number | undefined;
  /** Wall clock in milliseconds (tests). Default `Date.now`. */
  readonly now?: (() => number) | undefined;
}

export interface ApprovalListOptions {
  /** Only requests in this state (as they stand now: a pending one past its expiry is expired). */
  readonly state?: ApprovalState | undefined;
  /** At most this many, newest first. Default 100. */
  readonly limit?: number | undefined;
}

/** The desk a confirmation server holds calls at and approvers decide through. */
export interface ApprovalDesk {
  readonly ttlMs: number;
  /** Opens a request for a held call, or finds the open one of the same caller and call (`created: false`). */
  open(input: ApprovalRequestInput): Promise<{ readonly record: ApprovalRecord; readonly created: boolean }>;
  /** The request as it stands now, or `undefined`. */
  get(id: string): Promise<ApprovalRecord | undefined>;
  /** Requests, newest first. */
  list(options?: ApprovalListOptions): Promise<ApprovalRecord[]>;
  /**
   * Decides a pending request once. Throws `APPROVAL_NOT_FOUND`,
   * `APPROVAL_ALREADY_DECIDED` or `APPROVAL_EXPIRED` (`ExtensionError`).
   */
  decide(id: string, decision: ApprovalDecision): Promise<ApprovalRecord>;
  /** Withdraws a pending request for its caller (its task was cancelled): nobody can decide it any more, nothing runs. */
  cancel(id: string): Promise<ApprovalRecord | undefined>;
  /** Claims an approved request for the one execution it allows; `undefined` when it is not approved or was claimed. */
  claim(id: string): Promise<ApprovalRecord | undefined>;
  /** Records what came of the held call: how its execution ended, or that a caller was told it did not run. */
  finish(id: string, outcome: ApprovalOutcome): Promise<void>;
  /** Resolves when the request is no longer pending, or after `timeoutMs` (then still pending). */
  wait(id: string, options?: { readonly timeoutMs?: number; readonly signal?: AbortSignal }): Promise<ApprovalRecord>;
  /** Calls `listener` with each request that changes, on any instance; resolves to a function that stops it. */
  watch(listener: (record: ApprovalRecord) => void): Promise<() => Promise<void>>;
  /** Where a person decides request `id`, when the desk has a page. */
  link(id: string): string | undefined;
  /** Resolves once the backends have been told of every event so far (their deliveries ended), e.g. before shutting down. */
  drain(): Promise<void>;
  /** The store the requests are kept in: an approvals page keeps its sign-ins there too. */
  readonly store: Store;
  /** Namespace of the desk's store keys (the option `keyPrefix`). */
  readonly keyPrefix: string;
}

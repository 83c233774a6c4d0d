/** `approvalsPage` options: what a server author sets, the defaults, and the checks made at construction. */
import { ConfigurationError } from '@ext/core';
import { positiveIntegerOption, type Resolved } from '@ext/core/kit';
import type { ApprovalDesk } from '../desk.js';

/** Who is asking, as the server's own identity says: the principal and the scopes it was granted. */
export interface PageCaller {
  readonly principal: string;
  readonly scopes: readonly string[];
}

export interface ApprovalsPageOptions {
  /** The desk the requests are on; sign-ins are kept in its store, under its key prefix. */
  readonly desk: ApprovalDesk;
  /**
   * Who is asking: from an `Authorization` header (API key or OAuth bearer),
   * as the server's own identity does. `undefined` = not signed in. The
   * sign-in form hands it a request carrying `Authorization: Bearer <what was pasted>`.
   */
  readonly authenticate: (request: Request) => Promise<PageCaller | undefined>;
  /** Scope an approver needs. Default `'approvals:decide'`. */
  readonly approverScope?: string | undefined;
  /** Path the page is served under. Default `'/approvals'`. */
  readonly basePath?: string | undefined;
  /** Lifetime of a browser sign-in, seconds. Default 28800 (8 hours). */
  readonly sessionSeconds?: number | undefined;
  /** Wall clock in milliseconds (tests). Default `Date.now`. */
  readonly now?: (() => number) | undefined;
}

/** The options once checked, defaults applied. */
export type PageConfig = Resolved<ApprovalsPageOptions>;

const FACTORY = 'approvalsPage';
const BASE_PATH = /^(?:\/[A-Za-z0-9._~-]+)+$/;
const SCOPE = /^[\x21\x23-\x5B\x5D-\x7E]+$/;

function invalid(option: string, rule: string): ConfigurationError {
  return new ConfigurationError('INVALID_OPTION', `${FACTORY}: ${option} ${rule}`);
}

function checkDesk(desk: unknown): void {
  const candidate = desk as Partial<ApprovalDesk> | undefined;
  const ok =
    typeof candidate === 'object' &&
    typeof candidate.list === 'function' &&
    typeof candidate.decide === 'function' &&
    typeof candidate.watch === 'function' &&
    typeof candidate.store === 'object' &&
    typeof candidate.keyPrefix === 'string';
  if (!ok) throw invalid('desk', 'must be an approvalDesk');
}

/** Checks the options once, when the page is made; a bad one throws `ConfigurationError` naming it. */
export function resolvePageOptions(options: ApprovalsPageOptions): PageConfig {
  if (typeof options !== 'object') throw invalid('options', 'must be an object');
  const {
    desk,
    authenticate,
    approverScope = 'approvals:decide',
    basePath = '/approvals',
    sessionSeconds = 28_800,
    now = Date.now,
  } = options;
  checkDesk(desk);
  if (typeof authenticate !== 'function') {
    throw invalid('authenticate', 'must be a function of the request (the server identity check)');
  }
  if (typeof approverScope !== 'string' || !SCOPE.test(approverScope)) {
    throw invalid('approverScope', 'must be one OAuth scope (no spaces or quotes)');
  }
  if (typeof basePath !== 'string' || !BASE_PATH.test(basePath)) {
    throw invalid('basePath', 'must be a path such as /approvals (not the root; no trailing slash, query or fragment)');
  }
  if (typeof now !== 'function') throw invalid('now', 'must be a function returning epoch milliseconds');
  return {
    desk,
    authenticate,
    approverScope,
    basePath,
    sessionSeconds: positiveIntegerOption(FACTORY, 'sessionSeconds', sessionSeconds),
    now,
  };
}

/**
 * The approval desk: approval requests in the store (CONF-22 to CONF-26).
 * A held call opens one, or attaches to the open one of the same caller and
 * call; an approver decides it once (compare-and-set); the execution it
 * allows claims it once. Every transition is audited and published, so a
 * call held on one instance goes on when another instance decides, and the
 * approver backends (a page, webhooks) hear of each request.
 */
import { randomUUID } from 'node:crypto';
import { ConfigurationError, type Logger, type Store } from '@ext/core';
import { positiveIntegerOption } from '@ext/core/kit';
import { audit, type ConfirmationAuditEvent } from '../audit.js';
import { secretDigest } from '../records.js';
import { notFound, refused } from './desk-errors.js';
import {
  approvalJson,
  attached,
  claimed,
  decided,
  finished,
  isOpen,
  newApprovalRecord,
  parseApprovalRecord,
  settled,
  withdrawn,
  type ApprovalDecision,
  type ApprovalOutcome,
  type ApprovalRecord,
  type ApprovalRequestInput,
  type ApprovalState,
} from './record.js';
import { waitForDecision } from './wait.js';

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

const FACTORY = 'approvalDesk';
const INDEX_LENGTH = 2000;
const PAGE = 200;

function linkOf(option: ApprovalDeskOptions['link']): (id: string) => string | undefined {
  if (option === undefined) return () => undefined;
  if (typeof option === 'function') return option;
  if (typeof option !== 'string' || !/^https?:\/\//.test(option)) {
    throw new ConfigurationError('INVALID_OPTION', `${FACTORY}: link must be an http(s) URL or a function of the id`);
  }
  const base = option.endsWith('/') ? option : `${option}/`;
  return (id) => `${base}${encodeURIComponent(id)}`;
}

/** Creates the desk. Options are checked here; a bad one throws `ConfigurationError` naming it. */
export function approvalDesk(options: ApprovalDeskOptions): ApprovalDesk {
  if (typeof options.store !== 'object') {
    throw new ConfigurationError('INVALID_OPTION', `${FACTORY}: store is required (the server's store)`);
  }
  const { store } = options;
  const keyPrefix = options.keyPrefix ?? 'confirmation';
  const config = {
    now: options.now ?? Date.now,
    keyPrefix,
    auditMaxLength: positiveIntegerOption(FACTORY, 'auditMaxLength', options.auditMaxLength, 10_000),
  };
  const ttlMs = positiveIntegerOption(FACTORY, 'ttlSeconds', options.ttlSeconds, 900) * 1000;
  const retentionMs = positiveIntegerOption(FACTORY, 'retentionSeconds', options.retentionSeconds, 604_800) * 1000;
  const link = linkOf(options.link);
  const backends = options.backends ?? [];
  const recordKey = (id: string) => `${keyPrefix}:approval:${id}`;
  const callKey = (principal: string, argsDigest: string) =>
    `${keyPrefix}:approval-call:${secretDigest(`${principal}\n${argsDigest}`)}`;
  const indexStream = `${keyPrefix}:approvals`;
  const channel = `${keyPrefix}:approvals`;
  const telling = new Set<Promise<void>>();
  const ttlFor = (record: ApprovalRecord) => Math.max(1, record.expires_at - config.now()) + retentionMs;

  const load = async (id: string) => parseApprovalRecord(await store.get(recordKey(id)));

  const auditTransition = async (record: ApprovalRecord, event: ConfirmationAuditEvent, by?: string) => {
    await audit(config, store, {
      event,
      principal: by ?? record.principal,
      tool: record.tool,
      risk_level: record.risk_level,
      ref: record.id,
    });
  };

  const tell = async (type: ApprovalEvent['type'], record: ApprovalRecord) => {
    await store.publish(channel, { id: record.id, state: record.state });
    const event: ApprovalEvent = { type, record, link: link(record.id) };
    // Told in the background: a slow or unreachable backend never delays the held call or the decision.
    for (const backend of backends) {
      const told = backend.notify(event, desk).catch((error: unknown) => {
        options.logger?.warn(`confirmation: the ${backend.name} approver backend failed`, { id: record.id, error });
      });
      telling.add(told);
      void told.finally(() => telling.delete(told));
    }
  };

  /** Writes `next` over `current` (compare-and-set); false when another writer got there first. */
  const replace = (current: ApprovalRecord, next: ApprovalRecord) =>
    store.compareAndSet(recordKey(current.id), approvalJson(current), approvalJson(next), { ttlMs: ttlFor(next) });

  /** The stored record as it stands now; a pending one past its expiry is written expired (once, audited). */
  const current = async (id: string): Promise<ApprovalRecord | undefined> => {
    for (;;) {
      const stored = await load(id);
      if (stored === undefined) return undefined;
      const now = settled(stored, config.now());
      if (now === stored) return stored;
      if (await replace(stored, now)) {
        await auditTransition(now, 'approval_expired');
        await tell('decided', now);
        return now;
      }
    }
  };

  const create = async (input: ApprovalRequestInput) => {
    const record = newApprovalRecord(randomUUID(), input, config.now(), ttlMs);
    await store.set(recordKey(record.id), approvalJson(record), { ttlMs: ttlFor(record) });
    await store.append(indexStream, record.id, { maxLength: INDEX_LENGTH });
    return record;
  };

  const attach = async (id: string, principal: string): Promise<ApprovalRecord | undefined> => {
    for (;;) {
      const record = await current(id);
      if (record === undefined || !isOpen(record)) return undefined;
      if (await replace(record, attached(record, principal, config.now()))) {
        await auditTransition(record, 'approval_attached');
        return record;
      }
    }
  };

  const desk: ApprovalDesk = {
    ttlMs,
    async open(input) {
      const key = callKey(input.principal, input.argsDigest);
      for (;;) {
        const existing = await store.get(key);
        if (typeof existing === 'string') {
          const record = await attach(existing, input.principal);
          if (record !== undefined) return { record, created: false };
        }
        const record = await create(input);
        // Whoever wrote the call's key first holds the call; a loser attaches to the winner's request.
        const written =
          existing === undefined
            ? await store.setIfAbsent(key, record.id, { ttlMs: ttlFor(record) })
            : await store.compareAndSet(key, existing, record.id, { ttlMs: ttlFor(record) });
        if (!written) {
          await store.delete(recordKey(record.id));
          continue;
        }
        await auditTransition(record, 'approval_requested');
        await tell('requested', record);
        return { record, created: true };
      }
    },
    get: current,
    async list({ state, limit = 100 } = {}) {
      const ids: string[] = [];
      let after: string | undefined;
      for (;;) {
        const entries = await store.read(indexStream, { after, limit: PAGE });
        for (const entry of entries) if (typeof entry.value === 'string') ids.push(entry.value);
        const last = entries.at(-1);
        if (entries.length < PAGE || last === undefined) break;
        after = last.id;
      }
      const out: ApprovalRecord[] = [];
      for (const id of ids.reverse()) {
        const record = await current(id);
        if (record !== undefined && (state === undefined || record.state === state)) out.push(record);
        if (out.length >= limit) break;
      }
      return out;
    },
    async decide(id, decision) {
      for (;;) {
        const record = await current(id);
        if (record === undefined) throw notFound(id);
        const outcome = decided(record, decision, config.now());
        if ('refusal' in outcome) throw refused(outcome.refusal, outcome.record);
        if (!(await replace(record, outcome.record))) continue;
        await auditTransition(outcome.record, decision.approve ? 'approval_approved' : 'approval_denied', decision.by);
        await tell('decided', outcome.record);
        return outcome.record;
      }
    },
    async cancel(id) {
      for (;;) {
        const record = await current(id);
        const next = record === undefined ? undefined : withdrawn(record, config.now());
        if (record === undefined || next === undefined) return undefined;
        if (await replace(record, next)) {
          await auditTransition(next, 'approval_cancelled');
          await tell('decided', next);
          return next;
        }
      }
    },
    async claim(id) {
      for (;;) {
        const record = await current(id);
        const next = record === undefined ? undefined : claimed(record, config.now());
        if (record === undefined || next === undefined) return undefined;
        if (await replace(record, next)) {
          await auditTransition(next, 'approval_claimed');
          return next;
        }
      }
    },
    async finish(id, outcome) {
      for (;;) {
        const record = await current(id);
        const next = record === undefined ? undefined : finished(record, outcome, config.now());
        if (record === undefined || next === undefined) return;
        if (await replace(record, next)) {
          await auditTransition(next, `approval_${outcome}`);
          await store.publish(channel, { id, state: next.state });
          return;
        }
      }
    },
    wait: (id, { timeoutMs, signal } = {}) =>
      waitForDecision({ desk, store, channel, now: config.now }, id, timeoutMs, signal),
    async watch(listener) {
      return store.subscribe(channel, (message) => {
        const id = (message as { id?: unknown } | null)?.id;
        if (typeof id !== 'string') return;
        void current(id).then(
          (record) => {
            if (record !== undefined) listener(record);
          },
          () => undefined,
        );
      });
    },
    link,
    store,
    keyPrefix,
    async drain() {
      while (telling.size > 0) await Promise.all(telling);
    },
  };
  return desk;
}

/**
 * The approval desk: approval requests in the store (CONF-22 to CONF-26).
 * A held call opens one, or attaches to the open one of the same caller and
 * call; an approver decides it once (compare-and-set); the execution it
 * allows claims it once. Every transition is audited once (`decide`) and
 * published, so a call held on one instance goes on when another instance
 * decides, and the approver backends (a page, webhooks) hear of each request.
 */
import { randomUUID } from 'node:crypto';
import { ConfigurationError, type Store } from '@ext/core';
import { positiveIntegerOption } from '@ext/core/kit';
import { decide, type ApprovalTransition, type DecisionScope } from '../decisions.js';
import { secretDigest } from '../records.js';
import { notFound, refused } from './desk-errors.js';
import type { ApprovalDesk, ApprovalDeskOptions, ApprovalEvent, ApprovalListOptions } from './desk-types.js';
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
} from './record.js';
import { waitForDecision } from './wait.js';

export type {
  ApprovalDesk,
  ApprovalDeskOptions,
  ApprovalEvent,
  ApprovalListOptions,
  ApproverBackend,
} from './desk-types.js';

const FACTORY = 'approvalDesk';
const INDEX_LENGTH = 2000;
const PAGE = 200;

/** What the desk's operations share: the store, its keys, the clock, the backends and the deliveries under way. */
interface DeskState {
  readonly options: ApprovalDeskOptions;
  readonly store: Store;
  readonly config: DecisionScope['config'];
  readonly ttlMs: number;
  readonly retentionMs: number;
  readonly link: (id: string) => string | undefined;
  /** The index of requests, and the channel their changes are published on. */
  readonly channel: string;
  readonly telling: Set<Promise<void>>;
  /** The desk the backends are handed. */
  readonly desk: () => ApprovalDesk;
}

function linkOf(option: ApprovalDeskOptions['link']): (id: string) => string | undefined {
  if (option === undefined) return () => undefined;
  if (typeof option === 'function') return option;
  if (typeof option !== 'string' || !/^https?:\/\//.test(option)) {
    throw new ConfigurationError('INVALID_OPTION', `${FACTORY}: link must be an http(s) URL or a function of the id`);
  }
  const base = option.endsWith('/') ? option : `${option}/`;
  return (id) => `${base}${encodeURIComponent(id)}`;
}

/** The desk's state from its options, checked here; a bad one throws `ConfigurationError` naming it. */
function deskState(options: ApprovalDeskOptions, desk: () => ApprovalDesk): DeskState {
  if (typeof options.store !== 'object') {
    throw new ConfigurationError('INVALID_OPTION', `${FACTORY}: store is required (the server's store)`);
  }
  const keyPrefix = options.keyPrefix ?? 'confirmation';
  return {
    options,
    store: options.store,
    config: {
      now: options.now ?? Date.now,
      keyPrefix,
      auditMaxLength: positiveIntegerOption(FACTORY, 'auditMaxLength', options.auditMaxLength, 10_000),
    },
    ttlMs: positiveIntegerOption(FACTORY, 'ttlSeconds', options.ttlSeconds, 900) * 1000,
    retentionMs: positiveIntegerOption(FACTORY, 'retentionSeconds', options.retentionSeconds, 604_800) * 1000,
    link: linkOf(options.link),
    channel: `${keyPrefix}:approvals`,
    telling: new Set(),
    desk,
  };
}

const recordKey = (s: DeskState, id: string) => `${s.config.keyPrefix}:approval:${id}`;

/** How long a request is kept from now: until it expires, and for the retention after. */
const ttlFor = (s: DeskState, r: ApprovalRecord) => Math.max(1, r.expires_at - s.config.now()) + s.retentionMs;

/** Writes `to` over `from` (compare-and-set); false when another writer got there first. */
const replace = (s: DeskState, from: ApprovalRecord, to: ApprovalRecord) =>
  s.store.compareAndSet(recordKey(s, from.id), approvalJson(from), approvalJson(to), { ttlMs: ttlFor(s, to) });

/** Audits the request's transition, decided `by` someone or else its caller's; `undo` takes it back if that fails. */
function audited(
  s: DeskState,
  record: ApprovalRecord,
  transition: ApprovalTransition,
  undo: () => Promise<unknown>,
  by?: string,
): Promise<void> {
  const scope: DecisionScope = {
    config: s.config,
    store: s.store,
    principal: by ?? record.principal,
    tool: record.tool,
    riskLevel: record.risk_level,
  };
  return decide(scope, { kind: 'approval', transition, id: record.id }, { undo });
}

/** Writes `next` over `current` and audits the transition once; false when another writer got there first. */
async function commit(
  s: DeskState,
  current: ApprovalRecord,
  next: ApprovalRecord,
  transition: ApprovalTransition,
  by?: string,
): Promise<boolean> {
  if (!(await replace(s, current, next))) return false;
  // A transition nobody recorded did not happen: the request is put back as it was.
  await audited(s, next, transition, () => replace(s, next, current), by);
  return true;
}

/** Publishes the change, and tells the backends in the background. */
async function tell(s: DeskState, type: ApprovalEvent['type'], record: ApprovalRecord): Promise<void> {
  await s.store.publish(s.channel, { id: record.id, state: record.state });
  const event: ApprovalEvent = { type, record, link: s.link(record.id) };
  // Told in the background: a slow or unreachable backend never delays the held call or the decision.
  for (const backend of s.options.backends ?? []) {
    const told = backend.notify(event, s.desk()).catch((error: unknown) => {
      s.options.logger?.warn(`confirmation: the ${backend.name} approver backend failed`, { id: record.id, error });
    });
    s.telling.add(told);
    void told.finally(() => s.telling.delete(told));
  }
}

/** The stored record as it stands now; a pending one past its expiry is written expired (once, audited). */
async function current(s: DeskState, id: string): Promise<ApprovalRecord | undefined> {
  for (;;) {
    const stored = parseApprovalRecord(await s.store.get(recordKey(s, id)));
    if (stored === undefined) return undefined;
    const now = settled(stored, s.config.now());
    if (now === stored) return stored;
    if (await commit(s, stored, now, 'approval_expired')) {
      await tell(s, 'decided', now);
      return now;
    }
  }
}

/** Applies `change` to the request as it stands until written; the request written, or `undefined` if it does not apply. */
async function update(
  s: DeskState,
  id: string,
  change: (record: ApprovalRecord, now: number) => ApprovalRecord | undefined,
  event: ApprovalTransition,
): Promise<ApprovalRecord | undefined> {
  for (;;) {
    const record = await current(s, id);
    const next = record === undefined ? undefined : change(record, s.config.now());
    if (record === undefined || next === undefined) return undefined;
    if (await commit(s, record, next, event)) return next;
  }
}

/** Attaches a retry of the call to its open request; `undefined` when the request is no longer open. */
async function attach(s: DeskState, id: string, principal: string): Promise<ApprovalRecord | undefined> {
  for (;;) {
    const record = await current(s, id);
    if (record === undefined || !isOpen(record)) return undefined;
    if (await commit(s, record, attached(record, principal, s.config.now()), 'approval_attached')) return record;
  }
}

async function open(
  s: DeskState,
  input: ApprovalRequestInput,
): Promise<{ readonly record: ApprovalRecord; readonly created: boolean }> {
  const key = `${s.config.keyPrefix}:approval-call:${secretDigest(`${input.principal}\n${input.argsDigest}`)}`;
  for (;;) {
    const existing = await s.store.get(key);
    if (typeof existing === 'string') {
      const record = await attach(s, existing, input.principal);
      if (record !== undefined) return { record, created: false };
    }
    const record = newApprovalRecord(randomUUID(), input, s.config.now(), s.ttlMs);
    const ttlMs = ttlFor(s, record);
    await s.store.set(recordKey(s, record.id), approvalJson(record), { ttlMs });
    await s.store.append(s.channel, record.id, { maxLength: INDEX_LENGTH });
    // Whoever wrote the call's key first holds the call; a loser attaches to the winner's request.
    const written =
      existing === undefined
        ? await s.store.setIfAbsent(key, record.id, { ttlMs })
        : await s.store.compareAndSet(key, existing, record.id, { ttlMs });
    const drop = () => s.store.delete(recordKey(s, record.id));
    if (!written) {
      await drop();
      continue;
    }
    // A request nobody recorded was not opened: the call's key then names none, and the next call opens it again.
    await audited(s, record, 'approval_requested', drop);
    await tell(s, 'requested', record);
    return { record, created: true };
  }
}

async function list(s: DeskState, { state, limit = 100 }: ApprovalListOptions = {}): Promise<ApprovalRecord[]> {
  const ids: string[] = [];
  let after: string | undefined;
  for (;;) {
    const entries = await s.store.read(s.channel, { after, limit: PAGE });
    for (const entry of entries) if (typeof entry.value === 'string') ids.push(entry.value);
    const last = entries.at(-1);
    if (entries.length < PAGE || last === undefined) break;
    after = last.id;
  }
  const out: ApprovalRecord[] = [];
  for (const id of ids.reverse()) {
    const record = await current(s, id);
    if (record !== undefined && (state === undefined || record.state === state)) out.push(record);
    if (out.length >= limit) break;
  }
  return out;
}

async function decideRequest(s: DeskState, id: string, decision: ApprovalDecision): Promise<ApprovalRecord> {
  for (;;) {
    const record = await current(s, id);
    if (record === undefined) throw notFound(id);
    const outcome = decided(record, decision, s.config.now());
    if ('refusal' in outcome) throw refused(outcome.refusal, outcome.record);
    const event = decision.approve ? 'approval_approved' : 'approval_denied';
    if (!(await commit(s, record, outcome.record, event, decision.by))) continue;
    await tell(s, 'decided', outcome.record);
    return outcome.record;
  }
}

async function cancel(s: DeskState, id: string): Promise<ApprovalRecord | undefined> {
  const next = await update(s, id, withdrawn, 'approval_cancelled');
  if (next !== undefined) await tell(s, 'decided', next);
  return next;
}

async function finish(s: DeskState, id: string, outcome: ApprovalOutcome): Promise<void> {
  const change = (record: ApprovalRecord, now: number) => finished(record, outcome, now);
  const next = await update(s, id, change, `approval_${outcome}`);
  if (next !== undefined) await s.store.publish(s.channel, { id, state: next.state });
}

function watch(s: DeskState, listener: (record: ApprovalRecord) => void): Promise<() => Promise<void>> {
  return s.store.subscribe(s.channel, (message) => {
    const id = (message as { id?: unknown } | null)?.id;
    if (typeof id !== 'string') return;
    void current(s, id).then(
      (record) => {
        if (record !== undefined) listener(record);
      },
      () => undefined,
    );
  });
}

/** Creates the desk. Options are checked here; a bad one throws `ConfigurationError` naming it. */
export function approvalDesk(options: ApprovalDeskOptions): ApprovalDesk {
  const s = deskState(options, () => desk);
  const desk: ApprovalDesk = {
    ttlMs: s.ttlMs,
    open: (input) => open(s, input),
    get: (id) => current(s, id),
    list: (listOptions) => list(s, listOptions),
    decide: (id, decision) => decideRequest(s, id, decision),
    cancel: (id) => cancel(s, id),
    claim: (id) => update(s, id, claimed, 'approval_claimed'),
    finish: (id, outcome) => finish(s, id, outcome),
    wait: (id, { timeoutMs, signal } = {}) =>
      waitForDecision({ desk, store: s.store, channel: s.channel, now: s.config.now }, id, timeoutMs, signal),
    watch: (listener) => watch(s, listener),
    link: s.link,
    store: s.store,
    keyPrefix: s.config.keyPrefix,
    async drain() {
      while (s.telling.size > 0) await Promise.all(s.telling);
    },
  };
  return desk;
}

/**
 * The project tracker's domain: tickets kept through core's `Store`, with no
 * MCP in sight. Every failure is one of `@ext/errors`' typed errors, so the
 * errors extension can hand a client something it can act on.
 */
import { isRecord, type JsonValue } from '@ext/core/kit';
import { type Store } from '@ext/core';
import { csvReport } from './report.js';
import type { Attachment, ChatMessage, StoredReport, Ticket } from './ticket.js';
import {
  channelArchived,
  parseAssignee,
  parseChannel,
  parseDocumentUrl,
  parseMessage,
  parseReportId,
  parseStatus,
  parseTicketId,
  parseTitle,
  reportNotFound,
  ticketAlreadyClosed,
  ticketNotFound,
} from './tracker-input.js';

/** How long an exported report is kept. */
export const REPORT_TTL_MS = 24 * 3600 * 1000;

/** Channels that no longer take posts: posting there fails, which the saga in the tour relies on. */
export const ARCHIVED_CHANNELS: readonly string[] = ['archive'];

const KEY_PREFIX = 'tracker';
const SEQUENCE_KEY = `${KEY_PREFIX}:sequence`;
const INDEX_STREAM = `${KEY_PREFIX}:index`;
const PAGE_SIZE = 100;

const REPORT_SEQUENCE_KEY = `${KEY_PREFIX}:report-sequence`;

const ticketKey = (id: string): string => `${KEY_PREFIX}:ticket:${id}`;
const reportKey = (id: string): string => `${KEY_PREFIX}:report:${id}`;
const chatStream = (channel: string): string => `${KEY_PREFIX}:chat:${channel}`;

/** The ticket with its status changed to closed at `at`. */
export function closed(ticket: Ticket, at: Date): Ticket {
  return { ...ticket, status: 'closed', closed_at: at.toISOString() };
}

function isReport(value: JsonValue | undefined): value is JsonValue & StoredReport {
  if (!isRecord(value)) return false;
  return typeof value.id === 'string' && typeof value.csv === 'string' && typeof value.rows === 'number';
}

function isTicket(value: JsonValue | undefined): value is JsonValue & Ticket {
  if (!isRecord(value)) return false;
  return (
    typeof value.id === 'string' &&
    typeof value.title === 'string' &&
    (value.status === 'open' || value.status === 'closed')
  );
}

export interface CreateTicketInput {
  title?: unknown;
  assignee?: unknown;
}

export interface TrackerOptions {
  /** Clock, for tests. Default: the system clock. */
  readonly now?: (() => Date) | undefined;
}

/** The tracker's operations, bound to one store. */
export interface Tracker {
  create(input: CreateTicketInput): Promise<Ticket>;
  get(id: unknown): Promise<Ticket>;
  list(filter?: { status?: unknown }): Promise<Ticket[]>;
  close(id: unknown): Promise<Ticket>;
  /** Deletes a ticket for good; returns what it was. */
  delete(id: unknown): Promise<Ticket>;
  /** Links a document to a ticket (idempotent: linking twice keeps one link). */
  link(id: unknown, url: unknown): Promise<Ticket>;
  /** Removes a link (idempotent). */
  unlink(id: unknown, url: unknown): Promise<Ticket>;
  /** Records an attached image on a ticket. */
  attach(id: unknown, attachment: Attachment): Promise<Ticket>;
  /** Posts to a team chat channel. */
  post(channel: unknown, text: unknown): Promise<ChatMessage>;
  /** The messages of a channel, oldest first. */
  messages(channel: unknown): Promise<ChatMessage[]>;
  /** A new report id, taken before the export starts so a resumed export keeps it. */
  reserveReport(): Promise<string>;
  /** Keeps the CSV of `tickets` as report `id` for {@link REPORT_TTL_MS}. */
  saveReport(id: string, tickets: readonly Ticket[], filter: string): Promise<StoredReport>;
  getReport(id: unknown): Promise<StoredReport>;
}

async function load(store: Store, id: string): Promise<Ticket> {
  const value = await store.get(ticketKey(id));
  if (!isTicket(value)) throw ticketNotFound(id);
  return value;
}

/**
 * Replaces ticket `id` with `change(current)` by compare-and-set, retrying on
 * a concurrent write, so concurrent changes never lose one another. `change`
 * may throw to refuse (a ticket already closed).
 */
async function swap(store: Store, id: string, change: (current: Ticket) => Ticket): Promise<Ticket> {
  for (;;) {
    const current = await load(store, id);
    const next = change(current);
    if (await store.compareAndSet(ticketKey(id), current as unknown as JsonValue, next as unknown as JsonValue))
      return next;
  }
}

async function createTicket(store: Store, input: CreateTicketInput, now: () => Date): Promise<Ticket> {
  const title = parseTitle(input.title);
  const assignee = parseAssignee(input.assignee);
  const id = `T-${await store.increment(SEQUENCE_KEY)}`;
  const ticket: Ticket = { id, title, status: 'open', created_at: now().toISOString() };
  if (assignee !== undefined) ticket.assignee = assignee;
  await store.set(ticketKey(id), ticket as unknown as JsonValue);
  await store.append(INDEX_STREAM, id);
  return ticket;
}

async function listTickets(store: Store, filter: { status?: unknown }): Promise<Ticket[]> {
  const status = parseStatus(filter.status);
  const tickets: Ticket[] = [];
  let after: string | undefined;
  for (;;) {
    const page = await store.read(INDEX_STREAM, { after, limit: PAGE_SIZE });
    for (const entry of page) {
      const value = typeof entry.value === 'string' ? await store.get(ticketKey(entry.value)) : undefined;
      if (isTicket(value) && (status === undefined || value.status === status)) tickets.push(value);
    }
    const last = page.at(-1);
    if (last === undefined || page.length < PAGE_SIZE) return tickets;
    after = last.id;
  }
}

/** The ticket's links without `url`, then with it again at the end when `change` is `link`. */
function relinked(ticket: Ticket, url: string, change: 'link' | 'unlink'): Ticket {
  const links = (ticket.links ?? []).filter((existing) => existing !== url);
  if (change === 'link') links.push(url);
  return { ...ticket, links };
}

async function postMessage(store: Store, channel: unknown, text: unknown, now: () => Date): Promise<ChatMessage> {
  const name = parseChannel(channel);
  const body = parseMessage(text);
  if (ARCHIVED_CHANNELS.includes(name)) throw channelArchived(name);
  const message: ChatMessage = { channel: name, text: body, posted_at: now().toISOString() };
  await store.append(chatStream(name), message as unknown as JsonValue);
  return message;
}

async function saveReport(
  store: Store,
  id: string,
  tickets: readonly Ticket[],
  filter: string,
  now: () => Date,
): Promise<StoredReport> {
  const csv = csvReport(tickets);
  const report: StoredReport = {
    id: parseReportId(id),
    media_type: 'text/csv',
    filter,
    rows: tickets.length,
    bytes: Buffer.byteLength(csv, 'utf8'),
    created_at: now().toISOString(),
    csv,
  };
  await store.set(reportKey(report.id), report as unknown as JsonValue, { ttlMs: REPORT_TTL_MS });
  return report;
}

/**
 * Binds the tracker to a store. The store is injected (memory today, SQLite
 * or Redis later) so tickets live wherever the extensions keep their state.
 */
export function createTracker(store: Store, options: TrackerOptions = {}): Tracker {
  const now = options.now ?? (() => new Date());
  return {
    create: (input) => createTicket(store, input, now),
    async get(id) {
      return load(store, parseTicketId(id));
    },
    list: (filter = {}) => listTickets(store, filter),
    async close(id) {
      // Compare-and-set: of two concurrent closes, exactly one succeeds and the other sees it closed.
      return swap(store, parseTicketId(id), (current) => {
        if (current.status === 'closed') throw ticketAlreadyClosed(current);
        return closed(current, now());
      });
    },
    async delete(id) {
      const ticketId = parseTicketId(id);
      const current = await load(store, ticketId);
      await store.delete(ticketKey(ticketId));
      return current;
    },
    link: (id, url) => swapLinks(store, id, url, 'link'),
    unlink: (id, url) => swapLinks(store, id, url, 'unlink'),
    async attach(id, attachment) {
      return swap(store, parseTicketId(id), (current) => ({
        ...current,
        attachments: [...(current.attachments ?? []), attachment],
      }));
    },
    post: (channel, text) => postMessage(store, channel, text, now),
    async messages(channel) {
      const entries = await store.read(chatStream(parseChannel(channel)), { limit: PAGE_SIZE });
      return entries.map((entry) => entry.value as unknown as ChatMessage);
    },
    async reserveReport() {
      return `R-${await store.increment(REPORT_SEQUENCE_KEY)}`;
    },
    saveReport: (id, tickets, filter) => saveReport(store, id, tickets, filter, now),
    async getReport(id) {
      const reportId = parseReportId(id);
      const value = await store.get(reportKey(reportId));
      if (!isReport(value)) throw reportNotFound(reportId);
      return value;
    },
  };
}

/** Links or unlinks a document (compare-and-set, so concurrent link changes never lose one another). */
function swapLinks(store: Store, id: unknown, url: unknown, change: 'link' | 'unlink'): Promise<Ticket> {
  const ticketId = parseTicketId(id);
  const document = parseDocumentUrl(url);
  return swap(store, ticketId, (current) => relinked(current, document, change));
}

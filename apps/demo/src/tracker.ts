/**
 * The project tracker's domain: tickets kept through core's `Store`, with no
 * MCP in sight. Every failure is one of `@ext/errors`' typed errors, so the
 * errors extension can hand a client something it can act on.
 */
import type { JsonValue, Store } from '@ext/core';
import { InvalidInputError, PermanentError } from '@ext/errors';
import { csvReport } from './report.js';

export const TICKET_STATUSES = ['open', 'closed'] as const;
export type TicketStatus = (typeof TICKET_STATUSES)[number];

export interface Ticket {
  id: string;
  title: string;
  status: TicketStatus;
  assignee?: string;
  /** ISO 8601, UTC. */
  created_at: string;
  /** ISO 8601, UTC; present once closed. */
  closed_at?: string;
  /** Linked documents (https URLs), in the order they were linked. */
  links?: string[];
  /** Attached images, described (the bytes themselves are not kept in the ticket). */
  attachments?: Attachment[];
}

/** What the tracker keeps of an attached image. */
export interface Attachment {
  media_type: string;
  bytes: number;
  sha256: string;
  /** How the bytes arrived: inline image content, or a data reference (out of band). */
  via: string;
}

/** A message posted to a team chat channel. */
export interface ChatMessage {
  channel: string;
  text: string;
  /** ISO 8601, UTC. */
  posted_at: string;
}

/** An exported report, kept so another tool (or server) can fetch it later. */
export interface StoredReport {
  id: string;
  media_type: 'text/csv';
  /** Which tickets it holds: `open`, `closed` or `all`. */
  filter: string;
  /** Ticket rows, the header not counted. */
  rows: number;
  /** UTF-8 length of `csv`. */
  bytes: number;
  /** ISO 8601, UTC. */
  created_at: string;
  csv: string;
}

/** How long an exported report is kept. */
export const REPORT_TTL_MS = 24 * 3600 * 1000;
export const REPORT_ID_PATTERN = /^R-[1-9][0-9]{0,15}$/;

/** Channels that no longer take posts: posting there fails, which the saga in the tour relies on. */
export const ARCHIVED_CHANNELS: readonly string[] = ['archive'];
export const CHANNEL_PATTERN = /^[a-z0-9][a-z0-9-]{0,39}$/;

export const MAX_TITLE_LENGTH = 200;
export const TICKET_ID_PATTERN = /^T-[1-9][0-9]{0,15}$/;
export const ASSIGNEE_PATTERN = /^[A-Za-z0-9._@-]{1,64}$/;

const KEY_PREFIX = 'tracker';
const SEQUENCE_KEY = `${KEY_PREFIX}:sequence`;
const INDEX_STREAM = `${KEY_PREFIX}:index`;
const PAGE_SIZE = 100;

const REPORT_SEQUENCE_KEY = `${KEY_PREFIX}:report-sequence`;

const ticketKey = (id: string): string => `${KEY_PREFIX}:ticket:${id}`;
const reportKey = (id: string): string => `${KEY_PREFIX}:report:${id}`;
const chatStream = (channel: string): string => `${KEY_PREFIX}:chat:${channel}`;

function invalid(field: string, message: string, suggestion: string): InvalidInputError {
  return new InvalidInputError('INVALID_INPUT', message, {
    suggestion,
    userActionable: false,
    details: { field, pointer: `/${field}` },
  });
}

/** A ticket id as the tools accept it (`T-1`); throws `invalid_input` naming `field` otherwise. */
export function parseTicketId(value: unknown, field = 'id'): string {
  if (typeof value !== 'string' || !TICKET_ID_PATTERN.test(value.trim())) {
    throw invalid(
      field,
      `"${field}" must be a ticket id such as T-1.`,
      `Pass "${field}" as "T-" followed by the ticket number, e.g. "T-1".`,
    );
  }
  return value.trim();
}

export function parseTitle(value: unknown): string {
  const title = typeof value === 'string' ? value.trim() : '';
  if (title === '') {
    throw invalid('title', '"title" must not be empty.', 'Give the ticket a short title.');
  }
  if (title.length > MAX_TITLE_LENGTH) {
    throw invalid(
      'title',
      `"title" is longer than ${MAX_TITLE_LENGTH} characters.`,
      'Shorten the title; put details elsewhere.',
    );
  }
  return title;
}

export function parseAssignee(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || !ASSIGNEE_PATTERN.test(value.trim())) {
    throw invalid(
      'assignee',
      '"assignee" must be a user name of 1 to 64 letters, digits or ._@- characters.',
      'Pass a user name such as "alice", or leave "assignee" out.',
    );
  }
  return value.trim();
}

export function parseStatus(value: unknown): TicketStatus | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string' && (TICKET_STATUSES as readonly string[]).includes(value)) return value as TicketStatus;
  throw invalid(
    'status',
    '"status" must be "open" or "closed".',
    'Pass "open" or "closed", or leave "status" out to list every ticket.',
  );
}

/** A report id as the tools accept it (`R-1`); throws `invalid_input` naming `field` otherwise. */
export function parseReportId(value: unknown, field = 'report'): string {
  if (typeof value !== 'string' || !REPORT_ID_PATTERN.test(value.trim())) {
    throw invalid(
      field,
      `"${field}" must be a report id such as R-1.`,
      `Pass "${field}" as "R-" followed by the report number, as export_report returned it.`,
    );
  }
  return value.trim();
}

export function reportNotFound(id: string): PermanentError {
  return new PermanentError('RESOURCE_NOT_FOUND', `Report ${id} does not exist (reports are kept for a day).`, {
    suggestion: 'Call export_report to make a new one.',
    userActionable: true,
    details: { id },
  });
}

export function ticketNotFound(id: string): PermanentError {
  return new PermanentError('RESOURCE_NOT_FOUND', `Ticket ${id} does not exist.`, {
    suggestion: 'Call list_tickets to see the ids of existing tickets.',
    userActionable: true,
    details: { id },
  });
}

export function ticketAlreadyClosed(ticket: Ticket): PermanentError {
  return new PermanentError('TICKET_ALREADY_CLOSED', `Ticket ${ticket.id} is already closed.`, {
    suggestion: `Nothing to do: ${ticket.id} stays closed. Call get_ticket to see it.`,
    userActionable: true,
    details: ticket.closed_at === undefined ? { id: ticket.id } : { id: ticket.id, closed_at: ticket.closed_at },
  });
}

/** The ticket with its status changed to closed at `at`. */
export function closed(ticket: Ticket, at: Date): Ticket {
  return { ...ticket, status: 'closed', closed_at: at.toISOString() };
}

function isReport(value: JsonValue | undefined): value is JsonValue & StoredReport {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  return typeof value.id === 'string' && typeof value.csv === 'string' && typeof value.rows === 'number';
}

function isTicket(value: JsonValue | undefined): value is JsonValue & Ticket {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
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

export function parseDocumentUrl(value: unknown): string {
  let url: URL | undefined;
  try {
    url = typeof value === 'string' ? new URL(value) : undefined;
  } catch {
    // Not a URL at all: reported below like any other bad value.
    url = undefined;
  }
  if (url?.protocol !== 'https:') {
    throw invalid(
      'url',
      '"url" must be an https URL.',
      'Link documents by their https address, e.g. "https://docs.example.com/spec".',
    );
  }
  return url.href;
}

export function parseChannel(value: unknown): string {
  if (typeof value !== 'string' || !CHANNEL_PATTERN.test(value)) {
    throw invalid(
      'channel',
      '"channel" must be a channel name such as "releases".',
      'Use lowercase letters, digits and dashes.',
    );
  }
  return value;
}

function parseMessage(value: unknown): string {
  const text = typeof value === 'string' ? value.trim() : '';
  if (text === '' || text.length > 2000)
    throw invalid('text', '"text" must be 1 to 2000 characters.', 'Write a short message.');
  return text;
}

/**
 * Binds the tracker to a store. The store is injected (memory today, SQLite
 * or Redis later) so tickets live wherever the extensions keep their state.
 */
export function createTracker(store: Store, options: TrackerOptions = {}): Tracker {
  const now = options.now ?? (() => new Date());

  const load = async (id: string): Promise<Ticket> => {
    const value = await store.get(ticketKey(id));
    if (!isTicket(value)) throw ticketNotFound(id);
    return value;
  };

  return {
    async create(input) {
      const title = parseTitle(input.title);
      const assignee = parseAssignee(input.assignee);
      const id = `T-${await store.increment(SEQUENCE_KEY)}`;
      const ticket: Ticket = { id, title, status: 'open', created_at: now().toISOString() };
      if (assignee !== undefined) ticket.assignee = assignee;
      await store.set(ticketKey(id), ticket as unknown as JsonValue);
      await store.append(INDEX_STREAM, id);
      return ticket;
    },

    async get(id) {
      return load(parseTicketId(id));
    },

    async list(filter = {}) {
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
    },

    async close(id) {
      const ticketId = parseTicketId(id);
      for (;;) {
        const current = await load(ticketId);
        if (current.status === 'closed') throw ticketAlreadyClosed(current);
        const next = closed(current, now());
        // Compare-and-set: of two concurrent closes, exactly one succeeds and the other sees it closed.
        if (
          await store.compareAndSet(ticketKey(ticketId), current as unknown as JsonValue, next as unknown as JsonValue)
        ) {
          return next;
        }
      }
    },

    async delete(id) {
      const ticketId = parseTicketId(id);
      const current = await load(ticketId);
      await store.delete(ticketKey(ticketId));
      return current;
    },

    link: (id, url) => update(parseTicketId(id), parseDocumentUrl(url), 'link'),
    unlink: (id, url) => update(parseTicketId(id), parseDocumentUrl(url), 'unlink'),

    async attach(id, attachment) {
      const ticketId = parseTicketId(id);
      for (;;) {
        const current = await load(ticketId);
        const next: Ticket = { ...current, attachments: [...(current.attachments ?? []), attachment] };
        if (
          await store.compareAndSet(ticketKey(ticketId), current as unknown as JsonValue, next as unknown as JsonValue)
        )
          return next;
      }
    },

    async post(channel, text) {
      const name = parseChannel(channel);
      const body = parseMessage(text);
      if (ARCHIVED_CHANNELS.includes(name)) {
        throw new PermanentError('CHANNEL_ARCHIVED', `#${name} is archived and takes no new messages.`, {
          suggestion: 'Post to an active channel, such as #releases.',
          userActionable: true,
          details: { channel: name },
        });
      }
      const message: ChatMessage = { channel: name, text: body, posted_at: now().toISOString() };
      await store.append(chatStream(name), message as unknown as JsonValue);
      return message;
    },

    async messages(channel) {
      const entries = await store.read(chatStream(parseChannel(channel)), { limit: PAGE_SIZE });
      return entries.map((entry) => entry.value as unknown as ChatMessage);
    },

    async reserveReport() {
      return `R-${await store.increment(REPORT_SEQUENCE_KEY)}`;
    },

    async saveReport(id, tickets, filter) {
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
    },

    async getReport(id) {
      const reportId = parseReportId(id);
      const value = await store.get(reportKey(reportId));
      if (!isReport(value)) throw reportNotFound(reportId);
      return value;
    },
  };

  // Compare-and-set, so concurrent link changes never lose one another.
  async function update(ticketId: string, url: string, change: 'link' | 'unlink'): Promise<Ticket> {
    for (;;) {
      const current = await load(ticketId);
      const links = (current.links ?? []).filter((existing) => existing !== url);
      if (change === 'link') links.push(url);
      const next: Ticket = { ...current, links };
      if (await store.compareAndSet(ticketKey(ticketId), current as unknown as JsonValue, next as unknown as JsonValue))
        return next;
    }
  }
}

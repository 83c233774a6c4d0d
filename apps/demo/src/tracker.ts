/**
 * The project tracker's domain: tickets kept through core's `Store`, with no
 * MCP in sight. Every failure is one of `@ext/errors`' typed errors, so the
 * errors extension can hand a client something it can act on.
 */
import type { JsonValue, Store } from '@ext/core';
import { InvalidInputError, PermanentError } from '@ext/errors';

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
}

export const MAX_TITLE_LENGTH = 200;
export const TICKET_ID_PATTERN = /^T-[1-9][0-9]{0,15}$/;
export const ASSIGNEE_PATTERN = /^[A-Za-z0-9._@-]{1,64}$/;

const KEY_PREFIX = 'tracker';
const SEQUENCE_KEY = `${KEY_PREFIX}:sequence`;
const INDEX_STREAM = `${KEY_PREFIX}:index`;
const PAGE_SIZE = 100;

const ticketKey = (id: string): string => `${KEY_PREFIX}:ticket:${id}`;

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
    throw invalid(field, `"${field}" must be a ticket id such as T-1.`, `Pass "${field}" as "T-" followed by the ticket number, e.g. "T-1".`);
  }
  return value.trim();
}

export function parseTitle(value: unknown): string {
  const title = typeof value === 'string' ? value.trim() : '';
  if (title === '') {
    throw invalid('title', '"title" must not be empty.', 'Give the ticket a short title.');
  }
  if (title.length > MAX_TITLE_LENGTH) {
    throw invalid('title', `"title" is longer than ${MAX_TITLE_LENGTH} characters.`, 'Shorten the title; put details elsewhere.');
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
  throw invalid('status', '"status" must be "open" or "closed".', 'Pass "open" or "closed", or leave "status" out to list every ticket.');
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

function isTicket(value: JsonValue | undefined): value is JsonValue & Ticket {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  return typeof value.id === 'string' && typeof value.title === 'string' && (value.status === 'open' || value.status === 'closed');
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
        if (await store.compareAndSet(ticketKey(ticketId), current as unknown as JsonValue, next as unknown as JsonValue)) {
          return next;
        }
      }
    },
  };
}

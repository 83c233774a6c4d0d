/**
 * What every tracker tool shares: what it is given (the tracker, where ticket
 * changes are published, the export pace), how a ticket and a deletion are
 * rendered, how a read cites its source, and the input schemas several tools
 * take.
 */
import type { CallContext, ToolResult } from '@ext/core';
import { render } from '@ext/content-negotiation/server';
import { cite } from '@ext/provenance/server';
import { z } from 'zod';
import { escapeMarkdown, ticketMarkdown, ticketText } from './present.js';
import type { Ticket } from '../domain/ticket.js';
import type { Tracker } from '../domain/tracker.js';

export type TicketEvent = 'ticket_created' | 'ticket_closed' | 'ticket_deleted';

/** What the tools of one server instance work with. */
export interface ToolDeps {
  readonly tracker: Tracker;
  /** Publishes a ticket change to every instance sharing the store; returns the ticket. */
  readonly publish: (event: TicketEvent, ticket: Ticket) => Promise<Ticket>;
  /** Pause after each exported row, in ms. */
  readonly pace: number;
}

/**
 * One handler serves every client: an agent (or a client that states no
 * preference) gets `structuredContent` and its JSON text; a person gets
 * markdown, at the verbosity they asked for.
 */
export function ticketResult(ctx: CallContext, ticket: Ticket): ToolResult {
  return render(ctx, { data: { ticket }, markdown: ticketMarkdown, text: ticketText });
}

/**
 * The answer to an approved deletion: which ticket is gone, in words for a
 * person and as `{ deleted: { id, title } }` for an agent; nothing that
 * described the ticket while it existed, such as its status.
 */
export function deletedResult(ctx: CallContext, ticket: Ticket): ToolResult {
  const deleted = { id: ticket.id, title: ticket.title };
  return render(ctx, {
    data: { deleted },
    markdown: () => `Deleted ticket **${ticket.id}** (${escapeMarkdown(ticket.title)}) for good.`,
    text: () => `Deleted ticket ${ticket.id} (${ticket.title}) for good.`,
  });
}

/** Reads carry where the data came from (provenance). */
export function citeTicketStore(ctx: CallContext, version?: string): void {
  cite(ctx, {
    source: 'tracker:tickets',
    retrievedAt: new Date().toISOString(),
    confidence: 'exact',
    ...(version === undefined ? {} : { version }),
  });
}

// Value rules (non-empty title, id format, status values) are checked by the
// domain rather than the schemas, so the messages and fields are the
// tracker's own; the core still refuses a wrong JSON type as invalid_input.
export const createInput = z.object({
  title: z.string().describe(`What needs doing (1 to 200 characters).`),
  assignee: z.string().optional().describe('User name of the person responsible, e.g. "alice".'),
});
export const idInput = z.object({ id: z.string().describe('Ticket id, e.g. "T-1".') });
export const listInput = z.object({
  status: z.string().optional().describe('"open" or "closed"; leave out to list every ticket.'),
});

/**
 * What the tracker accepts from a caller (ticket and report ids, titles,
 * assignees, statuses, document URLs, channels, messages), and the typed
 * `@ext/errors` errors it throws, so a client gets something it can act on.
 */
import { InvalidInputError, PermanentError } from '@ext/errors';
import { TICKET_STATUSES, type Ticket, type TicketStatus } from './ticket.js';

export const REPORT_ID_PATTERN = /^R-[1-9][0-9]{0,15}$/;
export const CHANNEL_PATTERN = /^[a-z0-9][a-z0-9-]{0,39}$/;

export const MAX_TITLE_LENGTH = 200;
export const TICKET_ID_PATTERN = /^T-[1-9][0-9]{0,15}$/;
export const ASSIGNEE_PATTERN = /^[A-Za-z0-9._@-]{1,64}$/;

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

/** Posting to an archived channel fails: the saga in the tour relies on it. */
export function channelArchived(name: string): PermanentError {
  return new PermanentError('CHANNEL_ARCHIVED', `#${name} is archived and takes no new messages.`, {
    suggestion: 'Post to an active channel, such as #releases.',
    userActionable: true,
    details: { channel: name },
  });
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

export function parseMessage(value: unknown): string {
  const text = typeof value === 'string' ? value.trim() : '';
  if (text === '' || text.length > 2000)
    throw invalid('text', '"text" must be 1 to 2000 characters.', 'Write a short message.');
  return text;
}

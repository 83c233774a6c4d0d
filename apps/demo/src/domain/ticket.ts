/** The tracker's records as it keeps them: tickets, their attachments, chat messages and exported reports. */

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

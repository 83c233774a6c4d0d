/**
 * How tickets read for a person: markdown and plain text at three
 * verbosities. Agents get the same data as JSON; `render` from
 * `@ext/content-negotiation/server` picks one per call.
 */
import type { PresentationVerbosity } from '@ext/content-negotiation';
import type { Ticket } from '../domain/ticket.js';

/** Ticket fields come from users: keep them from turning into markdown. */
export function escapeMarkdown(text: string): string {
  return text.replace(/([\\`*_[\]{}<>#|!~])/g, '\\$1').replace(/\r?\n/g, ' ');
}

function facts(ticket: Ticket, verbosity: PresentationVerbosity): [string, string][] {
  const out: [string, string][] = [
    ['Status', ticket.status],
    ['Assignee', ticket.assignee ?? 'nobody'],
  ];
  if (verbosity === 'verbose') {
    out.push(['Created', ticket.created_at]);
    if (ticket.closed_at !== undefined) out.push(['Closed', ticket.closed_at]);
  }
  return out;
}

export function ticketMarkdown({ ticket }: { ticket: Ticket }, verbosity: PresentationVerbosity): string {
  const title = escapeMarkdown(ticket.title);
  if (verbosity === 'compact') return `**${ticket.id}** ${title} (${ticket.status})`;
  const list = facts(ticket, verbosity).map(([name, value]) => `- ${name}: ${escapeMarkdown(value)}`);
  return [`### ${ticket.id}: ${title}`, '', ...list].join('\n');
}

export function ticketText({ ticket }: { ticket: Ticket }, verbosity: PresentationVerbosity): string {
  if (verbosity === 'compact') return `${ticket.id} ${ticket.title} (${ticket.status})`;
  return [
    `${ticket.id}: ${ticket.title}`,
    ...facts(ticket, verbosity).map(([name, value]) => `${name}: ${value}`),
  ].join('\n');
}

export function ticketsMarkdown({ tickets }: { tickets: Ticket[] }, verbosity: PresentationVerbosity): string {
  if (tickets.length === 0) return '_No tickets._';
  if (verbosity === 'compact') {
    return tickets.map((ticket) => `- **${ticket.id}** ${escapeMarkdown(ticket.title)} (${ticket.status})`).join('\n');
  }
  const verbose = verbosity === 'verbose';
  const header = verbose
    ? ['Id', 'Title', 'Status', 'Assignee', 'Created', 'Closed']
    : ['Id', 'Title', 'Status', 'Assignee'];
  const rows = tickets.map((ticket) => {
    const cells = [ticket.id, escapeMarkdown(ticket.title), ticket.status, escapeMarkdown(ticket.assignee ?? '')];
    if (verbose) cells.push(ticket.created_at, ticket.closed_at ?? '');
    return `| ${cells.join(' | ')} |`;
  });
  const count = `${tickets.length} ticket${tickets.length === 1 ? '' : 's'}`;
  return [count, '', `| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`, ...rows].join('\n');
}

export function ticketsText({ tickets }: { tickets: Ticket[] }, verbosity: PresentationVerbosity): string {
  if (tickets.length === 0) return 'No tickets.';
  return tickets
    .map((ticket) => ticketText({ ticket }, verbosity === 'verbose' ? 'standard' : 'compact'))
    .join(verbosity === 'verbose' ? '\n\n' : '\n');
}

/** What an export tool result carries (the CSV itself is in the data, not repeated for people). */
export interface ReportSummary {
  report: { id: string; rows: number; bytes: number; media_type: string };
}

export function reportMarkdown({ report }: ReportSummary, verbosity: PresentationVerbosity): string {
  const size = `${String(report.rows)} row${report.rows === 1 ? '' : 's'}, ${String(report.bytes)} bytes of CSV`;
  if (verbosity === 'compact') return `**${report.id}** (${size})`;
  return [`### Report ${report.id}`, '', `- ${size}`, `- Kept for a day: import it by its id (${report.id}).`].join(
    '\n',
  );
}

export function reportText({ report }: ReportSummary, verbosity: PresentationVerbosity): string {
  const size = `${String(report.rows)} rows, ${String(report.bytes)} bytes of CSV`;
  return verbosity === 'compact' ? `${report.id} (${size})` : `Report ${report.id}: ${size}. Kept for a day.`;
}

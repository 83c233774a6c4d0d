/**
 * Report exports: tickets as CSV, row by row, so the export tool can stream
 * each row as it is produced. Pure functions; the tool does the I/O.
 */
import type { Ticket } from './ticket.js';

export const REPORT_COLUMNS = ['id', 'title', 'status', 'assignee', 'created_at', 'closed_at', 'links'] as const;

/** RFC 4180 quoting: a field with a comma, quote or line break is quoted, quotes doubled. */
export function csvField(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

/**
 * A cell that a spreadsheet would run as a formula (`=`, `+`, `-`, `@`, tab,
 * CR) gets a leading quote: ticket titles come from users, and the sheets
 * server opens these reports.
 */
export function neutralizeFormula(value: string): string {
  return /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
}

export function csvHeader(): string {
  return REPORT_COLUMNS.join(',');
}

export function csvRow(ticket: Ticket): string {
  const cells = [
    ticket.id,
    ticket.title,
    ticket.status,
    ticket.assignee ?? '',
    ticket.created_at,
    ticket.closed_at ?? '',
    (ticket.links ?? []).join(' '),
  ];
  return cells.map((cell) => csvField(neutralizeFormula(cell))).join(',');
}

/** The whole report: header, then one line per ticket, CRLF line ends (RFC 4180). */
export function csvReport(tickets: readonly Ticket[]): string {
  return [csvHeader(), ...tickets.map(csvRow)].join('\r\n') + '\r\n';
}

/**
 * Splits CSV text into records of fields (RFC 4180: quoted fields may hold
 * commas, doubled quotes and line breaks). Throws a `SyntaxError` on a stray
 * quote or an unterminated quoted field.
 */
export function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let index = 0;
  let quoted = false;
  let fieldStarted = false;
  const endField = (): void => {
    record.push(field);
    field = '';
    fieldStarted = false;
  };
  const endRecord = (): void => {
    endField();
    records.push(record);
    record = [];
  };
  while (index < text.length) {
    const char = text[index] ?? '';
    if (quoted) {
      if (char === '"') {
        if (text[index + 1] === '"') {
          field += '"';
          index += 2;
          continue;
        }
        quoted = false;
        index += 1;
        const next = text[index];
        if (next !== undefined && next !== ',' && next !== '\r' && next !== '\n')
          throw new SyntaxError(`unexpected character after a closing quote at ${String(index)}`);
        continue;
      }
      field += char;
      index += 1;
      continue;
    }
    if (char === '"') {
      if (fieldStarted || field !== '') throw new SyntaxError(`stray quote at ${String(index)}`);
      quoted = true;
      fieldStarted = true;
      index += 1;
    } else if (char === ',') {
      endField();
      index += 1;
    } else if (char === '\r' || char === '\n') {
      endRecord();
      index += char === '\r' && text[index + 1] === '\n' ? 2 : 1;
    } else {
      field += char;
      fieldStarted = true;
      index += 1;
    }
  }
  if (quoted) throw new SyntaxError('unterminated quoted field');
  if (fieldStarted || field !== '' || record.length > 0) endRecord();
  return records;
}

import { readFile } from 'node:fs/promises';
import { MemoryStore } from '@ext/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { csvField, csvReport, neutralizeFormula, parseCsv, REPORT_COLUMNS } from './report.js';
import type { Ticket } from './ticket.js';
import { EXPORT_QUOTA, EXPORT_QUOTA_WINDOW_SECONDS } from '../tools/tool-limits.js';
import { createTracker } from './tracker.js';

const ticketArbitrary: fc.Arbitrary<Ticket> = fc.record(
  {
    id: fc.integer({ min: 1, max: 1_000_000 }).map((n) => `T-${String(n)}`),
    title: fc.string({
      minLength: 1,
      unit: fc.constantFrom('a', 'b', ',', '"', '\r', '\n', ' ', '=', '+', '-', '@', 'é', '\t'),
    }),
    status: fc.constantFrom('open' as const, 'closed' as const),
    assignee: fc.constantFrom('alice', 'bob'),
    created_at: fc.constant('2026-01-02T03:04:05.000Z'),
  },
  { requiredKeys: ['id', 'title', 'status', 'created_at'] },
);

describe('CSV reports', () => {
  it('parse back to the cells they were written from, whatever the titles hold (RFC 4180 quoting)', () => {
    fc.assert(
      fc.property(fc.array(ticketArbitrary, { maxLength: 8 }), (tickets) => {
        const records = parseCsv(csvReport(tickets));
        expect(records[0]).toEqual([...REPORT_COLUMNS]);
        expect(records.slice(1)).toEqual(
          tickets.map((ticket) => [
            ticket.id,
            neutralizeFormula(ticket.title),
            ticket.status,
            ticket.assignee ?? '',
            ticket.created_at,
            '',
            '',
          ]),
        );
      }),
    );
  });

  it('never lets a cell start a spreadsheet formula', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        expect(neutralizeFormula(text)).not.toMatch(/^[=+\-@\t\r]/);
        expect(neutralizeFormula(text).endsWith(text)).toBe(true);
      }),
    );
  });

  it('quotes only fields that need it', () => {
    expect(csvField('plain')).toBe('plain');
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
  });

  it('refuses malformed CSV instead of guessing', () => {
    expect(() => parseCsv('a,b"c\r\n')).toThrow(SyntaxError);
    expect(() => parseCsv('"open\r\n')).toThrow(SyntaxError);
    expect(() => parseCsv('"a"b\r\n')).toThrow(SyntaxError);
    expect(parseCsv('a,\r\n,b')).toEqual([
      ['a', ''],
      ['', 'b'],
    ]);
  });

  it('keeps a saved report under its reserved id until it is fetched', async () => {
    const tracker = createTracker(new MemoryStore());
    const ticket = await tracker.create({ title: 'Ship it' });
    const id = await tracker.reserveReport();
    expect(id).toBe('R-1');
    const saved = await tracker.saveReport(id, [ticket], 'all');
    expect(saved).toMatchObject({ id: 'R-1', rows: 1, media_type: 'text/csv', bytes: Buffer.byteLength(saved.csv) });
    expect(await tracker.getReport('R-1')).toEqual(saved);
    await expect(tracker.getReport('R-2')).rejects.toMatchObject({ code: 'RESOURCE_NOT_FOUND' });
    await expect(tracker.getReport('T-1')).rejects.toMatchObject({ code: 'INVALID_INPUT' });
  });
});

describe('the README', () => {
  it('states the export quota the code enforces', async () => {
    const readme = await readFile(new URL('../../README.md', import.meta.url), 'utf8');
    const row = readme.split('\n').find((line) => line.startsWith('| `export_report`'));
    expect(row).toContain(`${String(EXPORT_QUOTA)} exports per caller per hour`);
    expect(EXPORT_QUOTA_WINDOW_SECONDS).toBe(3600);
  });
});

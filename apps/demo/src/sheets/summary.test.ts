/** What sheets tells about a CSV file, straight from the parser, with hostile status values among them. */
import { describe, expect, it } from 'vitest';
import { summarizeCsv } from './summary.js';

describe('summarizeCsv', () => {
  it('counts rows and columns, previews the first rows and counts each status', () => {
    const csv = 'id,title,status\r\nT-1,"a, b",open\r\nT-2,c,closed\r\nT-3,d,open\r\nT-4,e,open\r\n';
    expect(summarizeCsv(csv)).toEqual({
      columns: ['id', 'title', 'status'],
      rows: 4,
      preview: [
        ['T-1', 'a, b', 'open'],
        ['T-2', 'c', 'closed'],
        ['T-3', 'd', 'open'],
      ],
      by_status: { open: 3, closed: 1 },
    });
    expect(summarizeCsv('')).toEqual({ columns: [], rows: 0, preview: [] });
  });

  it('counts statuses named like Object.prototype members as plain values', () => {
    const csv = 'id,status\nT-1,__proto__\nT-2,constructor\nT-3,constructor\nT-4,toString\n';
    const byStatus = summarizeCsv(csv).by_status ?? {};
    expect(JSON.parse(JSON.stringify(byStatus))).toEqual(JSON.parse('{"__proto__":1,"constructor":2,"toString":1}'));
    expect(Object.getPrototypeOf(byStatus)).toBe(Object.prototype);
  });
});

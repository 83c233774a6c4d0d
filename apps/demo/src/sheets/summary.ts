/** What sheets tells about an imported CSV file: counts, the header, the first rows, and rows per status. */
import type { ExtendedServer } from '@ext/core';
import { referencesOf } from '@ext/data-references/server';
import { z } from 'zod';
import { parseCsv } from '../domain/report.js';

/** The first rows shown of an imported sheet. */
const PREVIEW_ROWS = 3;

/** Row and column counts, the header, the first rows and, when there is a `status` column, how many rows hold each value. */
export function summarizeCsv(text: string): {
  columns: string[];
  rows: number;
  preview: string[][];
  by_status?: Record<string, number>;
} {
  const [header = [], ...rows] = parseCsv(text);
  const statusColumn = header.indexOf('status');
  const summary: { columns: string[]; rows: number; preview: string[][]; by_status?: Record<string, number> } = {
    columns: header,
    rows: rows.length,
    preview: rows.slice(0, PREVIEW_ROWS),
  };
  if (statusColumn !== -1) {
    // The values come from the imported file: counted in a Map, so one named `__proto__` or `constructor` is counted like any other.
    const counts = new Map<string, number>();
    for (const row of rows) {
      const value = row[statusColumn] ?? '';
      counts.set(value, (counts.get(value) ?? 0) + 1);
    }
    summary.by_status = Object.fromEntries(counts);
  }
  return summary;
}

/** Registers `sheet_summary`: reads a file imported by reference, streamed from the store, and summarizes it. */
export function registerSheetSummary(extended: ExtendedServer): void {
  extended.registerTool(
    'sheet_summary',
    {
      title: 'Summarize a sheet',
      description: 'Rows, columns, the first rows and the count per status of a CSV file imported by reference.',
      inputSchema: z.object({ resource_id: z.string().describe('imported_resource_id from the import answer.') }),
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ resource_id }, ctx) => {
      const chunks: Buffer[] = [];
      for await (const chunk of await referencesOf(ctx).open(resource_id)) chunks.push(chunk as Buffer);
      const summary = summarizeCsv(Buffer.concat(chunks).toString('utf8'));
      return {
        content: [
          {
            type: 'text',
            text: `${String(summary.rows)} rows, ${String(summary.columns.length)} columns: ${summary.columns.join(', ')}.`,
          },
        ],
        structuredContent: { resource_id, ...summary },
      };
    },
  );
}

/** The `export_report` tool: tickets as CSV, streamed row by row with progress, metered, and kept as a report. */
import { setTimeout as sleep } from 'node:timers/promises';
import type { CallContext, ExtendedServer, ToolResult } from '@ext/core';
import { render } from '@ext/content-negotiation/server';
import { COST_ID } from '@ext/cost';
import { DATA_REFERENCES_ID, resourceLinkFor } from '@ext/data-references';
import { referencesFor } from '@ext/data-references/server';
import { STREAMING_ID } from '@ext/streaming';
import { streamOf } from '@ext/streaming/server';
import { reportMarkdown, reportText } from './present.js';
import { csvHeader, csvRow, REPORT_COLUMNS } from '../domain/report.js';
import type { StoredReport, Ticket } from '../domain/ticket.js';
import { EXPORT_QUOTA, EXPORT_QUOTA_WINDOW_SECONDS } from './tool-limits.js';
import { citeTicketStore, listInput, type ToolDeps } from './tool-support.js';

/** Where an interrupted export continues (streaming checkpoints). */
// A type alias (not an interface) so it is a JSON value for the checkpoint store.
type ExportCheckpoint = { report: string; sent: number };

/** Registers `export_report`. */
export function registerExportTool(extended: ExtendedServer, deps: ToolDeps): void {
  extended.registerTool(
    'export_report',
    {
      title: 'Export report',
      description:
        `Exports tickets as a CSV report, streaming each row as it is written, and keeps the report. ` +
        `Metered: ${String(EXPORT_QUOTA)} exports per caller per hour.`,
      inputSchema: listInput,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
      _meta: {
        [COST_ID]: {
          cost: { category: 'metered', estimated_units: 1, unit_label: 'exports' },
          latency: 'seconds',
          quota: { limit: EXPORT_QUOTA, window_seconds: EXPORT_QUOTA_WINDOW_SECONDS },
        },
        [STREAMING_ID]: { checkpoints: true },
      },
    },
    async ({ status }, ctx) => exportReport(ctx, status, deps),
  );
}

/** Streams the CSV (resuming after the last row a checkpoint names), keeps it as a report, and answers its summary. */
async function exportReport(
  ctx: CallContext,
  status: string | undefined,
  { tracker, pace }: ToolDeps,
): Promise<ToolResult> {
  const stream = streamOf<ExportCheckpoint>(ctx);
  const tickets = await tracker.list({ status });
  citeTicketStore(ctx);
  // A resumed export keeps its report id and continues after the last row it streamed.
  const report = stream.resumeState?.report ?? (await tracker.reserveReport());
  // Chunk 0 is the CSV header, chunk n the n-th row.
  let sent = stream.resumeState?.sent ?? 0;
  if (sent === 0) {
    await stream.chunk(csvHeader(), { final: tickets.length === 0, checkpoint: { report, sent: 1 } });
    sent = 1;
  }
  for (let index = sent - 1; index < tickets.length; index += 1) {
    stream.signal.throwIfAborted();
    const ticket = tickets[index] as Ticket;
    await stream.chunk(csvRow(ticket), {
      final: index === tickets.length - 1,
      checkpoint: { report, sent: index + 2 },
    });
    const left = tickets.length - index - 1;
    await stream.progress(index + 1, tickets.length, `row ${String(index + 1)} of ${String(tickets.length)}`, {
      estimatedRemainingSeconds: Math.ceil((left * pace) / 1000),
    });
    if (pace > 0 && left > 0) await sleep(pace, undefined, { signal: stream.signal });
  }
  if (tickets.length === 0) await stream.progress(1, 1, 'no tickets to export');
  return exportResult(ctx, await tracker.saveReport(report, tickets, status ?? 'all'));
}

/** The saved report's summary, with the CSV inline, or, with a reference origin, a signed URL that serves it. */
async function exportResult(ctx: CallContext, saved: StoredReport): Promise<ToolResult> {
  const summary = {
    id: saved.id,
    media_type: saved.media_type,
    columns: [...REPORT_COLUMNS],
    rows: saved.rows,
    bytes: saved.bytes,
  };
  const references = referencesFor(ctx);
  if (references?.origin === undefined)
    return render(ctx, {
      data: { report: { ...summary, csv: saved.csv } },
      markdown: reportMarkdown,
      text: reportText,
    });
  // With an origin the CSV is not inlined: a signed, expiring URL serves it, and another server can import it by reference.
  const bytes = Buffer.from(saved.csv, 'utf8');
  const reference = await references.create(
    { generate: (offset) => [bytes.subarray(offset)] },
    { mimeType: saved.media_type, name: `${saved.id}.csv` },
  );
  const rendered = render(ctx, {
    data: { report: { ...summary, reference } },
    markdown: reportMarkdown,
    text: reportText,
  });
  const link = resourceLinkFor(reference);
  return {
    ...rendered,
    content: [...rendered.content, ...(link === undefined ? [] : [link])],
    _meta: { ...rendered._meta, ...referenceMeta(reference) },
  };
}

/** `_meta` naming a reference, for clients that negotiated data references (others read the resource_link). */
function referenceMeta(reference: unknown): Record<string, unknown> {
  return { [DATA_REFERENCES_ID]: { references: [reference] } };
}

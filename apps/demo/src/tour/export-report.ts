/** Step 12 of the tour: streaming and cost, an export that streams its rows with progress against an hourly quota. */
import type { ExtendedClient, ToolResult } from '@ext/core';
import { COST_ID } from '@ext/cost';
import { costClient, costGuard, getCostInfo } from '@ext/cost/client';
import { STREAMING_ID } from '@ext/streaming';
import { streamCall, streamingClient } from '@ext/streaming/client';
import { compact, dig, progressBar } from './explain.js';
import { parseCsv } from '../domain/report.js';
import { EXPORT_QUOTA } from '../tools/tool-limits.js';
import { expect, ok, print, row, rowLabel } from './output.js';
import { open, type TourTarget } from './target.js';

/** The tickets the export writes out; one title holds a comma and quotes, which the CSV must quote. */
const TITLES = [
  'Draft the roadmap',
  'Fix the login bug',
  'Review "pricing, v2"',
  'Update the changelog',
  'Answer support mail',
  'Renew certificates',
  'Clean up the backlog',
  'Prepare the demo',
];

/** What one streamed export delivered: its rows, how often it reported progress, the last report, and its result. */
interface StreamedExport {
  readonly rows: readonly string[];
  readonly updates: number;
  readonly last: { readonly fraction: number; readonly message: string };
  readonly result: ToolResult | undefined;
}

/** A long call that streams its rows with progress, metered against an hourly quota. */
export async function exportReport(tour: TourTarget): Promise<void> {
  const connection = await open(tour, { extensions: [streamingClient(), costClient()], name: 'exporting-client' });
  try {
    const client = connection.extended;
    expect(client !== undefined, 'the exporting client has no extensions attached');
    for (const [index, title] of TITLES.entries())
      await client.callTool('create_ticket', { title, assignee: index % 2 === 0 ? 'alice' : 'bob' });
    const guard = costGuard(client, { budget: { exports: 2 } });
    const described = await guard.describe('export_report', { subject: 'this export' });
    row('before the call', described ?? '(no cost declared)');
    row('client -> server', `tools/call export_report {} with _meta["${STREAMING_ID}"].operation_id`);
    checkExport(await streamExport(client));
    print();
    row(
      'what it means',
      `rows arrived in order while the export ran; the call used 1 of ${String(EXPORT_QUOTA)} exports this hour (a 6th is refused with QUOTA_EXHAUSTED, rate_limited, retry after the window).`,
    );
    ok('streaming showed the work as it happened; cost told the client what it spent and what is left.');
  } finally {
    await connection.close();
  }
}

/** Runs `export_report` as a stream, drawing its progress as it comes (in place on a terminal, once at the end elsewhere). */
async function streamExport(client: ExtendedClient): Promise<StreamedExport> {
  const rows: string[] = [];
  let updates = 0;
  let result: ToolResult | undefined;
  const live = process.stdout.isTTY;
  const draw = (fraction: number, message: string): void => {
    if (!live) return;
    process.stdout.write(`\r  ${rowLabel('progress')}${progressBar(fraction)} ${message.padEnd(16)}`);
  };
  let last = { fraction: 0, message: '' };
  for await (const update of streamCall(client, 'export_report', {}, { timeoutMs: 120_000 })) {
    if (update.type === 'progress' && update.operationId !== undefined) {
      updates += 1;
      last = { fraction: update.progress ?? last.fraction, message: update.message ?? '' };
      draw(last.fraction, last.message);
    } else if (update.type === 'stream_chunk') {
      rows.push(String(update.data));
    } else if (update.type === 'result') {
      result = update.result;
    }
  }
  if (live && updates > 0) process.stdout.write('\n');
  else row('progress', `${progressBar(last.fraction)} ${last.message}`);
  return { rows, updates, last, result };
}

/** Shows what the export streamed and returned, and checks the rows are the report, every row reported, one unit spent. */
function checkExport({ rows, updates, last, result }: StreamedExport): void {
  expect(result !== undefined && result.isError !== true, `export_report failed: ${compact(result?.content)}`);
  const report = dig(result.structuredContent, 'report');
  const streamed = rows.map((line) => `${line}\r\n`).join('');
  const records = parseCsv(streamed);
  row(
    'server -> client',
    `${String(updates)} progress notifications, ${String(rows.length)} stream_chunk notifications (the CSV header, then a row each)`,
  );
  row('first rows', rows.slice(0, 3).join('\n'));
  row(
    'result',
    `report ${String(dig(report, 'id'))}: ${String(dig(report, 'rows'))} rows, ${String(dig(report, 'bytes'))} bytes`,
  );
  const cost = getCostInfo(result);
  row('', `_meta["${COST_ID}"] ${compact(cost)}`);
  const exported = Number(dig(report, 'rows'));
  expect(
    exported >= TITLES.length && rows.length === exported + 1 && records.length === rows.length,
    'the export did not stream a header and one row per ticket',
  );
  // With a reference origin the CSV is not inlined: the result names where to fetch it, and how big it is.
  const held =
    dig(report, 'reference') === undefined
      ? Buffer.byteLength(String(dig(report, 'csv')))
      : Number(dig(report, 'reference', 'size_bytes'));
  expect(
    held === Buffer.byteLength(streamed) && Number(dig(report, 'bytes')) === held,
    'the streamed rows are not the report the result holds',
  );
  expect(updates === exported && last.fraction === 1, 'the export did not report progress up to 100%');
  expect(
    cost?.units_used === 1 && cost.quota?.remaining === EXPORT_QUOTA - 1,
    'the export was not metered against its quota',
  );
}

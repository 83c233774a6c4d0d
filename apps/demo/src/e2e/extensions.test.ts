/**
 * The composed extensions on the tracker, through real clients over
 * Streamable HTTP on both eras: the create/link/post saga rolls back when the
 * post fails, the admin tool needs a scope nobody holds, session state
 * remembers a view, reads carry provenance, intent suggests a better tool,
 * and the export streams its rows with progress, metered by a quota.
 */
import { createHash } from 'node:crypto';
import { silentLogger } from '@ext/core/kit';
import { type ToolResult } from '@ext/core';
import { costClient, getCostInfo } from '@ext/cost/client';
import { getStructuredError } from '@ext/errors/client';
import { idempotencyClient } from '@ext/idempotency/client';
import { callWithIntent, intentClient } from '@ext/intent/client';
import { getProvenance, provenanceClient } from '@ext/provenance/client';
import { sessionStateClient } from '@ext/session-state/client';
import { streamCall, streamingClient, type StreamUpdate } from '@ext/streaming/client';
import { runSaga, transactionsClient } from '@ext/transactions/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type Connection, type Era } from '../client/connect.js';
import { startHttpServer, type RunningHttpServer } from '../server/node-http.js';
import { parseCsv, REPORT_COLUMNS } from '../domain/report.js';
import { EXPORT_QUOTA } from '../tools/tool-limits.js';

interface Report {
  readonly id: string;
  readonly rows: number;
  readonly csv?: string;
  readonly reference: {
    readonly access_url: string;
    readonly size_bytes: number;
    readonly checksum: { readonly value: string };
  };
}

/** The report's CSV, fetched from its signed URL (the server does not inline it), checked against its size and sha256. */
async function csvOf(report: Report): Promise<string> {
  const response = await fetch(report.reference.access_url);
  expect(response.status).toBe(200);
  const bytes = Buffer.from(await response.arrayBuffer());
  expect(bytes.length).toBe(report.reference.size_bytes);
  expect(createHash('sha256').update(bytes).digest('hex')).toBe(report.reference.checksum.value);
  return bytes.toString('utf8');
}

describe.each(['modern', 'legacy'] as const satisfies readonly Era[])(
  "the tracker's composed extensions on the %s era",
  (era) => {
    let running: RunningHttpServer;
    let connection: Connection;

    beforeAll(async () => {
      running = await startHttpServer({ port: 0, logger: silentLogger });
      connection = await connect(running.as(), {
        era,
        extensions: [
          idempotencyClient(),
          transactionsClient(),
          sessionStateClient(),
          provenanceClient(),
          intentClient(),
          streamingClient(),
          costClient(),
        ],
      });
    });

    afterAll(async () => {
      await connection.close();
      await running.close();
    });

    it('rolls the create/link/post saga back when posting to an archived channel fails', async () => {
      const client = connection.extended!;
      const outcome = await runSaga([
        { client, server: 'tracker', tool: 'create_ticket', arguments: { title: 'Launch v2' } },
        {
          client,
          server: 'tracker',
          tool: 'link_document',
          arguments: (previous) => ({
            id: (previous[0]?.structuredContent?.ticket as { id: string }).id,
            url: 'https://docs.example.com/launch',
          }),
        },
        { client, server: 'tracker', tool: 'post_message', arguments: { channel: 'archive', text: 'Launched!' } },
      ]);
      if (outcome.status === 'committed') throw new Error('the saga committed although posting failed');
      expect(outcome.failure).toMatchObject({ tool: 'post_message' });
      const [participant] = outcome.participants;
      expect(participant?.status).toBe('rolled_back');
      expect(participant?.stepsCompensated?.map((step) => `${step.tool}:${step.status}`)).toEqual([
        'link_document:compensated',
        'create_ticket:compensated',
      ]);
      const gone = await client.callTool('get_ticket', { id: 'T-1' });
      expect(getStructuredError(gone)).toMatchObject({ code: 'RESOURCE_NOT_FOUND' });
    });

    it('refuses the admin tool for want of a scope nobody holds, naming it', async () => {
      const result = await connection.extended!.callTool('purge_closed_tickets');
      expect(getStructuredError(result)).toMatchObject({
        category: 'auth_required',
        code: 'SCOPE_INSUFFICIENT',
        details: { missing_scopes: ['tickets:admin'] },
      });
    });

    it('remembers a view in session state, and cites its store on reads', async () => {
      const client = connection.extended!;
      const open = await client.callTool('create_ticket', { title: 'Still open' });
      const id = (open.structuredContent?.ticket as { id: string }).id;
      const closing = await client.callTool('create_ticket', { title: 'Will close' });
      await client.callTool('close_ticket', { id: (closing.structuredContent?.ticket as { id: string }).id });
      await client.callTool('set_view', { status: 'open' });
      const listed = await client.callTool('list_tickets');
      expect((listed.structuredContent?.tickets as { id: string }[]).map((ticket) => ticket.id)).toEqual([id]);
      const read = await client.callTool('get_ticket', { id });
      expect(getProvenance(read)).toMatchObject({
        sources: [{ source: 'tracker:tickets', confidence: 'exact' }],
        digest: 'verified',
      });
    });

    it('suggests list_tickets when an agent reads one ticket to see them all, and export_report for a spreadsheet', async () => {
      const created = await connection.extended!.callTool('create_ticket', { title: 'One of many' });
      const id = (created.structuredContent?.ticket as { id: string }).id;
      const outcome = await callWithIntent(connection.extended!, 'get_ticket', { id }, 'show me all open tickets', {
        policy: 'log',
      });
      expect(outcome.result.isError).not.toBe(true);
      expect(outcome.suggestion?.suggestion.recommended_tool).toBe('list_tickets');
      const listed = await callWithIntent(
        connection.extended!,
        'list_tickets',
        {},
        'put the tickets in a spreadsheet',
        { policy: 'log' },
      );
      expect(listed.suggestion?.suggestion.recommended_tool).toBe('export_report');
    });

    it('streams an export row by row with progress, then meters it against the hourly quota', async () => {
      const client = connection.extended!;
      const before = (
        (await client.callTool('list_tickets', { status: 'open' })).structuredContent?.tickets as unknown[]
      ).length;
      await client.callTool('create_ticket', { title: '=SUM(A1:A9), "quoted"' });
      const updates: StreamUpdate[] = [];
      for await (const update of streamCall(client, 'export_report', { status: 'open' })) updates.push(update);
      const chunks = updates.flatMap((update) => (update.type === 'stream_chunk' ? [update] : []));
      const progress = updates.flatMap((update) =>
        update.type === 'progress' && update.operationId !== undefined ? [update.progress ?? 0] : [],
      );
      const last = updates.at(-1);
      if (last?.type !== 'result') throw new Error('the export did not end with its result');
      const report = last.result.structuredContent?.report as Report;
      expect(report.csv).toBeUndefined();
      const csv = await csvOf(report);
      expect(report.rows).toBe(before + 1);
      expect(chunks.map((chunk) => chunk.sequence)).toEqual([...Array(before + 2).keys()]);
      expect(chunks.at(-1)?.isFinal).toBe(true);
      // The rows streamed are the report the result holds, in order.
      expect(chunks.map((chunk) => `${String(chunk.data)}\r\n`).join('')).toBe(csv);
      const records = parseCsv(csv);
      expect(records[0]).toEqual([...REPORT_COLUMNS]);
      expect(records.at(-1)?.[1]).toBe(`'=SUM(A1:A9), "quoted"`);
      expect(progress.length).toBe(before + 1);
      expect(progress.every((value, index) => index === 0 || value >= (progress[index - 1] ?? 0))).toBe(true);
      expect(progress.at(-1)).toBe(1);
      expect(getCostInfo(last.result)).toMatchObject({
        units_used: 1,
        unit_label: 'exports',
        quota: { limit: EXPORT_QUOTA, used: 1, remaining: EXPORT_QUOTA - 1 },
      });

      const results: ToolResult[] = [];
      for (let index = 1; index <= EXPORT_QUOTA; index += 1) results.push(await client.callTool('export_report'));
      expect(results.slice(0, -1).map((result) => result.isError === true)).toEqual(
        Array<boolean>(EXPORT_QUOTA - 1).fill(false),
      );
      const refused = getStructuredError(results.at(-1));
      expect(refused).toMatchObject({
        code: 'QUOTA_EXHAUSTED',
        category: 'rate_limited',
        details: { limit: EXPORT_QUOTA },
      });
      expect(refused?.retry_after_seconds).toBeGreaterThan(0);
    });
  },
);

describe('an interrupted export', () => {
  let running: RunningHttpServer;
  let connection: Connection;

  beforeAll(async () => {
    // A pause between rows, so the call is still running when the client walks away.
    running = await startHttpServer({ port: 0, logger: silentLogger, exportPaceMs: 25 });
    connection = await connect(running.as(), { era: 'modern', extensions: [streamingClient(), costClient()] });
  });

  afterAll(async () => {
    await connection.close();
    await running.close();
  });

  it('resumes from its last checkpoint: the report keeps its id and the rows continue where they stopped', async () => {
    const client = connection.extended!;
    for (let index = 1; index <= 6; index += 1)
      await client.callTool('create_ticket', { title: `Row ${String(index)}` });
    const first = streamCall(client, 'export_report');
    const seen: number[] = [];
    for await (const update of first) {
      if (update.type === 'stream_chunk') seen.push(update.sequence);
      // Breaking out of the loop cancels the call.
      if (seen.length === 3) break;
    }
    const saved = first.checkpoint;
    expect(saved).toBeDefined();
    const resumed: number[] = [];
    let result: ToolResult | undefined;
    for await (const update of streamCall(client, 'export_report', {}, { resumeFrom: saved })) {
      if (update.type === 'stream_chunk') resumed.push(update.sequence);
      if (update.type === 'result') result = update.result;
    }
    expect(seen).toEqual([0, 1, 2]);
    expect(resumed).toEqual([3, 4, 5, 6]);
    const report = result?.structuredContent?.report as Report;
    expect(report.id).toBe('R-1');
    expect(parseCsv(await csvOf(report)).map((record) => record[1])).toEqual([
      'title',
      'Row 1',
      'Row 2',
      'Row 3',
      'Row 4',
      'Row 5',
      'Row 6',
    ]);
  });
});

/**
 * The sheets server imports the tracker's export by reference over real
 * HTTP (both servers on 127.0.0.1), and refuses references from origins it
 * was not told to trust or whose bytes do not match their checksum.
 */
import { silentLogger } from '@ext/core/kit';
import type { DataReference } from '@ext/data-references';
import { dataReferencesClient, importReference, referencesIn } from '@ext/data-references/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type Connection } from '../client/connect.js';
import { startHttpServer, type RunningHttpServer } from '../server/node-http.js';
import { startSheetsServer, type RunningSheetsServer } from './server.js';

describe('sheets imports a tracker export by reference', () => {
  let tracker: RunningHttpServer;
  let trusting: RunningSheetsServer;
  let wary: RunningSheetsServer;
  let client: Connection;
  const opened: Connection[] = [];

  beforeAll(async () => {
    tracker = await startHttpServer({ port: 0, logger: silentLogger });
    const origin = new URL(tracker.origin?.baseUrl ?? 'http://unset').origin;
    trusting = await startSheetsServer({ allowedOrigins: [origin], logger: silentLogger });
    wary = await startSheetsServer({ allowedOrigins: ['http://127.0.0.1:1'], logger: silentLogger });
    client = await connect(tracker.as(), { era: 'modern', extensions: [dataReferencesClient()] });
  });

  afterAll(async () => {
    for (const connection of [client, ...opened]) await connection.close();
    await Promise.all([trusting.close(), wary.close()]);
    await tracker.close();
  });

  async function sheetsClient(sheets: RunningSheetsServer, era: 'modern' | 'legacy'): Promise<Connection> {
    const connection = await connect({ kind: 'http', url: sheets.url }, { era, extensions: [dataReferencesClient()] });
    opened.push(connection);
    return connection;
  }

  async function exportReference(): Promise<DataReference & { rows: number }> {
    const result = await client.extended!.callTool('export_report', {});
    const [reference] = referencesIn(result);
    if (reference === undefined)
      throw new Error(`export_report returned no reference: ${JSON.stringify(result.content)}`);
    return { ...reference, rows: (result.structuredContent?.report as { rows: number }).rows };
  }

  it.each(['modern', 'legacy'] as const)('imports, verifies and summarizes the export on the %s era', async (era) => {
    for (const title of ['Alpha', 'Beta', 'Gamma']) await client.extended!.callTool('create_ticket', { title });
    const { rows, ...reference } = await exportReference();
    const sheets = (await sheetsClient(trusting, era)).extended!;
    const answer = await importReference(sheets, reference);
    expect(answer).toMatchObject({ status: 'imported', size_bytes: reference.size_bytes });
    if (answer?.status !== 'imported') throw new Error('not imported');
    const summary = await sheets.callTool('sheet_summary', { resource_id: answer.imported_resource_id });
    expect(rows).toBeGreaterThanOrEqual(3);
    expect(summary.structuredContent).toMatchObject({
      rows,
      columns: ['id', 'title', 'status', 'assignee', 'created_at', 'closed_at', 'links'],
      by_status: { open: rows },
    });
  });

  it('refuses a reference from an origin it does not trust, before fetching anything', async () => {
    const { rows: _rows, ...reference } = await exportReference();
    const answer = await importReference((await sheetsClient(wary, 'modern')).extended!, reference);
    expect(answer).toMatchObject({ status: 'failed', error: { code: 'ORIGIN_NOT_ALLOWED' } });
  });

  it('detects bytes that do not match the reference checksum', async () => {
    const { rows: _rows, ...reference } = await exportReference();
    const forged = { ...reference, checksum: { algorithm: 'sha256', value: '0'.repeat(64) } } as DataReference;
    const answer = await importReference((await sheetsClient(trusting, 'modern')).extended!, forged);
    expect(answer).toMatchObject({ status: 'failed', error: { code: 'CHECKSUM_MISMATCH' } });
  });
});

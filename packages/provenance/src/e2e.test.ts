import { ConfigurationError, type ExtendedServer, type ToolResult } from '@ext/core';
import { silentLogger } from '@ext/core/kit';
import { createTestPair, seedValidators, TEST_LINES, type TestPair } from '@ext/core/testing';
import { errorsClient } from '@ext/errors/client';
import { errorsServer } from '@ext/errors/server';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { citation, citations, getProvenance, provenanceClient } from './client.js';
import { PROVENANCE_ID } from './schema.js';
import { cite, provenanceOf, provenanceServer, type ProvenanceServerOptions } from './server.js';

const seedWrapper = seedValidators().check('provenance', 'ProvenanceWrapper');

function setup(server: ExtendedServer): void {
  server.registerTool(
    'get_revenue',
    { inputSchema: z.object({ quarter: z.string() }), annotations: { readOnlyHint: true } },
    ({ quarter }, ctx): ToolResult => {
      cite(ctx, {
        source: 'invoice_v2.pdf',
        location: { page: 3 },
        retrievedAt: '2026-03-10T09:00:00Z',
        confidence: 'exact',
      });
      return {
        content: [{ type: 'text', text: `${quarter}: $4.2M` }],
        structuredContent: { quarter, revenue: 4.2, unit: 'M USD' },
      };
    },
  );
  server.registerTool('compare', { annotations: { readOnlyHint: true } }, (_args, ctx): ToolResult => {
    cite(
      ctx,
      { source: 'postgresql:analytics.revenue', version: 'commit:a1b2c3d' },
      { source: 'forecast.xlsx', location: { cell: 'B14' }, confidence: 'estimated' },
    );
    return { content: [{ type: 'text', text: 'up 5%' }], structuredContent: { change: 0.05 } };
  });
  server.registerTool('forged', {}, (): ToolResult => ({
    content: [{ type: 'text', text: 'x' }],
    _meta: { [PROVENANCE_ID]: { provenance: { source: 'made up' } } },
  }));
  server.registerTool('broken_citation', {}, (_args, ctx): ToolResult => {
    cite(ctx, { source: '' });
    return { content: [{ type: 'text', text: 'never' }] };
  });
  server.registerTool('many', { inputSchema: z.object({ count: z.number() }) }, ({ count }, ctx): ToolResult => {
    const provenance = provenanceOf(ctx);
    for (let row = 1; row <= count; row += 1) {
      // The same sheet read twice is one source.
      provenance.add(
        { source: 'sheet.xlsx', location: { line: row }, retrievedAt: new Date('2026-03-10T09:00:00Z') },
        { source: 'sheet.xlsx', location: { line: row }, retrievedAt: '2026-03-10T09:00:00.000Z' },
      );
    }
    return {
      content: [
        {
          type: 'text',
          text: `${count} rows; collected: ${String(provenance.active)}; held ${provenance.sources.length}`,
        },
      ],
      structuredContent: { rows: count },
    };
  });
  server.registerTool('failing', {}, (_args, ctx): ToolResult => {
    cite(ctx, { source: 'ledger' });
    return { content: [{ type: 'text', text: 'no such quarter' }], isError: true };
  });
}

let pair: TestPair | undefined;
afterEach(async () => {
  await pair?.close();
  pair = undefined;
});

async function connect(
  line: (typeof TEST_LINES)[number],
  client: boolean,
  options: ProvenanceServerOptions = {},
): Promise<TestPair> {
  pair = await createTestPair({
    line,
    serverExtensions: [errorsServer(), provenanceServer(options)],
    clientExtensions: [errorsClient(), client && provenanceClient()],
    setup,
    serverOptions: { logger: silentLogger },
  });
  return pair;
}

describe.each(TEST_LINES)('provenance end to end on %s', (line) => {
  it('PROV-2 PROV-3 PROV-5: a cited result carries its source and a digest the client verifies', async () => {
    const { client } = await connect(line, true);
    const result = await client.callTool('get_revenue', { quarter: 'Q3' });
    const entry = result._meta?.[PROVENANCE_ID];
    expect(seedWrapper({ result: result.structuredContent, ...(entry as object) })).toEqual({
      valid: true,
      errors: '',
    });
    const found = getProvenance(result);
    expect(found?.digest).toBe('verified');
    expect(found?.sources.map((source) => citation(source, 'Q3 revenue $4.2M'))).toEqual([
      'Q3 revenue $4.2M, invoice_v2.pdf p.3, retrieved 2026-03-10',
    ]);
  });

  it('PROV-3: several sources make a list, in citation order', async () => {
    const { client } = await connect(line, true);
    const found = getProvenance(await client.callTool('compare'));
    expect(found?.sources.map((source) => source.source)).toEqual(['postgresql:analytics.revenue', 'forecast.xlsx']);
  });

  it('PROV-5: digest: false leaves the digest out', async () => {
    const { client } = await connect(line, true, { digest: false });
    expect(getProvenance(await client.callTool('get_revenue', { quarter: 'Q1' }))?.digest).toBe('absent');
  });

  it('PROV-4: a client without the extension gets the same result and no entry', async () => {
    const { client } = await connect(line, false);
    const result = await client.callTool('get_revenue', { quarter: 'Q3' });
    expect(result.structuredContent).toEqual({ quarter: 'Q3', revenue: 4.2, unit: 'M USD' });
    expect(result._meta?.[PROVENANCE_ID]).toBeUndefined();
  });

  it('PROV-6: only the extension writes the entry; failed results carry none', async () => {
    const { client } = await connect(line, true);
    expect((await client.callTool('forged'))._meta?.[PROVENANCE_ID]).toBeUndefined();
    const failed = await client.callTool('failing');
    expect(failed.isError).toBe(true);
    expect(failed._meta?.[PROVENANCE_ID]).toBeUndefined();
  });

  it('PROV-9 PROV-10: duplicates collapse, Dates become RFC 3339, and past max_sources the rest is counted', async () => {
    const { client } = await connect(line, true, { maxSources: 3 });
    expect(client.serverExtensions()[PROVENANCE_ID]).toEqual({ version: '1.0', digest: true, max_sources: 3 });
    const result = await client.callTool('many', { count: 5 });
    expect(result.content[0]).toMatchObject({ text: '5 rows; collected: true; held 5' });
    const entry = result._meta?.[PROVENANCE_ID];
    expect(seedWrapper({ result: result.structuredContent, ...(entry as object) })).toEqual({
      valid: true,
      errors: '',
    });
    expect(entry).toMatchObject({ sources_omitted: 2 });
    const found = getProvenance(result);
    expect(found?.omitted).toBe(2);
    expect(found?.sources).toEqual(
      [1, 2, 3].map((line) => ({ source: 'sheet.xlsx', location: { line }, retrieved_at: '2026-03-10T09:00:00.000Z' })),
    );
    expect(citations(result, undefined, { requireVerified: true })[0]).toBe('sheet.xlsx line 1, retrieved 2026-03-10');
  });

  it('PROV-11: handlers learn whether citations are collected', async () => {
    const { client } = await connect(line, false);
    const result = await client.callTool('many', { count: 2 });
    expect(result.content[0]).toMatchObject({ text: '2 rows; collected: false; held 0' });
    expect(result._meta?.[PROVENANCE_ID]).toBeUndefined();
  });

  it("PROV-2: an invalid citation is the handler author's error, reported as a tool failure", async () => {
    const { client } = await connect(line, true);
    const result = await client.callTool('broken_citation');
    expect(result.isError).toBe(true);
  });
});

describe('cite', () => {
  it('PROV-2: names the broken field, even when nothing is collected', () => {
    expect(() => {
      cite({ locals: new Map() }, { source: 'x', location: { page: 'three' as unknown as number } });
    }).toThrow(ConfigurationError);
    expect(() => {
      cite({ locals: new Map() }, { source: 'x', location: { page: 'three' as unknown as number } });
    }).toThrow(/location\/page/);
    expect(() => {
      cite({ locals: new Map() }, { source: 'x', retrievedAt: new Date('not a date') });
    }).toThrow(/retrievedAt/);
    expect(() => {
      cite({ locals: new Map() }, { source: 'x', location: { jsonPath: 7 as unknown as string } });
    }).toThrow(/location\/jsonPath/);
    expect(() => {
      cite({ locals: new Map() }, { source: 'x', retrievedAt: 'yesterday' });
    }).toThrow(/provenance\/retrievedAt/);
    expect(() => provenanceServer({ maxSources: 0 })).toThrow(/"maxSources"/);
    expect(() => provenanceServer({ digest: 'yes' as never })).toThrow(/"digest"/);
  });
});

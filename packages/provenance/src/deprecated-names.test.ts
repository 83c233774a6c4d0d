import { silentLogger } from '@ext/core/kit';
import { type ExtendedServer, type ToolResult } from '@ext/core';
import { createTestPair, type TestPair } from '@ext/core/testing';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { provenanceClient } from './client.js';
import { PROVENANCE_ID } from './schema.js';
import { cite, provenanceServer, type Citation } from './server.js';

// The snake_case spellings of 0.1 keep working until the next major and warn once per process (VERSIONING.md section 4).

let pair: TestPair | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await pair?.close();
  pair = undefined;
});

/** Calls a tool that cites `records` and returns the provenance entry the client received. */
async function sent(...records: Citation[]): Promise<unknown> {
  const setup = (server: ExtendedServer): void => {
    server.registerTool('read', {}, (_args, ctx): ToolResult => {
      cite(ctx, ...records);
      return { content: [{ type: 'text', text: 'ok' }] };
    });
  };
  pair = await createTestPair({
    line: 'v1',
    serverExtensions: [provenanceServer({ digest: false })],
    clientExtensions: [provenanceClient()],
    setup,
    serverOptions: { logger: silentLogger },
  });
  const result = await pair.client.callTool('read');
  return result._meta?.[PROVENANCE_ID];
}

describe('citations: camelCase in TypeScript, the seed spelling on the wire', () => {
  it('PROV-3: retrievedAt, location.jsonPath and location.urlFragment travel as retrieved_at, json_path, url_fragment', async () => {
    const emitted = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    expect(
      await sent({
        source: 'report.json',
        location: { jsonPath: '$.total', urlFragment: 'totals' },
        retrievedAt: new Date('2026-03-10T09:00:00Z'),
      }),
    ).toEqual({
      provenance: {
        source: 'report.json',
        location: { json_path: '$.total', url_fragment: 'totals' },
        retrieved_at: '2026-03-10T09:00:00.000Z',
      },
    });
    expect(emitted).not.toHaveBeenCalled();
  });

  it('PROV-3: the 0.1 spellings retrieved_at, json_path and url_fragment still work, warning once each', async () => {
    const emitted = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    const old = {
      source: 'report.json',
      location: { json_path: '$.total', url_fragment: 'totals' },
      retrieved_at: '2026-03-10T09:00:00.000Z',
    };
    expect(await sent(old, { ...old, source: 'other.json' })).toEqual({
      provenance: [old, { ...old, source: 'other.json' }],
    });
    const names = emitted.mock.calls.map(([message]) => /"(\w+)" is deprecated/.exec(String(message))?.[1]);
    expect(names.sort()).toEqual(['json_path', 'retrieved_at', 'url_fragment']);
  });
});

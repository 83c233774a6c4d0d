import { isRecord, silentLogger } from '@ext/core/kit';
import { afterEach, describe, expect, it } from 'vitest';
import { startHttpServer, type RunningHttpServer } from '../server/node-http.js';
import { csvReport } from '../domain/report.js';
import { createTracker } from '../domain/tracker.js';

/**
 * The AI SDK's MCP client (`@ai-sdk/mcp`) knows none of the extensions: it
 * gets the exported report as a plain `resource_link` to the reference
 * origin, and reads it back through the tracker with `resources/read`
 * (data-references DREF-23), as a host that cannot reach the origin would.
 */
const NODE_MAJOR = Number(process.versions.node.split('.')[0]);
// @ai-sdk/mcp declares `engines.node >= 22`; `pnpm test` runs this again on Node 24.
const AI_SDK_NODE = NODE_MAJOR >= 22;

type McpClient = Awaited<ReturnType<typeof import('@ai-sdk/mcp').createMCPClient>>;

const opened: { close(): Promise<void> }[] = [];

afterEach(async () => {
  for (const item of opened.splice(0).reverse()) await item.close();
});

async function start(sdk: 'v1' | 'v2'): Promise<RunningHttpServer> {
  const running = await startHttpServer({ port: 0, sdk, logger: silentLogger });
  opened.push(running);
  const tracker = createTracker(running.store);
  await tracker.create({ title: 'Ship the quarterly report', assignee: 'alice' });
  await tracker.create({ title: 'Quote "this", then = SUM(1)' });
  return running;
}

async function aiSdkClient(running: RunningHttpServer, protocolVersionDiscovery: boolean): Promise<McpClient> {
  // Loaded here, so that on an older Node the file still loads and its tests are reported as skipped.
  const { createMCPClient } = await import('@ai-sdk/mcp');
  const client = await createMCPClient({
    transport: {
      type: 'http',
      url: running.url.href,
      headers: { authorization: `Bearer ${running.tokens?.alice ?? ''}` },
    },
    protocolVersionDiscovery,
  });
  opened.push(client);
  return client;
}

/** The `resource_link` among a tool result's content blocks (the client types content loosely). */
function resourceLinkOf(content: unknown): { uri: string; mimeType: unknown } {
  const blocks: unknown[] = Array.isArray(content) ? content : [];
  const link = blocks.find((block) => isRecord(block) && block.type === 'resource_link');
  if (!isRecord(link) || typeof link.uri !== 'string') throw new Error('export_report gave no resource_link');
  return { uri: link.uri, mimeType: link.mimeType };
}

const CASES = [
  { sdk: 'v2', discovery: true, protocolVersion: '2026-07-28', era: 'found by server/discover' },
  { sdk: 'v2', discovery: false, protocolVersion: '2025-11-25', era: 'through initialize' },
  { sdk: 'v1', discovery: true, protocolVersion: '2025-11-25', era: 'after a discovery probe it falls back from' },
] as const;

describe.skipIf(!AI_SDK_NODE)(
  'the AI SDK MCP client against the demo (skipped before Node 22: @ai-sdk/mcp needs it)',
  () => {
    describe.each(CASES)('on the $sdk server, $protocolVersion $era', ({ sdk, discovery, protocolVersion }) => {
      it('DREF-23: exports a report and reads its resource_link through resources/read', async () => {
        const running = await start(sdk);
        const client = await aiSdkClient(running, discovery);
        expect(client.initializeResult.protocolVersion).toBe(protocolVersion);
        expect(running.origin).toBeDefined();

        const result = await client.callTool({ name: 'export_report', arguments: {} });
        expect(result.isError).not.toBe(true);
        const link = resourceLinkOf(result.content);
        // The link is the origin's signed URL: a host that cannot reach it reads it through the server.
        expect(link.uri.startsWith(`${running.origin?.baseUrl ?? 'no origin'}/`)).toBe(true);
        expect(link.mimeType).toBe('text/csv');

        const read = await client.readResource({ uri: link.uri });
        const csv = csvReport(await createTracker(running.store).list());
        expect(read.contents).toEqual([{ uri: link.uri, mimeType: 'text/csv', text: csv }]);
        expect(csv).toContain('Ship the quarterly report');
      });
    });
  },
);

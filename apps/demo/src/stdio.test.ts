import { fileURLToPath } from 'node:url';
import type { ToolResult } from '@ext/core';
import { CONTENT_NEGOTIATION_ID } from '@ext/content-negotiation';
import { ERRORS_ID } from '@ext/errors';
import { getStructuredError } from '@ext/errors/client';
import { describe, expect, it } from 'vitest';
import { connect, type Connection, type Era, type Target } from './client/connect.js';
import { TRACKER_EXTENSIONS, TRACKER_TOOLS } from './e2e/test-support.js';

const STDIO: Target = {
  kind: 'stdio',
  command: process.execPath,
  args: [fileURLToPath(new URL('../dist/stdio.js', import.meta.url))],
  env: { TRACKER_DB: ':memory:' },
};

const ERAS: readonly Era[] = ['modern', 'legacy'];

describe('the tracker over stdio (a spawned child process)', () => {
  for (const era of ERAS) {
    it(`negotiates io.github.mcp-ext/errors and serves tools on the ${era} era`, async () => {
      const connection = await connect(STDIO, { era });
      try {
        const client = connection.extended!;
        expect(client.era).toBe(era);
        expect(Object.keys(client.serverExtensions()).sort()).toEqual(TRACKER_EXTENSIONS);
        expect(client.serverExtensions()[CONTENT_NEGOTIATION_ID]).toEqual({ version: '1.0' });
        expect(client.negotiated(ERRORS_ID)?.id).toBe(ERRORS_ID);
        const created = await client.callTool('create_ticket', { title: 'Over stdio' });
        expect(created.structuredContent?.ticket).toMatchObject({ id: 'T-1', status: 'open' });
        const missing = await client.callTool('get_ticket', { id: 'T-2' });
        expect(missing.isError).toBe(true);
        expect(getStructuredError(missing)).toMatchObject({
          code: 'RESOURCE_NOT_FOUND',
          category: 'permanent',
          details: { id: 'T-2' },
        });
      } finally {
        await connection.close();
      }
    });

    it(`degrades to a plain error result for a client without the extension on the ${era} era`, async () => {
      const connection = await connect(STDIO, { era, withErrors: false });
      try {
        const result = (await connection.client.callTool({
          name: 'close_ticket',
          arguments: { id: 'T-7' },
        })) as ToolResult;
        expect(result.isError).toBe(true);
        expect(result._meta?.[ERRORS_ID]).toBeUndefined();
        expect(result.content[0]).toMatchObject({
          type: 'text',
          text: expect.stringContaining('T-7 does not exist') as unknown,
        });
      } finally {
        await connection.close();
      }
    });
  }
});

const STDIO_V1: Target = { ...STDIO, args: [fileURLToPath(new URL('../dist/stdio-v1.js', import.meta.url))] };

describe('the tracker on SDK v1 over stdio (a spawned child process)', () => {
  it('serves the same tools, with the same extension metadata, and the same extensions as the v2 server', async () => {
    const v1 = await connect(STDIO_V1, { era: 'legacy' });
    const v2 = await connect(STDIO, { era: 'legacy' });
    try {
      const describeTools = async (connection: Connection) =>
        (await connection.extended!.listTools())
          .map((tool) => ({ name: tool.name, annotations: tool.annotations, _meta: tool._meta }))
          .sort((a, b) => a.name.localeCompare(b.name));
      const fromV1 = await describeTools(v1);
      expect(fromV1.map((tool) => tool.name)).toEqual(TRACKER_TOOLS);
      expect(fromV1).toEqual(await describeTools(v2));
      expect(v1.extended!.serverExtensions()).toEqual(v2.extended!.serverExtensions());
      expect(Object.keys(v1.extended!.serverExtensions()).sort()).toEqual(TRACKER_EXTENSIONS);
    } finally {
      await Promise.all([v1.close(), v2.close()]);
    }
  });

  it('runs calls through the pipeline: a structured error, and a plain one without the extension', async () => {
    const withErrors = await connect(STDIO_V1, { era: 'legacy' });
    const plain = await connect(STDIO_V1, { era: 'legacy', withErrors: false });
    try {
      const client = withErrors.extended!;
      expect(client.negotiated(ERRORS_ID)?.id).toBe(ERRORS_ID);
      const created = await client.callTool('create_ticket', { title: 'Over stdio, on v1' });
      expect(created.structuredContent?.ticket).toMatchObject({ id: 'T-1', status: 'open' });
      const blank = await client.callTool('create_ticket', { title: '   ' });
      expect(getStructuredError(blank)).toMatchObject({
        category: 'invalid_input',
        details: { field: 'title', pointer: '/title' },
      });
      // A wrong JSON type is refused by the core's argument check, also under the errors stage.
      const wrongType = await client.callTool('create_ticket', { title: 42 });
      expect(getStructuredError(wrongType)).toMatchObject({
        category: 'invalid_input',
        details: { field: 'title', pointer: '/title' },
      });
      const missing = (await plain.client.callTool({ name: 'get_ticket', arguments: { id: 'T-9' } })) as ToolResult;
      expect(missing.isError).toBe(true);
      expect(missing._meta?.[ERRORS_ID]).toBeUndefined();
    } finally {
      await Promise.all([withErrors.close(), plain.close()]);
    }
  });
});

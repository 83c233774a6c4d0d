import { fileURLToPath } from 'node:url';
import type { ToolResult } from '@ext/core';
import { CONTENT_NEGOTIATION_EXTENSION_ID } from '@ext/content-negotiation';
import { ERRORS_EXTENSION_ID } from '@ext/errors';
import { getStructuredError } from '@ext/errors/client';
import { describe, expect, it } from 'vitest';
import { connect, type Era, type Target } from './connect.js';
import { TRACKER_EXTENSIONS } from './test-support.js';

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
        expect(client.serverExtensions()[CONTENT_NEGOTIATION_EXTENSION_ID]).toEqual({ version: '1.0' });
        expect(client.negotiated('@ext/errors')?.id).toBe(ERRORS_EXTENSION_ID);
        const created = await client.callTool('create_ticket', { title: 'Over stdio' });
        expect(created.structuredContent?.ticket).toMatchObject({ id: 'T-1', status: 'open' });
        const missing = await client.callTool('get_ticket', { id: 'T-2' });
        expect(missing.isError).toBe(true);
        expect(getStructuredError(missing)).toMatchObject({ code: 'RESOURCE_NOT_FOUND', category: 'permanent', details: { id: 'T-2' } });
      } finally {
        await connection.close();
      }
    });

    it(`degrades to a plain error result for a client without the extension on the ${era} era`, async () => {
      const connection = await connect(STDIO, { era, withErrors: false });
      try {
        const result = (await connection.client.callTool({ name: 'close_ticket', arguments: { id: 'T-7' } })) as ToolResult;
        expect(result.isError).toBe(true);
        expect(result._meta?.[ERRORS_EXTENSION_ID]).toBeUndefined();
        expect(result.content[0]).toMatchObject({ type: 'text', text: expect.stringContaining('T-7 does not exist') as unknown });
      } finally {
        await connection.close();
      }
    });
  }
});

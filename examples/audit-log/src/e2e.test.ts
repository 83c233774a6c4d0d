import { ExtensionError, type ExtendedServer } from '@ext/core';
import { createTestPair, TEST_LINES, type TestPair } from '@ext/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { auditLogClient } from './client.js';
import { AUDIT_LOG_ID, type AuditEntry } from './schema.js';
import { auditLogServer, type AuditLogServerOptions } from './server.js';

function tools(server: ExtendedServer): void {
  server.registerTool('hello', { description: 'Says hello.' }, () => ({ content: [{ type: 'text', text: 'hello' }] }));
  server.registerTool('broken', { description: 'Fails as a tool.' }, () => ({
    content: [{ type: 'text', text: 'no' }],
    isError: true,
  }));
  server.registerTool('guarded', { description: 'Refused by a rule.' }, () => {
    throw new ExtensionError('auth_required', 'PERMISSION_DENIED', 'Not for you.');
  });
}

describe.each(TEST_LINES)('on %s', (line) => {
  let pair: TestPair | undefined;
  afterEach(async () => {
    await pair?.close();
  });

  const open = async (negotiated: boolean, options: Partial<AuditLogServerOptions> = {}) => {
    const entries: AuditEntry[] = [];
    pair = await createTestPair({
      line,
      serverExtensions: [auditLogServer({ write: (entry) => void entries.push(entry), ...options })],
      clientExtensions: negotiated ? [auditLogClient()] : [],
      setup: tools,
    });
    return { client: pair.client, entries };
  };

  it('writes one entry per call, as it ended, and numbers the result for a client that negotiated it (AL-1, AL-2)', async () => {
    const { client, entries } = await open(true);
    const hello = await client.callTool('hello', {});
    await client.callTool('broken', {});
    await client.callTool('guarded', {}).catch(() => undefined);
    expect(entries.map(({ entry, tool, outcome, code }) => ({ entry, tool, outcome, code }))).toEqual([
      { entry: 1, tool: 'hello', outcome: 'ok', code: undefined },
      { entry: 2, tool: 'broken', outcome: 'tool_error', code: undefined },
      { entry: 3, tool: 'guarded', outcome: 'refused', code: 'PERMISSION_DENIED' },
    ]);
    expect(hello._meta?.[AUDIT_LOG_ID]).toEqual({ entry: 1 });
    expect(entries.every((entry) => entry.durationMs >= 0 && !Number.isNaN(Date.parse(entry.at)))).toBe(true);
  });

  it('still writes, but sends nothing of it, to a client that did not negotiate it (AL-2)', async () => {
    const { client, entries } = await open(false);
    expect((await client.callTool('hello', {}))._meta?.[AUDIT_LOG_ID]).toBeUndefined();
    expect(entries).toHaveLength(1);
  });

  it('answers the call as it would have when an entry cannot be written (AL-1)', async () => {
    const { client } = await open(true, { write: () => Promise.reject(new Error('disk full')) });
    const hello = await client.callTool('hello', {});
    expect(hello.content).toEqual([{ type: 'text', text: 'hello' }]);
  });
});

import { WireError } from '@ext/core';
import { TEST_LINES, createTestPair } from '@ext/core/testing';
import { describe, expect, it } from 'vitest';
import { tasksClient } from './client.js';
import { tasksServer } from './server.js';

function pairOn(line: (typeof TEST_LINES)[number], withClientHalf: boolean) {
  return createTestPair({
    line,
    serverExtensions: [tasksServer({ tools: { report: 'optional', approve: 'required' } })],
    clientExtensions: withClientHalf ? [tasksClient()] : [],
    setup: (server) => {
      server.registerTool('report', {}, () => ({ content: [{ type: 'text', text: 'report ready' }] }));
      server.registerTool('approve', {}, () => ({ content: [{ type: 'text', text: 'approved' }] }));
    },
  });
}

// Every line with and without the client half, but the one where a task is created (the SDK test below).
const CASES = TEST_LINES.flatMap((line) =>
  [true, false].filter((half) => line !== 'v2-modern' || !half).map((half) => [line, half] as const),
);

describe('every SDK line and era', () => {
  it.each(CASES)(
    'TASK-1 TASK-2: %s, client half %s: synchronous answers, -32021 where a task is required',
    async (line, half) => {
      const pair = await pairOn(line, half);
      try {
        const result = await pair.client.callTool('report');
        expect(result.content).toEqual([{ type: 'text', text: 'report ready' }]);
        expect(result).not.toHaveProperty('taskId');
        const refused = await pair.client.callTool('approve').then(
          () => undefined,
          (error: unknown) => error,
        );
        expect(WireError.isInstance(refused) && refused.code).toBe(-32021);
      } finally {
        await pair.close();
      }
    },
  );
});

describe('SDK v2 client, 2026-07-28', () => {
  it('TASK-15: declares the extension per request; its SDK refuses resultType "task" on tools/call (2.4.0)', async () => {
    const pair = await pairOn('v2-modern', true);
    try {
      expect(pair.client.negotiated(tasksClient())).toBeDefined();
      await expect(pair.client.callTool('report')).rejects.toThrow(/Unsupported result type 'task'/);
    } finally {
      await pair.close();
    }
  });
});

import { silentLogger } from '@ext/core/kit';
import { type ToolResult } from '@ext/core';
import { createTestPair, type TestPair } from '@ext/core/testing';
import { afterEach, describe, expect, it, vi } from 'vitest';
import * as z from 'zod';
import { getSuggestion, intentClient, intentMeta } from './client.js';
import { intentServer } from './server.js';

// The snake_case spelling of 0.1 keeps working until the next major and warns once per process (VERSIONING.md section 4).

let open: TestPair | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await open?.close();
  open = undefined;
});

describe('deprecated snake_case spelling (0.1)', () => {
  it('INT-4: a router answering { recommended_tool, reason } still suggests that tool, warning once', async () => {
    const emitted = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    open = await createTestPair({
      line: 'v1',
      serverExtensions: [
        intentServer({ router: () => ({ recommended_tool: 'recent_by_days', reason: 'Filters by date.' }) }),
      ],
      clientExtensions: [intentClient()],
      serverOptions: { logger: silentLogger },
      setup: (server) => {
        for (const name of ['search_issues', 'recent_by_days']) {
          server.registerTool(name, { inputSchema: z.object({ query: z.string() }) }, (): ToolResult => {
            return { content: [{ type: 'text', text: name }] };
          });
        }
      },
    });
    for (const intent of ['errors from last week', 'errors from yesterday']) {
      const result = await open.client.callTool('search_issues', { query: 'q' }, { meta: intentMeta(intent) });
      expect(getSuggestion(result)?.suggestion).toEqual({
        recommended_tool: 'recent_by_days',
        reason: 'Filters by date.',
      });
    }
    const names = emitted.mock.calls.map(([message]) => /"(\w+)" is deprecated/.exec(String(message))?.[1]);
    expect(names).toEqual(['recommended_tool']);
  });
});

import { silentLogger } from '@ext/core/kit';
import { type ExtendedServer, type ToolResult } from '@ext/core';
import { createTestPair, type TestPair } from '@ext/core/testing';
import { afterEach, describe, expect, it, vi } from 'vitest';
import * as z from 'zod';
import { idempotencyClient } from './client.js';
import { getIdempotencyCallInfo, idempotencyServer } from './server.js';

// The snake_case spellings of 0.1 keep working until the next major and warn once per process (VERSIONING.md section 4).
/* eslint-disable @typescript-eslint/no-deprecated -- this file exercises the deprecated spellings on purpose */

const open: TestPair[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  await Promise.all(open.splice(0).map((pair) => pair.close()));
});

describe('deprecated snake_case spellings (0.1)', () => {
  it('getIdempotencyCallInfo still answers idempotency_key and original_timestamp, warning once each', async () => {
    const emitted = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    const seen: unknown[] = [];
    const setup = (server: ExtendedServer): void => {
      server.registerTool('create_item', { inputSchema: z.object({ name: z.string() }) }, (_args, ctx) => {
        const info = getIdempotencyCallInfo(ctx);
        seen.push(info?.idempotency_key === info?.idempotencyKey, info?.original_timestamp === info?.originalTimestamp);
        return { content: [{ type: 'text', text: 'created' }] } satisfies ToolResult;
      });
    };
    const created = await createTestPair({
      line: 'v1',
      serverExtensions: [idempotencyServer()],
      clientExtensions: [idempotencyClient()],
      setup,
      serverOptions: { logger: silentLogger },
    });
    open.push(created);
    await created.client.callTool('create_item', { name: 'a' });
    await created.client.callTool('create_item', { name: 'b' });
    expect(seen).toEqual([true, true, true, true]);
    const names = emitted.mock.calls.map(([message]) => /"(\w+)" is deprecated/.exec(String(message))?.[1]);
    expect(names).toEqual(['idempotency_key', 'original_timestamp']);
  });
});

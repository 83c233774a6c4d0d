/**
 * COST-20: a quota's window slides by default, so no span of
 * `window_seconds` admits more than the limit, wherever it starts; fixed
 * windows aligned to the clock stay available as `window: "fixed"`.
 */
import { MemoryStore, type ExtendedServer } from '@ext/core';
import { silentLogger } from '@ext/core/kit';
import { createTestPair, TEST_LINES, type TestPair } from '@ext/core/testing';
import { errorsClient, getStructuredError } from '@ext/errors/client';
import { errorsServer } from '@ext/errors/server';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { costClient, getCostInfo } from './client.js';
import { COST_ID } from './schema.js';
import { costServer } from './server.js';

const open: TestPair[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((pair) => pair.close()));
});

/** 2026-03-15T12:00:59Z: one second before a minute boundary. */
const BEFORE_BOUNDARY = Date.UTC(2026, 2, 15, 12, 0, 59);

/** A server whose `send` tool allows 5 calls per 60 s (`window` as given), on a clock the test moves. */
async function serve(line: (typeof TEST_LINES)[number], window: 'sliding' | 'fixed' | undefined) {
  const clock = { now: BEFORE_BOUNDARY };
  const runs: number[] = [];
  const quota = { limit: 5, window_seconds: 60, ...(window === undefined ? {} : { window }) };
  const setup = (server: ExtendedServer): void => {
    server.registerTool(
      'send',
      {
        inputSchema: z.object({ n: z.number() }),
        _meta: { [COST_ID]: { cost: { category: 'metered', estimated_units: 1 }, quota } },
      },
      (args) => {
        runs.push(args.n);
        return { content: [{ type: 'text', text: `sent ${String(args.n)}` }] };
      },
    );
  };
  const pair = await createTestPair({
    line,
    serverExtensions: [errorsServer(), costServer({ now: () => clock.now })],
    clientExtensions: [errorsClient(), costClient()],
    setup,
    serverOptions: { store: new MemoryStore(), logger: silentLogger },
    clientOptions: { logger: silentLogger },
  });
  open.push(pair);
  return { client: pair.client, clock, runs };
}

describe.each(TEST_LINES)('quota windows on %s (COST-20)', (line) => {
  it('by default 5 calls per 60 s admit 5 across a minute boundary, not 7, and the 6th waits for the first to age out', async () => {
    const { client, clock, runs } = await serve(line, undefined);
    for (let n = 1; n <= 5; n++) expect((await client.callTool('send', { n })).isError).toBeFalsy();
    clock.now += 2000;
    const sixth = await client.callTool('send', { n: 6 });
    const seventh = await client.callTool('send', { n: 7 });
    expect(runs).toEqual([1, 2, 3, 4, 5]);
    for (const refused of [sixth, seventh]) {
      expect(getStructuredError(refused)).toMatchObject({
        code: 'QUOTA_EXHAUSTED',
        category: 'rate_limited',
        // The first five were admitted at 12:00:59 and count until 12:01:59.
        retry_after_seconds: 58,
        details: { limit: 5, used: 5, window_seconds: 60, resets_at: '2026-03-15T12:01:59.000Z' },
      });
    }
    clock.now += 58_000 - 1;
    expect(getStructuredError(await client.callTool('send', { n: 8 }))?.code).toBe('QUOTA_EXHAUSTED');
    clock.now += 1;
    const later = await client.callTool('send', { n: 9 });
    expect(later.isError).toBeFalsy();
    expect(getCostInfo(later)?.quota).toMatchObject({ limit: 5, used: 1, remaining: 4 });
    expect(runs).toEqual([1, 2, 3, 4, 5, 9]);
  });

  it('window: "fixed" keeps windows aligned to the clock: a new minute starts afresh', async () => {
    const { client, clock, runs } = await serve(line, 'fixed');
    for (let n = 1; n <= 5; n++) await client.callTool('send', { n });
    expect(getStructuredError(await client.callTool('send', { n: 6 }))).toMatchObject({
      code: 'QUOTA_EXHAUSTED',
      retry_after_seconds: 1,
      details: { resets_at: '2026-03-15T12:01:00.000Z' },
    });
    clock.now += 2000;
    await client.callTool('send', { n: 7 });
    expect(runs).toEqual([1, 2, 3, 4, 5, 7]);
  });
});

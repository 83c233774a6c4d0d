import { ConfigurationError, type ExtendedServer } from '@ext/core';
import { createTestPair, seedValidators, TEST_LINES, type TestPair, type TestPairOptions } from '@ext/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { RateLimitedError } from './classes.js';
import { errorsClient, getStructuredError } from './client.js';
import { DEFAULT_ERRORS_IDENTIFIERS, ERRORS_IDENTIFIERS, resolveErrorsIdentifiers } from './identifiers.js';
import { ERRORS_ID, ERRORS_IDS, ERRORS_V2_ID } from './schema.js';
import { errorsServer } from './server.js';

const seed = seedValidators().check('error');

/** The keys of this extension in a result's `_meta` (the 2026-07-28 era adds keys of its own there). */
function errorsKeys(meta: Record<string, unknown> | undefined): string[] {
  return Object.keys(meta ?? {}).filter((key) => ERRORS_IDS.includes(key));
}

function withTool(server: ExtendedServer): void {
  server.registerTool('search', { description: 'Always rate limited' }, () => {
    throw new RateLimitedError('RATE_LIMIT_EXCEEDED', 'Search quota used up.', { retryAfterSeconds: 7 });
  });
}

describe('errors identifiers option', () => {
  it('serves v1 only by default, on both halves', () => {
    expect(DEFAULT_ERRORS_IDENTIFIERS).toEqual(['v1']);
    expect(errorsServer().ids).toEqual([ERRORS_ID]);
    expect(errorsClient().ids).toEqual([ERRORS_ID]);
  });

  it('names the identifiers io.github.mcp-ext/errors and io.github.mcp-ext/errors-v2', () => {
    expect(ERRORS_IDENTIFIERS).toEqual({ v1: 'io.github.mcp-ext/errors', v2: 'io.github.mcp-ext/errors-v2' });
    expect(ERRORS_IDS).toEqual([ERRORS_ID, ERRORS_V2_ID]);
  });

  it('lists the served identifiers oldest first, whatever the order given (ERR-24)', () => {
    expect(errorsServer({ identifiers: ['v2', 'v1'] }).ids).toEqual([ERRORS_ID, ERRORS_V2_ID]);
    expect(errorsClient({ identifiers: ['v2'] }).ids).toEqual([ERRORS_V2_ID]);
  });

  it.each([
    ['an empty list', []],
    ['an unknown generation', ['v3']],
    ['a duplicate', ['v1', 'v1']],
    ['a string', 'v2'],
  ])('refuses %s, naming the option', (_label, value) => {
    for (const make of [
      () => errorsServer({ identifiers: value as never }),
      () => errorsClient({ identifiers: value as never }),
    ]) {
      expect(make).toThrow(ConfigurationError);
      expect(make).toThrow(/"identifiers"/);
    }
    expect(() => resolveErrorsIdentifiers(value, 'errorsServer')).toThrow(/errorsServer\(options\)/);
  });
});

describe.each(TEST_LINES)('serving errors and errors-v2 side by side on %s (SEP-2133 evolution)', (line) => {
  let pair: TestPair | undefined;

  async function open(options: Omit<TestPairOptions, 'line' | 'setup'>): Promise<TestPair> {
    pair = await createTestPair({ line, setup: withTool, ...options });
    return pair;
  }

  afterEach(async () => {
    await pair?.close();
    pair = undefined;
  });

  it('advertises both identifiers with their settings (ERR-24)', async () => {
    const { client } = await open({
      serverExtensions: [errorsServer({ identifiers: ['v1', 'v2'] })],
      clientExtensions: [errorsClient()],
    });
    expect(client.serverExtensions()).toMatchObject({
      [ERRORS_ID]: { version: '1.0' },
      [ERRORS_V2_ID]: { version: '1.0' },
    });
  });

  it('an old client (v1 only) still negotiates v1 and reads the error under the v1 key (ERR-24, ERR-25, ERR-26)', async () => {
    const { client } = await open({
      serverExtensions: [errorsServer({ identifiers: ['v1', 'v2'] })],
      clientExtensions: [errorsClient()],
    });
    expect(client.negotiated(ERRORS_ID)?.id).toBe(ERRORS_ID);
    const result = await client.callTool('search');
    expect(errorsKeys(result._meta)).toEqual([ERRORS_ID]);
    const structured = getStructuredError(result);
    expect(structured).toMatchObject({ code: 'RATE_LIMIT_EXCEEDED', category: 'rate_limited', retry_after_seconds: 7 });
    expect(seed(structured).errors).toBe('');
  });

  it('a new client (v1 and v2) negotiates v2 against the same server and reads the error under the v2 key (ERR-24, ERR-25)', async () => {
    const { client } = await open({
      serverExtensions: [errorsServer({ identifiers: ['v1', 'v2'] })],
      clientExtensions: [errorsClient({ identifiers: ['v1', 'v2'] })],
    });
    expect(client.negotiated(ERRORS_ID)?.id).toBe(ERRORS_V2_ID);
    const result = await client.callTool('search');
    expect(errorsKeys(result._meta)).toEqual([ERRORS_V2_ID]);
    const structured = getStructuredError(result);
    expect(structured).toMatchObject({ code: 'RATE_LIMIT_EXCEEDED', category: 'rate_limited', retry_after_seconds: 7 });
    expect(seed(structured).errors).toBe('');
  });

  it('a new client falls back to v1 against an old server that serves v1 only (ERR-24)', async () => {
    const { client } = await open({
      serverExtensions: [errorsServer()],
      clientExtensions: [errorsClient({ identifiers: ['v1', 'v2'] })],
    });
    expect(client.negotiated(ERRORS_ID)?.id).toBe(ERRORS_ID);
    const result = await client.callTool('search');
    expect(errorsKeys(result._meta)).toEqual([ERRORS_ID]);
  });

  it('a v2-only client and a v1-only server share no identifier: plain MCP error, no _meta (ERR-4)', async () => {
    const { client } = await open({
      serverExtensions: [errorsServer()],
      clientExtensions: [errorsClient({ identifiers: ['v2'] })],
    });
    expect(client.negotiated(ERRORS_ID)).toBeUndefined();
    const result = await client.callTool('search');
    expect(result.isError).toBe(true);
    expect(result._meta?.[ERRORS_ID]).toBeUndefined();
    expect(result._meta?.[ERRORS_V2_ID]).toBeUndefined();
    expect(result.content[0]).toMatchObject({
      type: 'text',
      text: expect.stringContaining('Search quota used up.') as unknown,
    });
  });
});

import { readFileSync } from 'node:fs';
import {
  ERROR_CATEGORIES,
  WireError,
  type ErrorCategory,
  type ExtendedServer,
  type Logger,
  type OutgoingCall,
  type StructuredError,
} from '@ext/core';
import { createTestPair, TEST_LINES, type TestPair, type TestPairOptions } from '@ext/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ERROR_CLASSES } from './classes.js';
import { errorsClient, getStructuredError, isRetryable, withRetry } from './client.js';
import { seedValidators } from '@ext/core/testing';
import { readToolFailure } from './read.js';
import { ERRORS_ID, ERRORS_V2_ID, isStructuredError } from './schema.js';
import { errorsServer } from './server.js';
import { isToolFailure, TOOL_FAILURE_KEY } from './tool-failure.js';

const seed = seedValidators().check('error');
const noWait = (): Promise<void> => Promise.resolve();

/** Counters live outside `setup`: the 2026-07-28 line builds a new server per request. */
interface Counters {
  flaky: number;
  permanent: number;
}

function registerTools(server: ExtendedServer, counters: Counters): void {
  for (const category of ERROR_CATEGORIES) {
    server.registerTool(`fail_${category}`, { description: `Fails with a ${category} error` }, () => {
      throw new ERROR_CLASSES[category](`${category.toUpperCase()}_FAILURE`, `The ${category} tool failed.`, {
        suggestion: category === 'invalid_input' ? 'Pass a shorter date range.' : undefined,
        retryAfterSeconds: category === 'rate_limited' || category === 'transient' ? 1 : undefined,
        details: { category },
      });
    });
  }
  server.registerTool('fail_foreign', {}, () => {
    throw new Error('ENOENT: no such file, open /srv/app/config/secrets.json');
  });
  server.registerTool('fail_zod', { inputSchema: z.looseObject({}) }, (args) => {
    z.object({ range: z.object({ days: z.number().max(90) }) }).parse(args);
    return { content: [] };
  });
  server.registerTool('fail_wire', {}, () => {
    throw new WireError(-31050, 'Refused as a protocol error', { reason: 'by design' });
  });
  server.registerTool('flaky', {}, () => {
    counters.flaky += 1;
    if (counters.flaky <= 2) throw new ERROR_CLASSES.transient('BACKEND_BUSY', 'The backend is busy.');
    return { content: [{ type: 'text', text: `succeeded on call ${counters.flaky}` }] };
  });
  server.registerTool('permanent', {}, () => {
    counters.permanent += 1;
    throw new ERROR_CLASSES.permanent('NOT_FOUND', 'No such record.');
  });
}

function expectSeedValid(value: unknown): void {
  expect(seed(value).errors).toBe('');
}

describe.each(TEST_LINES)('end to end on %s', (line) => {
  let pair: TestPair | undefined;
  let counters: Counters;

  async function open(options: Omit<TestPairOptions, 'line'>): Promise<TestPair> {
    counters = { flaky: 0, permanent: 0 };
    pair = await createTestPair({ line, ...options });
    return pair;
  }

  function withTools(server: ExtendedServer): void {
    registerTools(server, counters);
  }

  afterEach(async () => {
    await pair?.close();
    pair = undefined;
  });

  describe('client with the extension', () => {
    it.each(ERROR_CATEGORIES)(
      'gets the structured error for %s in _meta (ERR-1, ERR-2, ERR-3)',
      async (category: ErrorCategory) => {
        const { client } = await open({
          serverExtensions: [errorsServer()],
          clientExtensions: [errorsClient()],
          setup: withTools,
        });
        expect(client.negotiated(ERRORS_ID)?.id).toBe(ERRORS_ID);
        const result = await client.callTool(`fail_${category}`);
        expect(result.isError).toBe(true);
        const payload = result._meta?.[ERRORS_ID];
        expectSeedValid(payload);
        expect(payload).toMatchObject({ category, code: `${category.toUpperCase()}_FAILURE`, details: { category } });
        expect(getStructuredError(result)).toEqual(payload);
        const text = result.content[0];
        expect(text?.type).toBe('text');
        expect(String(text?.text)).toMatch(new RegExp(`^The ${category} tool failed\\.`));
        if (category === 'invalid_input') expect(String(text?.text)).toContain('Pass a shorter date range.');
      },
    );

    it('gets a leak-free INTERNAL_ERROR for a foreign error (ERR-6, ERR-10)', async () => {
      const { client } = await open({
        serverExtensions: [errorsServer()],
        clientExtensions: [errorsClient()],
        setup: withTools,
      });
      const result = await client.callTool('fail_foreign');
      expectSeedValid(result._meta?.[ERRORS_ID]);
      expect(getStructuredError(result)).toMatchObject({ category: 'permanent', code: 'INTERNAL_ERROR' });
      expect(JSON.stringify(result)).not.toContain('/srv/app');
      expect(JSON.stringify(result)).not.toContain('ENOENT');
    });

    it('an internal error: the id the client gets is the id of the one log line with the stack (ERR-29, ERR-30)', async () => {
      const lines: { level: string; message: string; details: Record<string, unknown> | undefined }[] = [];
      const logger: Logger = {
        warn: (message, details) => lines.push({ level: 'warn', message, details }),
        error: (message, details) => lines.push({ level: 'error', message, details }),
      };
      const { client } = await open({
        serverExtensions: [errorsServer()],
        clientExtensions: [errorsClient()],
        serverOptions: { logger },
        setup: withTools,
      });
      const result = await client.callTool('fail_foreign');
      const structured = getStructuredError(result);
      // Still valid against the published schema and the seed (ERR-3).
      expectSeedValid(result._meta?.[ERRORS_ID]);
      expect(isStructuredError(result._meta?.[ERRORS_ID])).toBe(true);
      const id = structured?.details?.correlation_id;
      expect(id).toMatch(/^[0-9a-f]{16}$/);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatchObject({
        level: 'error',
        details: { correlation_id: id, method: 'tools/call', tool: 'fail_foreign' },
      });
      expect(typeof lines[0]?.details?.principal).toBe('string');
      expect(lines[0]?.message).toContain(String(id));
      expect(lines[0]?.details?.stack).toEqual(expect.stringContaining('ENOENT: no such file'));
      expect(lines[0]?.details?.stack).toEqual(expect.stringContaining('e2e.test.ts'));
      expect(JSON.stringify(result)).not.toContain('ENOENT');
    });

    it('gets invalid_input naming the field for a zod failure in the handler (ERR-11)', async () => {
      const { client } = await open({
        serverExtensions: [errorsServer()],
        clientExtensions: [errorsClient()],
        setup: withTools,
      });
      const result = await client.callTool('fail_zod', { range: { days: 365 } });
      expectSeedValid(result._meta?.[ERRORS_ID]);
      expect(getStructuredError(result)).toMatchObject({ category: 'invalid_input', details: { field: 'range.days' } });
    });

    it('reports each structured error to onToolError', async () => {
      const seen: [StructuredError, OutgoingCall][] = [];
      const { client } = await open({
        serverExtensions: [errorsServer()],
        clientExtensions: [errorsClient({ onToolError: (error, call) => seen.push([error, call]) })],
        setup: withTools,
      });
      await client.callTool('fail_rate_limited');
      expect(seen).toHaveLength(1);
      expect(seen[0]?.[0].category).toBe('rate_limited');
      expect(seen[0]?.[1].name).toBe('fail_rate_limited');
    });

    it('a thrown WireError stays a JSON-RPC error (ERR-12)', async () => {
      const { client } = await open({
        serverExtensions: [errorsServer()],
        clientExtensions: [errorsClient()],
        setup: withTools,
      });
      const failure: unknown = await client.callTool('fail_wire').then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(WireError.isInstance(failure)).toBe(true);
      expect(failure).toMatchObject({ code: -31050, data: { reason: 'by design' } });
    });

    it('a flaky tool succeeds through withRetry on the third attempt', async () => {
      const { client } = await open({
        serverExtensions: [errorsServer()],
        clientExtensions: [errorsClient()],
        setup: withTools,
      });
      const attempts: number[] = [];
      const result = await withRetry(
        (attempt) => {
          attempts.push(attempt);
          return client.callTool('flaky');
        },
        { sleep: noWait },
      );
      expect(result.isError).toBeUndefined();
      expect(result.content).toEqual([{ type: 'text', text: 'succeeded on call 3' }]);
      expect(attempts).toEqual([1, 2, 3]);
      expect(counters.flaky).toBe(3);
    });

    it('a permanent error is called exactly once (ERR-16)', async () => {
      const { client } = await open({
        serverExtensions: [errorsServer()],
        clientExtensions: [errorsClient()],
        setup: withTools,
      });
      const result = await withRetry(() => client.callTool('permanent'), { sleep: noWait, maxAttempts: 5 });
      expect(counters.permanent).toBe(1);
      expect(getStructuredError(result)).toMatchObject({ category: 'permanent', code: 'NOT_FOUND' });
      expect(isRetryable(result)).toBe(false);
    });
  });

  describe('client without the extension (degradation)', () => {
    it.each(ERROR_CATEGORIES)(
      'gets a plain isError result with readable text and no _meta for %s (ERR-4)',
      async (category) => {
        const { client } = await open({
          serverExtensions: [errorsServer()],
          clientExtensions: [],
          setup: withTools,
        });
        const result = await client.callTool(`fail_${category}`);
        expect(result.isError).toBe(true);
        expect(String(result.content[0]?.text)).toMatch(new RegExp(`^The ${category} tool failed\\.`));
        expect(result._meta === undefined || !(ERRORS_ID in result._meta)).toBe(true);
        expect(getStructuredError(result)).toBeUndefined();
      },
    );

    it('a foreign error is still leak-free (ERR-10)', async () => {
      const { client } = await open({
        serverExtensions: [errorsServer()],
        clientExtensions: [],
        setup: withTools,
      });
      const result = await client.callTool('fail_foreign');
      expect(result.isError).toBe(true);
      expect(JSON.stringify(result)).not.toContain('/srv/app');
    });

    it('withRetry does not retry what it cannot classify', async () => {
      const { client } = await open({
        serverExtensions: [errorsServer()],
        clientExtensions: [],
        setup: withTools,
      });
      const result = await withRetry(() => client.callTool('flaky'), { sleep: noWait });
      expect(result.isError).toBe(true);
      expect(counters.flaky).toBe(1);
    });
  });

  describe('server without the extension', () => {
    it('the client finds no structured error and does not retry', async () => {
      const { client } = await open({
        serverExtensions: [],
        clientExtensions: [errorsClient()],
        setup: withTools,
      });
      expect(client.negotiated(ERRORS_ID)).toBeUndefined();
      const result = await withRetry(() => client.callTool('flaky'), { sleep: noWait });
      expect(result.isError).toBe(true);
      expect(getStructuredError(result)).toBeUndefined();
      expect(counters.flaky).toBe(1);
    });
  });
});

/** Which of the error keys a result carries (the 2026-07-28 line adds keys of its own to `_meta`). */
function errorKeys(result: { _meta?: Record<string, unknown> | undefined }): string[] {
  return [ERRORS_ID, ERRORS_V2_ID, TOOL_FAILURE_KEY].filter((key) => key in (result._meta ?? {}));
}

/** The draft's published example (SEP-3313 / PR #3312), see test-fixtures/sep-3313/README.md. */
const POLICY_BLOCKED: unknown = JSON.parse(
  readFileSync(new URL('./test-fixtures/sep-3313/policy-blocked.json', import.meta.url), 'utf8'),
);

describe.each(TEST_LINES)('SEP-3313 toolFailure end to end on %s', (line) => {
  let pair: TestPair | undefined;
  let counters: Counters;

  async function open(options: Omit<TestPairOptions, 'line'>): Promise<TestPair> {
    counters = { flaky: 0, permanent: 0 };
    pair = await createTestPair({ line, ...options });
    return pair;
  }

  /** The failing tools, plus tools of a server that sends the draft key alone (no @ext/errors on it). */
  function withTools(server: ExtendedServer): void {
    registerTools(server, counters);
    server.registerTool('draft_policy_blocked', {}, () => ({
      content: [{ type: 'text', text: 'Your account is disconnected.' }],
      isError: true,
      _meta: { [TOOL_FAILURE_KEY]: POLICY_BLOCKED },
    }));
    server.registerTool('draft_flaky', { annotations: { idempotentHint: true } }, () => {
      counters.flaky += 1;
      if (counters.flaky > 2) return { content: [{ type: 'text', text: `succeeded on call ${counters.flaky}` }] };
      const failure = {
        class: 'reliability',
        code: 'retryable_transient_error',
        correlationId: `c${counters.flaky}`,
        retryable: true,
      };
      return { content: [{ type: 'text', text: 'Busy.' }], isError: true, _meta: { [TOOL_FAILURE_KEY]: failure } };
    });
  }

  afterEach(async () => {
    await pair?.close();
    pair = undefined;
  });

  it.each(ERROR_CATEGORIES)(
    'a client that speaks only the draft gets the draft key alone for %s (ERR-31, ERR-32)',
    async (category: ErrorCategory) => {
      const { client } = await open({
        serverExtensions: [errorsServer({ toolFailure: true })],
        clientExtensions: [],
        setup: withTools,
      });
      const result = await client.callTool(`fail_${category}`);
      expect(result.isError).toBe(true);
      expect(String(result.content[0]?.text)).toMatch(new RegExp(`^The ${category} tool failed\\.`));
      expect(errorKeys(result)).toEqual([TOOL_FAILURE_KEY]);
      const failure = readToolFailure(result);
      expect(isToolFailure(failure)).toBe(true);
      expect(failure?.code).toBe(`${category}_failure`);
      expect(failure?.correlationId).toMatch(/^[0-9a-f]{16}$/);
      expect(failure?.class).toBe(
        {
          transient: 'reliability',
          rate_limited: 'reliability',
          invalid_input: 'capability',
          permanent: 'capability',
          auth_required: 'governance',
        }[category],
      );
      const waits = category === 'transient' || category === 'rate_limited';
      expect(failure?.retryable).toBe(waits ? true : undefined);
      if (waits) expect(failure?.retryNotBefore).toBeGreaterThan(Date.now() - 60_000);
      if (category === 'invalid_input') expect(failure?.agentGuidance).toBe('Pass a shorter date range.');
      // Read back into our model from the draft key alone (ERR-34).
      // A custom code of an invalid_input error reads back as permanent: the class cannot tell them apart (ERR-34).
      const readBack = category === 'invalid_input' ? 'permanent' : category;
      expect(getStructuredError(result)).toMatchObject({
        category: readBack,
        code: `${category.toUpperCase()}_FAILURE`,
      });
    },
  );

  it('a client that speaks both gets both keys in one result, one id for an internal error (ERR-33, ERR-35)', async () => {
    const reports: (string | undefined)[] = [];
    const { client } = await open({
      serverExtensions: [
        errorsServer({ toolFailure: true, onError: (report) => void reports.push(report.correlationId) }),
      ],
      clientExtensions: [errorsClient()],
      setup: withTools,
    });
    const result = await client.callTool('fail_foreign');
    const ours = result._meta?.[ERRORS_ID];
    expectSeedValid(ours);
    const failure = readToolFailure(result);
    expect(failure).toMatchObject({ class: 'capability', code: 'internal_error' });
    expect(failure?.correlationId).toBe(getStructuredError(result)?.details?.correlation_id);
    expect(reports).toEqual([failure?.correlationId]);
    expect(getStructuredError(result)).toEqual(ours);
    expect(JSON.stringify(result)).not.toContain('ENOENT');

    const limited = await client.callTool('fail_rate_limited');
    expect(limited._meta?.[ERRORS_ID]).toMatchObject({ category: 'rate_limited' });
    // Only an internal error carries a correlation id in our object (ERR-29); the draft's is always there.
    expect(getStructuredError(limited)?.details).toEqual({ category: 'rate_limited' });
    expect(readToolFailure(limited)?.correlationId).toBe(reports[1]);
  });

  it('without the option nothing changes: no draft key for either client (ERR-31)', async () => {
    const { client } = await open({
      serverExtensions: [errorsServer()],
      clientExtensions: [errorsClient()],
      setup: withTools,
    });
    const result = await client.callTool('fail_transient');
    expect(errorKeys(result)).toEqual([ERRORS_ID]);
  });

  it('a draft-only client retries through withRetry only what the draft allows (ERR-35)', async () => {
    const { client } = await open({
      serverExtensions: [errorsServer({ toolFailure: true })],
      clientExtensions: [],
      setup: withTools,
    });
    const flaky = await withRetry(() => client.callTool('flaky'), { sleep: noWait, idempotent: true });
    expect(flaky.isError).toBeUndefined();
    expect(counters.flaky).toBe(3);
    const permanent = await withRetry(() => client.callTool('permanent'), {
      sleep: noWait,
      idempotent: true,
      maxAttempts: 5,
    });
    expect(counters.permanent).toBe(1);
    expect(isRetryable(permanent)).toBe(false);
  });

  it('reads the draft example from a server that sends only the draft key (ERR-34)', async () => {
    const seen: StructuredError[] = [];
    const { client } = await open({
      serverExtensions: [],
      clientExtensions: [errorsClient({ onToolError: (error) => seen.push(error) })],
      setup: withTools,
    });
    expect(client.negotiated(ERRORS_ID)).toBeUndefined();
    const result = await client.callTool('draft_policy_blocked');
    expect(readToolFailure(result)).toEqual(POLICY_BLOCKED);
    const expected = {
      code: 'AUTH_REQUIRED',
      message: 'Your account is disconnected.',
      category: 'auth_required',
      suggestion: 'Ask the user to reconnect their account, then retry the same call.',
      details: { correlation_id: 'req_8f2c1a-attempt-3' },
    };
    expect(getStructuredError(result)).toEqual(expected);
    expect(seen).toEqual([expected]);
    expectSeedValid(seen[0]);
  });

  it("retries a draft-only server's retryable failure on an idempotent tool, and not otherwise (ERR-35)", async () => {
    const { client } = await open({ serverExtensions: [], clientExtensions: [errorsClient()], setup: withTools });
    const once = await withRetry(() => client.callTool('draft_flaky'), { sleep: noWait });
    expect(once.isError).toBe(true);
    expect(counters.flaky).toBe(1);
    const result = await withRetry(() => client.callTool('draft_flaky'), { sleep: noWait, idempotent: true });
    expect(result.content).toEqual([{ type: 'text', text: 'succeeded on call 3' }]);
    expect(counters.flaky).toBe(3);
  });
});

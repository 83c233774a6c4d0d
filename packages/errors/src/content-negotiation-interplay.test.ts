import { ExtensionError, type ExtendedServer, type ServerExtension, type StructuredError } from '@ext/core';
import { createTestPair, TEST_LINES, type TestPair, type TestPairOptions } from '@ext/core/testing';
import { CONTENT_NEGOTIATION_ID } from '@ext/content-negotiation';
import { contentNegotiationClient, getAppliedFeatures, overrideFeatures } from '@ext/content-negotiation/client';
import { contentNegotiationServer, render } from '@ext/content-negotiation/server';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { errorsClient, getStructuredError } from './client.js';
import { ERRORS_ID, toolError } from './index.js';
import { errorsServer } from './server.js';

const ID = CONTENT_NEGOTIATION_ID;
const CONFIRMATION_ID = 'io.github.mcp-ext/test-confirmation';

/**
 * Stands in for `@ext/confirmation` (not written yet): a gate at the
 * `confirmation` stage that refuses every call without an approval token.
 * The real test of CN-15 against the real gate belongs with that package.
 */
function confirmationGate(): ServerExtension {
  return {
    side: 'server',
    name: '@ext/test-confirmation',
    ids: [CONFIRMATION_ID],
    settings: { version: '1.0' },
    stage: 'confirmation',
    middleware: (call, _ctx, next) => {
      const meta = call.meta[CONFIRMATION_ID] as { token?: unknown } | undefined;
      if (meta?.token !== 'approved') {
        throw new ExtensionError('permanent', 'CONFIRMATION_REQUIRED', 'This call needs a person to confirm it first.');
      }
      return next();
    },
  };
}

interface Counters {
  deleted: number;
}

function tools(counters: Counters) {
  return (server: ExtendedServer): void => {
    server.registerTool('missing_ticket', {}, () => {
      throw toolError.permanent({
        code: 'RESOURCE_NOT_FOUND',
        message: 'Ticket T-404 does not exist.',
        suggestion: 'Call list_tickets.',
      });
    });
    server.registerTool('strict', { inputSchema: z.object({ count: z.number() }) }, ({ count }, ctx) =>
      render(ctx, { data: { count } }),
    );
    server.registerTool('delete_everything', {}, (_args, ctx) => {
      counters.deleted += 1;
      return render(ctx, { data: { deleted: true } });
    });
  };
}

describe.each(TEST_LINES)('interplay on %s', (line) => {
  let pair: TestPair | undefined;
  let counters: Counters;

  async function open(options: Omit<TestPairOptions, 'line' | 'setup'>): Promise<TestPair> {
    counters = { deleted: 0 };
    pair = await createTestPair({ line, setup: tools(counters), ...options });
    return pair;
  }

  afterEach(async () => {
    await pair?.close();
    pair = undefined;
  });

  describe('with @ext/errors (CN-17, ERR-27)', () => {
    const serverExtensions = [errorsServer(), contentNegotiationServer()];

    it('an agent gets the structured error as JSON text, the structured _meta, and the echo', async () => {
      const { client } = await open({
        serverExtensions,
        clientExtensions: [errorsClient(), contentNegotiationClient({ features: ['agent'] })],
      });
      const result = await client.callTool('missing_ticket');
      expect(result.isError).toBe(true);
      const structured = getStructuredError(result);
      expect(structured).toMatchObject({ code: 'RESOURCE_NOT_FOUND', category: 'permanent' });
      expect(JSON.parse(String(result.content[0]?.text))).toEqual({ error: structured });
      expect(result._meta?.[ID]).toEqual({ features: ['format=json', 'verbosity=standard'] });
    });

    it('a person gets markdown', async () => {
      const { client } = await open({
        serverExtensions,
        clientExtensions: [errorsClient(), contentNegotiationClient({ features: ['human'] })],
      });
      const result = await client.callTool('missing_ticket');
      expect(result.content).toEqual([
        { type: 'text', text: '**Error:** Ticket T-404 does not exist.\n\n**Suggestion:** Call list_tickets.' },
      ]);
      expect(getAppliedFeatures(result)?.format).toBe('markdown');
      expect(result._meta?.[ERRORS_ID]).toBeDefined();
    });

    it('an argument error, refused before the content-negotiation stage, is rendered too', async () => {
      const { client } = await open({
        serverExtensions,
        clientExtensions: [errorsClient(), contentNegotiationClient({ features: ['agent', 'verbosity=verbose'] })],
      });
      const result = await client.callTool('strict', { count: 'many' });
      expect(result.isError).toBe(true);
      const parsed = JSON.parse(String(result.content[0]?.text)) as { error: StructuredError };
      expect(parsed.error).toMatchObject({ category: 'invalid_input', code: 'INVALID_INPUT' });
      expect(JSON.stringify(parsed.error.details)).toContain('count');
      expect(String(result.content[0]?.text)).toContain('\n  "error": {');
    });

    it('content negotiation without errors negotiated still renders the text, and leaks no structured _meta', async () => {
      const { client } = await open({
        serverExtensions,
        clientExtensions: [contentNegotiationClient({ features: ['human', 'verbosity=compact'] })],
      });
      const result = await client.callTool('missing_ticket');
      expect(result.content).toEqual([{ type: 'text', text: '**Error:** Ticket T-404 does not exist.' }]);
      expect(result._meta?.[ERRORS_ID]).toBeUndefined();
    });

    it('a client without content negotiation keeps the plain error text (ERR-2)', async () => {
      const { client } = await open({ serverExtensions, clientExtensions: [errorsClient()] });
      const result = await client.callTool('missing_ticket');
      expect(result.content).toEqual([{ type: 'text', text: 'Ticket T-404 does not exist.\nCall list_tickets.' }]);
      expect(result._meta?.[ID]).toBeUndefined();
    });
  });

  describe('tags never open a gate (CN-15)', () => {
    const serverExtensions = [errorsServer(), contentNegotiationServer(), confirmationGate()];

    it('!interactive does not bypass confirmation: the call is refused and nothing runs', async () => {
      const { client } = await open({
        serverExtensions,
        clientExtensions: [errorsClient(), contentNegotiationClient({ features: ['agent', '!interactive'] })],
      });
      const refused = await client.callTool('delete_everything');
      expect(refused.isError).toBe(true);
      expect(getStructuredError(refused)?.code).toBe('CONFIRMATION_REQUIRED');
      const overridden = await client.callTool(
        'delete_everything',
        {},
        { meta: overrideFeatures(['!interactive', 'x-skip-confirmation']) },
      );
      expect(getStructuredError(overridden)?.code).toBe('CONFIRMATION_REQUIRED');
      expect(counters.deleted).toBe(0);
      // The refusal itself is rendered as the agent asked.
      expect(JSON.parse(String(refused.content[0]?.text))).toMatchObject({ error: { code: 'CONFIRMATION_REQUIRED' } });
    });

    it('with the gate satisfied, the call runs exactly once and is rendered as negotiated', async () => {
      const { client } = await open({
        serverExtensions,
        clientExtensions: [errorsClient(), contentNegotiationClient({ features: ['agent', '!interactive'] })],
      });
      const result = await client.callTool(
        'delete_everything',
        {},
        { meta: { [CONFIRMATION_ID]: { token: 'approved' } } },
      );
      expect(result.structuredContent).toEqual({ deleted: true });
      expect(counters.deleted).toBe(1);
    });
  });
});

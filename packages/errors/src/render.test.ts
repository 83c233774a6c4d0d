import { composeServer, MemoryStore, type ServerExtension, type StructuredError } from '@ext/core';
import { createCallContext, createRequestContext, silentLogger } from '@ext/core/kit';
import { describe, expect, it } from 'vitest';
import { toolError } from './classes.js';
import { renderErrorText } from './render.js';
import { ERRORS_ID } from './schema.js';
import { errorResult, errorsServer, errorText } from './server.js';
import { setCallPresentation, type CallPresentation } from '@ext/content-negotiation';

const error: StructuredError = {
  code: 'RATE_LIMIT_EXCEEDED',
  message: 'Search quota used up.',
  category: 'rate_limited',
  retry_after_seconds: 42,
  suggestion: 'Narrow the date range.',
  details: { limit: 100 },
  documentation_url: 'https://docs.example.com/errors#RATE_LIMIT_EXCEEDED',
};

describe('renderErrorText (ERR-27)', () => {
  it('without a presentation, is the ERR-2 text', () => {
    expect(renderErrorText(error, undefined)).toBe(
      'Search quota used up.\nNarrow the date range.\nRetry after 42 seconds.',
    );
    expect(renderErrorText(error, undefined)).toBe(errorText(error));
  });

  it('json: the structured error itself', () => {
    expect(JSON.parse(renderErrorText(error, { format: 'json', verbosity: 'compact' }))).toEqual({ error });
    expect(renderErrorText(error, { format: 'json', verbosity: 'verbose' })).toBe(JSON.stringify({ error }, null, 2));
  });

  it('text: more as verbosity grows, the ERR-2 text at standard', () => {
    expect(renderErrorText(error, { format: 'text', verbosity: 'compact' })).toBe('Search quota used up.');
    expect(renderErrorText(error, { format: 'text', verbosity: 'standard' })).toBe(errorText(error));
    expect(renderErrorText(error, { format: 'text', verbosity: 'verbose' })).toBe(
      `${errorText(error)}\nCode: RATE_LIMIT_EXCEEDED\nCategory: rate_limited\nDetails: {"limit":100}\nDocumentation: https://docs.example.com/errors#RATE_LIMIT_EXCEEDED`,
    );
  });

  it('markdown: the message first, in bold label, then the rest', () => {
    expect(renderErrorText(error, { format: 'markdown', verbosity: 'compact' })).toBe(
      '**Error:** Search quota used up.',
    );
    expect(renderErrorText(error, { format: 'markdown', verbosity: 'standard' })).toBe(
      '**Error:** Search quota used up.\n\n**Suggestion:** Narrow the date range.\n\n_Retry after 42 seconds._',
    );
    expect(renderErrorText(error, { format: 'markdown', verbosity: 'verbose' })).toContain(
      '- Code: `RATE_LIMIT_EXCEEDED`\n- Category: `rate_limited`',
    );
  });
});

describe('errorResult with a presentation', () => {
  it('merges the presentation’s result _meta beside the structured error', () => {
    const echo = { 'io.github.mcp-ext/content-negotiation': { features: ['format=json', 'verbosity=standard'] } };
    const result = errorResult(error, true, ERRORS_ID, {
      format: 'json',
      verbosity: 'standard',
      resultMeta: echo,
    });
    expect(result._meta).toEqual({ ...echo, [ERRORS_ID]: error });
    expect(errorResult(error, false, ERRORS_ID, { format: 'text', verbosity: 'compact' })._meta).toBeUndefined();
  });

  it('the errors stage reads the presentation another extension recorded for the call', async () => {
    const presentation: CallPresentation = { format: 'markdown', verbosity: 'compact' };
    // Stands in for content negotiation: errors never imports it, both meet in core's slot.
    const presenter: ServerExtension = {
      side: 'server',
      name: '@ext/presenter',
      ids: ['io.github.mcp-ext/presenter'],
      settings: { version: '1.0' },
      beginCall: (_call, ctx) => {
        setCallPresentation(ctx, presentation);
      },
    };
    const composed = composeServer([presenter, errorsServer()], { logger: silentLogger });
    const request = createRequestContext({
      sdk: 'v2',
      era: 'modern',
      protocolVersion: '2026-07-28',
      authInfo: undefined,
      identity: { principal: 'local', source: 'local' },
      peerExtensions: {},
      negotiation: new Map(),
      signal: new AbortController().signal,
      logger: silentLogger,
      store: new MemoryStore(),
      progressToken: undefined,
      notify: () => Promise.resolve(),
      elicit: undefined,
    });
    const result = await composed.runToolCall(
      { name: 'tool', arguments: {}, meta: {} },
      createCallContext(request, { name: 'tool' }),
      () => {
        throw toolError.permanent({ message: 'No such record.' });
      },
    );
    expect(result).toEqual({ content: [{ type: 'text', text: '**Error:** No such record.' }], isError: true });
  });
});

import {
  composeServer,
  ConfigurationError,
  MemoryStore,
  PIPELINE_STAGES,
  WireError,
  type CallContext,
  type Logger,
  type NegotiationTable,
  type ServerExtension,
  type ToolHandler,
  type ToolResult,
} from '@ext/core';
import { createCallContext, createRequestContext } from '@ext/core/kit';
import { describe, expect, it, vi } from 'vitest';
import { toolError } from './classes.js';
import { ERRORS_ID } from './schema.js';
import { errorResult, errorsServer, errorText, type ErrorReport, type ErrorsServerOptions } from './server.js';

function context(negotiated: boolean, logger: Logger = { warn: vi.fn() }): CallContext {
  const table: NegotiationTable = new Map(
    negotiated ? [['@ext/errors', { id: ERRORS_ID, settings: { version: '1.0' } }]] : [],
  );
  const request = createRequestContext({
    sdk: 'v1',
    era: 'legacy',
    protocolVersion: '2025-11-25',
    authInfo: undefined,
    identity: { principal: 'local', source: 'local' },
    peerExtensions: negotiated ? { [ERRORS_ID]: { version: '1.0' } } : {},
    negotiation: table,
    signal: new AbortController().signal,
    logger,
    store: new MemoryStore(),
    progressToken: undefined,
    notify: () => Promise.resolve(),
    elicit: undefined,
  });
  return createCallContext(request, { name: 'tool' });
}

function run(
  handler: ToolHandler,
  options: { negotiated?: boolean; server?: ErrorsServerOptions; logger?: Logger; others?: ServerExtension[] } = {},
): Promise<ToolResult> {
  const composed = composeServer([...(options.others ?? []), errorsServer(options.server)]);
  return composed.runToolCall(
    { name: 'tool', arguments: {}, meta: {} },
    context(options.negotiated ?? true, options.logger),
    handler,
  );
}

describe('errorsServer descriptor', () => {
  it('advertises io.github.mcp-ext/errors with version 1.0 at the outermost stage (ERR-1, ERR-21)', () => {
    const half = errorsServer();
    expect(half).toMatchObject({
      side: 'server',
      name: '@ext/errors',
      ids: [ERRORS_ID],
      settings: { version: '1.0' },
      stage: 'errors',
    });
    expect(PIPELINE_STAGES[0]).toBe('errors');
    const inner: ServerExtension = {
      side: 'server',
      name: '@ext/inner',
      ids: ['io.github.mcp-ext/inner'],
      settings: { version: '1.0' },
      stage: 'permissions',
      middleware: (_c, _x, next) => next(),
    };
    expect(composeServer([inner, errorsServer()]).pipeline[0]?.extension).toBe('@ext/errors');
  });

  it.each([
    [{ exposeMessages: 'yes' }, 'exposeMessages'],
    [{ documentationBaseUrl: 'http://docs.example.com/' }, 'documentationBaseUrl'],
    [{ documentationBaseUrl: 'not a url' }, 'documentationBaseUrl'],
    [{ onError: 'log' }, 'onError'],
    [{ map: {} }, 'map'],
    [{ exposeMessage: true }, 'exposeMessage'],
  ])('refuses %o when the factory is called, naming the option', (options, name) => {
    expect(() => errorsServer(options as never)).toThrow(ConfigurationError);
    expect(() => errorsServer(options as never)).toThrow(name);
  });
});

describe('errorsServer middleware', () => {
  it('turns a thrown error into an isError result with readable text and _meta (ERR-2, ERR-3)', async () => {
    const result = await run(() => {
      throw toolError.rateLimited({
        message: 'Search quota used up.',
        suggestion: 'Narrow the date range.',
        retryAfterSeconds: 42,
      });
    });
    expect(result.isError).toBe(true);
    expect(result.content).toEqual([
      { type: 'text', text: 'Search quota used up.\nNarrow the date range.\nRetry after 42 seconds.' },
    ]);
    expect(result._meta).toEqual({
      [ERRORS_ID]: {
        code: 'RATE_LIMIT_EXCEEDED',
        message: 'Search quota used up.',
        category: 'rate_limited',
        retry_after_seconds: 42,
        suggestion: 'Narrow the date range.',
      },
    });
  });

  it('omits _meta when the client did not negotiate, keeping the same text (ERR-4)', async () => {
    const result = await run(
      () => {
        throw toolError.invalidInput({ message: 'Date range too long.' });
      },
      { negotiated: false },
    );
    expect(result).toEqual({ content: [{ type: 'text', text: 'Date range too long.' }], isError: true });
  });

  it('catches errors thrown by later middlewares too (ERR-21, ERR-23)', async () => {
    const inner: ServerExtension = {
      side: 'server',
      name: '@ext/inner',
      ids: ['io.github.mcp-ext/inner'],
      settings: { version: '1.0' },
      stage: 'permissions',
      middleware: () => Promise.reject(toolError.authRequired({ message: 'Sign in.' })),
    };
    const handler = vi.fn(() => ({ content: [] }));
    const result = await run(handler, { others: [inner] });
    expect(handler).not.toHaveBeenCalled();
    expect(result._meta?.[ERRORS_ID]).toMatchObject({
      category: 'auth_required',
      code: 'AUTHENTICATION_REQUIRED',
    });
  });

  it('rethrows a WireError untouched (ERR-12)', async () => {
    const wire = new WireError(-32021, 'needs extension', { requiredCapabilities: {} });
    await expect(run(() => Promise.reject(wire))).rejects.toBe(wire);
  });

  it('leaves an isError result without a structured error as it is (ERR-13)', async () => {
    const returned: ToolResult = { content: [{ type: 'text', text: 'nope' }], isError: true };
    expect(await run(() => returned)).toBe(returned);
    expect(await run(() => returned, { negotiated: false })).toBe(returned);
  });

  it('removes its own _meta key from results sent to a client that did not negotiate (ERR-4)', async () => {
    const returned: ToolResult = {
      content: [{ type: 'text', text: 'nope' }],
      isError: true,
      _meta: { [ERRORS_ID]: { code: 'X', message: 'nope', category: 'permanent' }, other: 1 },
    };
    expect(await run(() => returned, { negotiated: false })).toEqual({
      content: returned.content,
      isError: true,
      _meta: { other: 1 },
    });
    expect(await run(() => returned)).toBe(returned);
  });

  it('hides foreign messages by default and shows them redacted with exposeMessages (ERR-10)', async () => {
    const thrower = (): never => {
      throw new Error('Order store rejected the write to /var/lib/orders.db');
    };
    const hidden = await run(thrower);
    const sent = hidden._meta?.[ERRORS_ID] as { details?: { correlation_id?: string } } | undefined;
    expect(hidden._meta?.[ERRORS_ID]).toEqual({
      code: 'INTERNAL_ERROR',
      message: 'The tool failed because of an internal error.',
      category: 'permanent',
      details: { correlation_id: sent?.details?.correlation_id },
    });
    expect(sent?.details?.correlation_id).toMatch(/^[0-9a-f]{16}$/);
    const shown = await run(thrower, { server: { exposeMessages: true } });
    const text = JSON.stringify(shown);
    expect(text).toContain('Order store rejected the write');
    expect(text).not.toContain('/var/lib');
  });

  it('gives an internal error a correlation id, in the answer and in one error log line with the stack (ERR-29, ERR-30)', async () => {
    const logger = { warn: vi.fn(), error: vi.fn() };
    const reports: ErrorReport[] = [];
    const original = new Error('Order store rejected the write to /var/lib/orders.db');
    const result = await run(() => Promise.reject(original), {
      logger,
      server: { onError: (report) => void reports.push(report) },
    });
    const sent = result._meta?.[ERRORS_ID] as { details: { correlation_id: string } };
    const id = sent.details.correlation_id;
    expect(logger.error).toHaveBeenCalledTimes(1);
    expect(logger.error).toHaveBeenCalledWith(expect.stringContaining(id), {
      correlation_id: id,
      method: 'tools/call',
      tool: 'tool',
      principal: 'local',
      error: original.message,
      error_type: 'Error',
      stack: original.stack,
    });
    expect(logger.warn).not.toHaveBeenCalled();
    expect(reports[0]?.correlationId).toBe(id);
    // The text a person reads is unchanged (ERR-2), and nothing internal travels (ERR-6).
    expect(result.content[0]).toEqual({ type: 'text', text: 'The tool failed because of an internal error.' });
    expect(JSON.stringify(result)).not.toContain('/var/lib');
  });

  it('logs nothing and adds no id for errors written for the peer (ERR-29)', async () => {
    const logger = { warn: vi.fn(), error: vi.fn() };
    const reports: ErrorReport[] = [];
    const refused = await run(
      () => Promise.reject(toolError.invalidInput({ code: 'TOO_LONG', message: 'Too long.' })),
      {
        logger,
        server: { onError: (report) => void reports.push(report) },
      },
    );
    expect(refused._meta?.[ERRORS_ID]).toEqual({
      code: 'TOO_LONG',
      message: 'Too long.',
      category: 'invalid_input',
    });
    expect(reports[0]?.correlationId).toBeUndefined();
    expect(logger.error).not.toHaveBeenCalled();
    expect(logger.warn).not.toHaveBeenCalled();
  });

  it('calls onError with the original error, and survives a failing hook (ERR-10)', async () => {
    const reports: ErrorReport[] = [];
    const original = new Error('secret detail');
    await run(() => Promise.reject(original), { server: { onError: (report) => void reports.push(report) } });
    expect(reports).toHaveLength(1);
    expect(reports[0]?.error).toBe(original);
    expect(reports[0]?.structured.code).toBe('INTERNAL_ERROR');
    expect(reports[0]?.call.name).toBe('tool');

    const logger = { warn: vi.fn() };
    const result = await run(() => Promise.reject(original), {
      logger,
      server: {
        onError: () => {
          throw new Error('hook broke');
        },
      },
    });
    expect(result.isError).toBe(true);
    expect(logger.warn).toHaveBeenCalledWith(
      expect.stringContaining('onError'),
      expect.objectContaining({ tool: 'tool' }),
    );
  });

  it('applies the map option first, sanitizing its answer, and falls back when it throws (ERR-6, ERR-22)', async () => {
    class UniqueViolation extends Error {}
    const map = (error: unknown) =>
      error instanceof UniqueViolation
        ? {
            code: 'ALREADY_EXISTS',
            message: 'That name is taken.',
            category: 'invalid_input' as const,
            details: { sql: 'x', field: 'name' },
          }
        : undefined;
    const mapped = await run(() => Promise.reject(new UniqueViolation('duplicate key')), { server: { map } });
    expect(mapped._meta?.[ERRORS_ID]).toEqual({
      code: 'ALREADY_EXISTS',
      message: 'That name is taken.',
      category: 'invalid_input',
      details: { field: 'name' },
    });
    const asClass = await run(() => Promise.reject(new UniqueViolation('duplicate key')), {
      server: {
        map: () => toolError.invalidInput({ code: 'ALREADY_EXISTS', message: 'Taken.', retryAfterSeconds: 0 }),
      },
    });
    expect(asClass._meta?.[ERRORS_ID]).toEqual({
      code: 'ALREADY_EXISTS',
      message: 'Taken.',
      category: 'invalid_input',
      retry_after_seconds: 0,
    });
    const logger = { warn: vi.fn() };
    const fallback = await run(() => Promise.reject(new Error('x')), {
      logger,
      server: {
        map: () => {
          throw new Error('mapper broke');
        },
      },
    });
    expect(fallback._meta?.[ERRORS_ID]).toMatchObject({ code: 'INTERNAL_ERROR' });
    expect(logger.warn).toHaveBeenCalledWith(expect.stringContaining('"map"'), expect.anything());
  });

  it('adds documentation_url from documentationBaseUrl (ERR-7)', async () => {
    const result = await run(() => Promise.reject(toolError.permanent({ code: 'GONE', message: 'Gone.' })), {
      server: { documentationBaseUrl: 'https://docs.example.com/errors#' },
    });
    expect(result._meta?.[ERRORS_ID]).toMatchObject({
      documentation_url: 'https://docs.example.com/errors#GONE',
    });
  });

  it('passes successful results through untouched (ERR-13)', async () => {
    const ok: ToolResult = { content: [{ type: 'text', text: 'fine' }] };
    expect(await run(() => ok)).toBe(ok);
  });
});

describe('errorText and errorResult', () => {
  it('writes message, then suggestion, then the wait (ERR-2)', () => {
    expect(errorText({ code: 'X', message: 'm', category: 'permanent' })).toBe('m');
    expect(errorText({ code: 'X', message: 'm', category: 'transient', suggestion: 's', retry_after_seconds: 3 })).toBe(
      'm\ns\nRetry after 3 seconds.',
    );
    expect(errorText({ code: 'X', message: 'm', category: 'permanent', retry_after_seconds: 3 })).toBe('m');
  });

  it('builds the result with or without _meta', () => {
    const error = { code: 'X', message: 'm', category: 'permanent' as const };
    expect(errorResult(error, false)).toEqual({ content: [{ type: 'text', text: 'm' }], isError: true });
    expect(errorResult(error, true)._meta).toEqual({ [ERRORS_ID]: error });
  });
});

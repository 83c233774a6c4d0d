import { describe, expect, it } from 'vitest';
import { ErrorCodes, ExtensionError, WireError } from '../contract/errors.js';
import type { ServerExtension } from '../contract/extension.js';
import { answerMethodFailure, logInternalError, newCorrelationId, withCorrelationId } from './internal-errors.js';
import type { Logger } from './logger.js';
import { createTestPair, TEST_LINES } from '../testing/index.js';

interface Line {
  readonly level: 'warn' | 'error';
  readonly message: string;
  readonly details: Record<string, unknown> | undefined;
}

function capture(): { logger: Logger; lines: Line[] } {
  const lines: Line[] = [];
  return {
    lines,
    logger: {
      warn: (message, details) => lines.push({ level: 'warn', message, details }),
      error: (message, details) => lines.push({ level: 'error', message, details }),
    },
  };
}

describe('correlation ids', () => {
  it('are 16 hex characters, new each time', () => {
    const ids = new Set(Array.from({ length: 100 }, () => newCorrelationId()));
    expect(ids.size).toBe(100);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{16}$/);
  });

  it('go into details.correlation_id, beside what details held', () => {
    const structured = { code: 'INTERNAL_ERROR', message: 'm', category: 'permanent' as const, details: { step: 2 } };
    expect(withCorrelationId(structured, 'abc')).toEqual({
      ...structured,
      details: { step: 2, correlation_id: 'abc' },
    });
    expect(structured.details).toEqual({ step: 2 });
  });
});

describe('logInternalError', () => {
  it('logs once through error, with the id, the method, tool, caller and the stack', () => {
    const { logger, lines } = capture();
    const error = new Error('disk on fire');
    logInternalError(logger, {
      correlationId: 'c0ffee',
      method: 'tools/call',
      tool: 'get_ticket',
      principal: 'id:alice',
      error,
    });
    expect(lines).toEqual([
      {
        level: 'error',
        message: 'tools/call get_ticket failed with an internal error (correlation id c0ffee)',
        details: {
          correlation_id: 'c0ffee',
          method: 'tools/call',
          tool: 'get_ticket',
          principal: 'id:alice',
          error: 'disk on fire',
          error_type: 'Error',
          stack: error.stack,
        },
      },
    ]);
  });

  it('falls back to warn, and survives values that cannot be read and loggers that throw', () => {
    const warned: unknown[] = [];
    const hostile = new Proxy(
      {},
      {
        get: () => {
          throw new Error('no');
        },
        getPrototypeOf: () => {
          throw new Error('no');
        },
      },
    );
    logInternalError(
      { warn: (_message, details) => warned.push(details) },
      { correlationId: 'x', method: 'm', principal: 'local', error: hostile },
    );
    expect(warned).toHaveLength(1);
    expect(warned[0]).toMatchObject({ correlation_id: 'x' });
    expect(typeof (warned[0] as { error?: unknown }).error).toBe('string');
    const throwing: Logger = {
      warn: () => {
        throw new Error('logger down');
      },
    };
    expect(() => {
      logInternalError(throwing, { correlationId: 'x', method: 'm', principal: 'local', error: 1 });
    }).not.toThrow();
  });
});

describe('answerMethodFailure', () => {
  const ctx = (logger: Logger) => ({ logger, principal: 'local' });

  it('passes deliberate failures through unlogged', () => {
    const { logger, lines } = capture();
    const wire = new WireError(-32021, 'x');
    const refusal = new ExtensionError('invalid_input', 'BAD', 'bad');
    expect(answerMethodFailure(wire, 'm', ctx(logger))).toBe(wire);
    expect(answerMethodFailure(refusal, 'm', ctx(logger))).toBe(refusal);
    expect(lines).toEqual([]);
  });

  it('answers an internal error with -32603 carrying the id it logged', () => {
    const { logger, lines } = capture();
    const answer = answerMethodFailure(new Error('boom'), 'io.github.mcp-ext/x/do', ctx(logger));
    expect(WireError.isInstance(answer)).toBe(true);
    const wire = answer as WireError;
    expect(wire.code).toBe(ErrorCodes.InternalError);
    const id = (wire.data as { details: { correlation_id: string } }).details.correlation_id;
    expect(lines).toHaveLength(1);
    expect(lines[0]?.details).toMatchObject({
      correlation_id: id,
      method: 'io.github.mcp-ext/x/do',
      principal: 'local',
      error: 'boom',
    });
  });
});

/** An extension whose method and middleware fail with a plain Error. */
function failing(): ServerExtension {
  return {
    name: '@ext/failing',
    side: 'server',
    ids: ['io.github.mcp-ext/failing'],
    settings: { version: '1.0' },
    methods: {
      explode: () => {
        throw new Error('method exploded');
      },
    },
  };
}

describe.each(TEST_LINES)('internal errors over a real client and server (%s)', (line) => {
  it('a method: the client gets the correlation id in data.details, the log line has it and the stack, once', async () => {
    const { logger, lines } = capture();
    const pair = await createTestPair({ line, serverExtensions: [failing()], serverOptions: { logger } });
    let thrown: unknown;
    try {
      await pair.client.request('io.github.mcp-ext/failing/explode', {});
    } catch (error) {
      thrown = error;
    } finally {
      await pair.close();
    }
    expect(WireError.isInstance(thrown)).toBe(true);
    const data = (thrown as WireError).data as { code: string; details: { correlation_id: string } };
    expect(data.code).toBe('INTERNAL_ERROR');
    const id = data.details.correlation_id;
    expect(id).toMatch(/^[0-9a-f]{16}$/);
    const logged = lines.filter((entry) => entry.details?.correlation_id !== undefined);
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatchObject({
      level: 'error',
      details: { correlation_id: id, method: 'io.github.mcp-ext/failing/explode' },
    });
    expect(typeof logged[0]?.details?.principal).toBe('string');
    expect(logged[0]?.details?.stack).toContain('method exploded');
    expect(JSON.stringify(thrown)).not.toContain('method exploded');
  });

  it('a tool with no @ext/errors composed: logged once by the core', async () => {
    const { logger, lines } = capture();
    const pair = await createTestPair({
      line,
      serverOptions: { logger },
      setup: (server) => {
        server.registerTool('explode', {}, () => {
          throw new Error('tool exploded');
        });
      },
    });
    try {
      const result = await pair.client.callTool('explode', {});
      expect(result.isError).toBe(true);
    } finally {
      await pair.close();
    }
    const logged = lines.filter((entry) => entry.details?.correlation_id !== undefined);
    expect(logged).toHaveLength(1);
    expect(logged[0]?.details).toMatchObject({ method: 'tools/call', tool: 'explode' });
    expect(logged[0]?.details?.stack).toContain('tool exploded');
  });
});

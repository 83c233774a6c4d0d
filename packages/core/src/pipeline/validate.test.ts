import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { CANONICAL_MAX_DEPTH, JSON_TOO_DEEP_CODE } from '../kit/canonical.js';
import { ExtensionError } from '../contract/errors.js';
import type { ServerExtension } from '../contract/extension.js';
import { silentLogger } from '../telemetry/logger.js';
import { TEST_LINES, createTestPair, type TestPair } from '../testing/index.js';
import type { ToolResult } from '../contract/types.js';
import { issuePointer, validateArguments } from './validate.js';

describe('validateArguments', () => {
  it('returns the parsed value (defaults applied)', async () => {
    const schema = z.object({ title: z.string(), priority: z.number().default(3) });
    await expect(validateArguments('t', schema, { title: 'x' })).resolves.toEqual({ title: 'x', priority: 3 });
  });

  it('names the first bad field, dotted, and locates it with a JSON Pointer', async () => {
    const schema = z.object({ range: z.object({ days: z.number().max(90) }) });
    const failure = await validateArguments('t', schema, { range: { days: 365 } }).catch((error: unknown) => error);
    expect(ExtensionError.isInstance(failure)).toBe(true);
    expect((failure as ExtensionError).toStructured()).toMatchObject({
      code: 'INVALID_INPUT',
      category: 'invalid_input',
      details: {
        field: 'range.days',
        pointer: '/range/days',
        issues: [{ field: 'range.days', pointer: '/range/days' }],
      },
    });
    expect(issuePointer(['a/b', { key: 'c~d' }, 0])).toBe('/a~1b/c~0d/0');
  });
});

// A stand-in for @ext/errors (stage "errors") and for a stage with effects.
function probes(log: string[]): ServerExtension[] {
  return [
    {
      side: 'server',
      name: '@ext/probe-errors',
      ids: ['io.github.mcp-ext/probe-errors'],
      settings: { version: '1.0' },
      stage: 'errors',
      middleware: async (call, ctx, next) => {
        try {
          return await next();
        } catch (error) {
          if (!ExtensionError.isInstance(error)) throw error;
          log.push(`structured ${error.code} ${String(error.details?.field)}`);
          return {
            content: [{ type: 'text', text: error.message }],
            isError: true,
            _meta: { probe: error.toStructured() },
          };
        }
      },
    },
    {
      side: 'server',
      name: '@ext/probe-effects',
      ids: ['io.github.mcp-ext/probe-effects'],
      settings: { version: '1.0' },
      stage: 'idempotency',
      middleware: (call, ctx, next) => {
        log.push('effects stage reached');
        return next();
      },
    },
  ];
}

describe.each(TEST_LINES)('tool arguments are validated inside the pipeline (%s)', (line) => {
  let pair: TestPair | undefined;
  afterEach(async () => {
    await pair?.close();
  });

  async function connect(log: string[], withProbes: boolean): Promise<TestPair> {
    pair = await createTestPair({
      line,
      serverExtensions: withProbes ? probes(log) : [],
      serverOptions: { logger: silentLogger },
      setup: (server) => {
        server.registerTool('create_ticket', { inputSchema: z.object({ title: z.string().min(1) }) }, ({ title }) => {
          log.push(`handler ${title}`);
          return { content: [{ type: 'text', text: title }] };
        });
      },
    });
    return pair;
  }

  it('a bad argument is refused under the errors stage, before any stage with effects', async () => {
    const log: string[] = [];
    const { client } = await connect(log, true);
    const result: ToolResult = await client.callTool('create_ticket', { title: 42 });
    expect(result.isError).toBe(true);
    expect(result._meta?.probe).toMatchObject({
      code: 'INVALID_INPUT',
      details: { field: 'title', pointer: '/title' },
    });
    expect(log).toEqual(['structured INVALID_INPUT title']);
  });

  it('CORE-48: arguments nested deeper than CANONICAL_MAX_DEPTH are refused before any stage with effects', async () => {
    const log: string[] = [];
    const { client } = await connect(log, true);
    let deep: unknown = 'x';
    for (let level = 1; level < CANONICAL_MAX_DEPTH; level++) deep = { inner: deep };
    // The arguments object is the first level: `title` at depth 100 is the most allowed, one more is refused.
    const refused = await client.callTool('create_ticket', { title: 'x', extra: { inner: deep } });
    expect(refused.isError).toBe(true);
    expect(refused._meta?.probe).toMatchObject({
      code: JSON_TOO_DEEP_CODE,
      category: 'invalid_input',
      details: { max_depth: CANONICAL_MAX_DEPTH },
    });
    expect(log).toEqual([`structured ${JSON_TOO_DEEP_CODE} undefined`]);
    const allowed = await client.callTool('create_ticket', { title: 'x', extra: deep });
    expect(allowed.isError).toBeFalsy();
  });

  it('valid arguments reach the handler through every stage', async () => {
    const log: string[] = [];
    const { client } = await connect(log, true);
    const result = await client.callTool('create_ticket', { title: 'Fix login' });
    expect(result.isError).toBeFalsy();
    expect(log).toEqual(['effects stage reached', 'handler Fix login']);
  });

  it('without an errors stage the refusal is a plain MCP error result naming the field', async () => {
    const log: string[] = [];
    const { client } = await connect(log, false);
    const result = await client.callTool('create_ticket', { title: '' });
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain('argument title');
    expect(log).toEqual([]);
  });
});

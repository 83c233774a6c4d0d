import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import type { ServerExtension } from '../contract/extension.js';
import { TEST_LINES, createTestPair, type TestPair } from '../testing/index.js';
import type { ToolCall } from '../contract/types.js';

/** A server half that adds a draft's `Tool` member and records what each call's other params were. */
function draftHalf(seen: ToolCall[]): ServerExtension {
  return {
    side: 'server',
    name: 'draft-probe',
    ids: ['io.github.mcp-ext/draft-probe'],
    settings: { version: '1.0' },
    stage: 'content-negotiation',
    middleware: (call, _ctx, next) => {
      seen.push(call);
      return next();
    },
    toolFields: (tool) =>
      tool.name === 'plain' ? undefined : { outputVariants: [{ audience: 'assistant', format: 'content' }], name: 'x' },
  };
}

describe.each(TEST_LINES)('what a protocol draft adds to tools, on %s', (line) => {
  let pair: TestPair | undefined;
  const seen: ToolCall[] = [];

  async function open(): Promise<TestPair> {
    seen.length = 0;
    pair = await createTestPair({
      line,
      serverExtensions: [draftHalf(seen)],
      setup: (server) => {
        server.registerTool('shaped', { inputSchema: z.object({ n: z.number() }) }, () => ({ content: [] }));
        server.registerTool('plain', {}, () => ({ content: [] }));
      },
    });
    return pair;
  }

  afterEach(async () => {
    await pair?.close();
    pair = undefined;
  });

  it('tools/list carries the members toolFields adds, never replacing what the SDK lists', async () => {
    const { client } = await open();
    const { tools } = (await client.request('tools/list', {})) as { tools: Record<string, unknown>[] };
    const shaped = tools.find((tool) => tool.name === 'shaped');
    expect(shaped?.outputVariants).toEqual([{ audience: 'assistant', format: 'content' }]);
    expect(tools.map((tool) => tool.name).sort()).toEqual(['plain', 'shaped']);
    expect(tools.find((tool) => tool.name === 'plain')).not.toHaveProperty('outputVariants');
  });

  it('a call hands the params the core does not model to the pipeline as ToolCall.params', async () => {
    const { client } = await open();
    await client.request('tools/call', { name: 'shaped', arguments: { n: 1 }, requestedOutputs: [{ a: 1 }] });
    await client.callTool('shaped', { n: 2 });
    expect(seen.map((call) => call.params)).toEqual([{ requestedOutputs: [{ a: 1 }] }, undefined]);
    expect(seen[0]?.arguments).toEqual({ n: 1 });
  });
});

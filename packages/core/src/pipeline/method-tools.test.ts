import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { ConfigurationError, ExtensionError } from '../contract/errors.js';
import type { ServerExtension } from '../contract/extension.js';
import { silentLogger } from '../telemetry/logger.js';
import { registerMethodTools } from './method-tools.js';
import { TEST_LINES, createTestPair, type TestPair } from '../testing/index.js';

/** An extension with one method that answers who asked and what. */
const greeter: ServerExtension = {
  side: 'server',
  name: '@ext/test-greeter',
  ids: ['io.github.mcp-ext/test-greeter'],
  settings: { version: '1.0' },
  methods: {
    greet: (params, ctx) => {
      if (params.name === 'nobody')
        throw new ExtensionError('invalid_input', 'NO_ONE', 'Nobody to greet', { details: { field: 'name' } });
      return { greeting: `hello ${String(params.name)}`, principal: ctx.principal };
    },
  },
};

describe.each(TEST_LINES)('extension methods served as tools too (%s)', (line) => {
  let pair: TestPair | undefined;
  afterEach(async () => {
    await pair?.close();
    pair = undefined;
  });

  it('runs the same handler through the method and through the tool', async () => {
    pair = await createTestPair({
      line,
      serverExtensions: [greeter],
      serverOptions: { logger: silentLogger },
      setup: (server) => {
        registerMethodTools(server, '@ext/test-greeter', [
          {
            verb: 'greet',
            name: 'greet',
            description: 'Greets someone.',
            inputSchema: z.object({ name: z.string() }),
            summary: (result) => String(result.greeting),
          },
          {
            verb: 'greet',
            name: 'greet_anyone',
            description: 'Greets someone, the world by default.',
            inputSchema: z.object({ name: z.string().optional() }),
            params: (args) => ({ name: args.name ?? 'world' }),
          },
        ]);
      },
    });
    const viaMethod = await pair.client.request('io.github.mcp-ext/test-greeter/greet', { name: 'ada' });
    const viaTool = await pair.client.callTool('greet', { name: 'ada' });
    expect(viaTool.structuredContent).toEqual({ greeting: 'hello ada', principal: viaMethod.principal });
    expect(viaTool.content[0]).toMatchObject({
      type: 'text',
      text: expect.stringMatching(/^hello ada\n\{/) as unknown,
    });
    const defaulted = await pair.client.callTool('greet_anyone', {});
    expect(defaulted.structuredContent).toMatchObject({ greeting: 'hello world' });
    expect(defaulted.content[0]).toMatchObject({ type: 'text', text: expect.stringMatching(/^\{/) as unknown });
    const failed = await pair.client.callTool('greet', { name: 'nobody' });
    expect(failed.isError).toBe(true);
  });
});

describe('registerMethodTools refuses a wrong setup', () => {
  it('names the missing extension and the unknown verb', async () => {
    const pair = await createTestPair({
      line: 'v1',
      serverExtensions: [greeter],
      serverOptions: { logger: silentLogger },
      setup: (server) => {
        expect(() => registerMethodTools(server, '@ext/absent', [])).toThrow(ConfigurationError);
        expect(() =>
          registerMethodTools(server, '@ext/test-greeter', [
            { verb: 'wave', name: 'wave', description: 'x', inputSchema: z.object({}) },
          ]),
        ).toThrow(/serves no "wave" method \(it serves greet\)/);
      },
    });
    await pair.close();
  });
});

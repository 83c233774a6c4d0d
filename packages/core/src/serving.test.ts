import { afterEach, describe, expect, it } from 'vitest';
import { composeServer } from './compose.js';
import { readServerIdentity } from './context.js';
import type { ServerExtension } from './extension.js';
import type { Logger } from './logger.js';
import { silentLogger } from './logger.js';
import { createTestPair, TEST_LINES, type TestPair } from './testing/index.js';
import type { ServingServer, ToolInfo } from './types.js';

const ID = 'io.github.mcp-ext/describer';

/** Serves `<id>/describe`: what a method handler can learn of the server through `ctx.server`. */
function describer(): ServerExtension {
  return {
    side: 'server',
    name: '@ext/describer',
    ids: [ID],
    settings: { version: '1.0' },
    methods: {
      describe: (_params, ctx) => {
        const server: ServingServer | undefined = ctx.server;
        return {
          identity: server === undefined ? null : { name: server.identity.name, version: server.identity.version },
          tools: server === undefined ? [] : [...server.composed.tools.keys()].sort(),
          extensions: server === undefined ? [] : Object.keys(server.composed.capabilities()),
        };
      },
    },
  };
}

const open: TestPair[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((pair) => pair.close()));
});

describe('ComposedServer.onToolRecorded', () => {
  it('calls every listener after each recordTool until it is removed', () => {
    const composed = composeServer([], { logger: silentLogger });
    const seen: string[] = [];
    const stop = composed.onToolRecorded((tool) => seen.push(tool.name));
    composed.recordTool({ name: 'a' });
    composed.recordTool({ name: 'b' });
    stop();
    composed.recordTool({ name: 'c' });
    expect(seen).toEqual(['a', 'b']);
    expect([...composed.tools.keys()]).toEqual(['a', 'b', 'c']);
  });

  it('logs a listener that throws and still records the tool and calls the others', () => {
    const warnings: string[] = [];
    const logger: Logger = { ...silentLogger, warn: (message) => warnings.push(message) };
    const composed = composeServer([], { logger });
    const seen: ToolInfo[] = [];
    composed.onToolRecorded(() => {
      throw new Error('boom');
    });
    composed.onToolRecorded((tool) => seen.push(tool));
    composed.recordTool({ name: 'a' });
    expect(seen.map((tool) => tool.name)).toEqual(['a']);
    expect(composed.tools.has('a')).toBe(true);
    expect(warnings).toHaveLength(1);
  });
});

describe('readServerIdentity', () => {
  it('keeps the string fields of an SDK Implementation and falls back for missing ones', () => {
    expect(readServerIdentity({ name: 'shop', version: '1.2.3', title: 'Shop', websiteUrl: 'https://shop.example', icons: [] })).toEqual({
      name: 'shop',
      version: '1.2.3',
      title: 'Shop',
      description: undefined,
      websiteUrl: 'https://shop.example',
    });
    expect(readServerIdentity(undefined)).toMatchObject({ name: 'unknown', version: '0.0.0' });
    expect(readServerIdentity({ name: 7, version: null })).toMatchObject({ name: 'unknown', version: '0.0.0' });
  });
});

describe.each(TEST_LINES)('RequestContext.server on %s', (line) => {
  it('gives method handlers the composition and the identity the SDK server was built with', async () => {
    const pair = await createTestPair({
      line,
      serverExtensions: [describer()],
      setup: (server) => {
        server.registerTool('alpha', { description: 'a' }, () => ({ content: [] }));
      },
      serverOptions: { logger: silentLogger },
      clientOptions: { logger: silentLogger },
    });
    open.push(pair);
    const answer = await pair.client.request(`${ID}/describe`);
    expect(answer).toMatchObject({ identity: { name: 'ext-test-server', version: '0.0.0' }, tools: ['alpha'], extensions: [ID] });
  });

  it('reports a tool registered after the server started', async () => {
    const pair = await createTestPair({
      line,
      serverExtensions: [describer()],
      setup: (server) => {
        server.registerTool('alpha', { description: 'a' }, () => ({ content: [] }));
      },
      serverOptions: { logger: silentLogger },
      clientOptions: { logger: silentLogger },
    });
    open.push(pair);
    await pair.client.request(`${ID}/describe`);
    const recorded: string[] = [];
    pair.server.composed.onToolRecorded((tool) => recorded.push(tool.name));
    pair.server.registerTool('beta', { description: 'b' }, () => ({ content: [] }));
    expect(recorded).toEqual(['beta']);
    const answer = await pair.client.request(`${ID}/describe`);
    expect(answer.tools).toEqual(['alpha', 'beta']);
  });
});

import { afterEach, describe, expect, it } from 'vitest';
import { composeServer } from './compose.js';
import { readServerIdentity } from './context.js';
import type { ServerExtension, ServingServer } from '../contract/extension.js';
import type { Logger } from '../telemetry/logger.js';
import { silentLogger } from '../telemetry/logger.js';
import { createTestPair, TEST_LINES, type TestPair } from '../testing/index.js';
import type { ToolInfo } from '../contract/types.js';

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

describe('ComposedServer.internTool', () => {
  it('hands back the recorded tool for the same registration and the new one for a changed registration', () => {
    const composed = composeServer([], { logger: silentLogger });
    const meta = { note: 'x' };
    const schema = { type: 'object' };
    const first: ToolInfo = { name: 'a', description: 'A', _meta: meta, inputJsonSchema: schema };
    expect(composed.internTool(first)).toBe(first);
    composed.recordTool(first);
    expect(composed.internTool({ name: 'a', description: 'A', _meta: meta, inputJsonSchema: schema })).toBe(first);
    expect(
      composed.internTool({ name: 'a', description: 'A', _meta: { note: 'x' }, inputJsonSchema: { type: 'object' } }),
    ).toBe(first);
    for (const changed of [
      { name: 'a', description: 'B', _meta: meta, inputJsonSchema: schema },
      { name: 'a', description: 'A', _meta: { note: 'y' }, inputJsonSchema: schema },
      { name: 'a', description: 'A', _meta: meta, inputJsonSchema: { type: 'string' } },
      { name: 'a', description: 'A', inputJsonSchema: schema },
      { name: 'b', description: 'A', _meta: meta, inputJsonSchema: schema },
    ]) {
      expect(composed.internTool(changed)).toBe(changed);
    }
  });

  it('tells no listener when the instance already recorded is recorded again', () => {
    const composed = composeServer([], { logger: silentLogger });
    const seen: string[] = [];
    composed.onToolRecorded((tool) => seen.push(tool.description ?? ''));
    const tool: ToolInfo = { name: 'a', description: 'one' };
    composed.recordTool(tool);
    composed.recordTool(tool);
    composed.recordTool({ name: 'a', description: 'two' });
    expect(seen).toEqual(['one', 'two']);
  });
});

describe.each(TEST_LINES)('the tool extensions see on %s', (line) => {
  it('is the same ToolInfo from call to call, even where each request builds its own server', async () => {
    const seen: ToolInfo[] = [];
    const watcher: ServerExtension = {
      side: 'server',
      name: '@ext/watcher',
      ids: ['io.github.mcp-ext/watcher'],
      settings: { version: '1.0' },
      stage: 'intent',
      middleware: (_call, ctx, next) => {
        seen.push(ctx.tool);
        return next();
      },
    };
    const pair = await createTestPair({
      line,
      serverExtensions: [watcher],
      setup: (server) => {
        server.registerTool('alpha', { description: 'a', _meta: { note: 'x' } }, () => ({ content: [] }));
      },
      serverOptions: { logger: silentLogger },
      clientOptions: { logger: silentLogger },
    });
    open.push(pair);
    await pair.client.callTool('alpha');
    await pair.client.callTool('alpha');
    expect(seen).toHaveLength(2);
    expect(seen[1]).toBe(seen[0]);
    expect(pair.server.composed.tools.get('alpha')).toBe(seen[0]);
  });
});

describe('readServerIdentity', () => {
  it('keeps the string fields of an SDK Implementation and falls back for missing ones', () => {
    expect(
      readServerIdentity({
        name: 'shop',
        version: '1.2.3',
        title: 'Shop',
        websiteUrl: 'https://shop.example',
        icons: [],
      }),
    ).toEqual({
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
    expect(answer).toMatchObject({
      identity: { name: 'ext-test-server', version: '0.0.0' },
      tools: ['alpha'],
      extensions: [ID],
    });
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

import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { McpServer, createMcpHandler } from '@modelcontextprotocol/server';
import Type from 'typebox';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { composeServer } from '../pipeline/compose.js';
import { ErrorCodes, ExtensionError, WireError } from '../contract/errors.js';
import type { ClientExtension } from '../contract/client-extension.js';
import type { PipelineStage } from '../contract/stages.js';
import type { ServerExtension } from '../contract/extension.js';
import { mandatory } from '../contract/extension.js';
import type { ExtendedServer } from '../contract/host.js';
import type { Logger } from '../telemetry/logger.js';
import { silentLogger } from '../telemetry/logger.js';
import { MemoryStore } from '../store/memory-store.js';
import type { TestLine, TestPair, TestPairOptions } from '../testing/pair.js';
import { createV2Pair } from '../testing/sdk-v2-pair.js';
import type { ToolResult } from '../contract/types.js';
import { extendClient, extendServer } from './index.js';

const FAKE = 'io.github.mcp-ext/fake';
const FAKE_V2 = 'io.github.mcp-ext/fake-v2';
const NAME = '@ext/fake';
const LINES: readonly TestLine[] = ['v2-legacy', 'v2-modern'];

/** A small server half: writes `result._meta[id]`, decorates tools, serves `<id>/echo` and `<id>/fail`. */
function fakeServer(
  options: { ids?: string[]; stage?: PipelineStage; name?: string; trace?: string[] } = {},
): ServerExtension {
  const name = options.name ?? NAME;
  const ids = options.ids ?? [FAKE];
  return {
    side: 'server',
    name,
    ids,
    settings: { version: '1.0', role: 'server' },
    peerSettings: Type.Object({
      version: Type.String(),
      mode: Type.Optional(Type.Union([Type.Literal('a'), Type.Literal('b')])),
    }),
    stage: options.stage ?? 'intent',
    async middleware(call, ctx, next) {
      options.trace?.push(`${name}:before`);
      const result = await next();
      options.trace?.push(`${name}:after`);
      const negotiated = ctx.negotiated(ids[0]!);
      if (negotiated) {
        result._meta = {
          ...result._meta,
          [negotiated.id]: { seen: call.meta[negotiated.id] ?? null, settings: negotiated.settings },
        };
      }
      return result;
    },
    toolMeta: (tool) => ({ decorated: tool.name }),
    methods: {
      echo: (params, ctx) => ({
        echoed: params.value ?? null,
        negotiated: ctx.negotiated(ids[0]!)?.id ?? null,
        era: ctx.era,
      }),
      fail: () => {
        throw new ExtensionError('invalid_input', 'FAKE_REFUSED', 'the fake extension refused', {
          suggestion: 'send value',
          details: { field: 'value' },
        });
      },
    },
  };
}

/** A small client half: puts `params._meta[id]` on every call when negotiated, records results. */
function fakeClient(
  options: { ids?: string[]; settings?: Record<string, unknown>; results?: unknown[] } = {},
): ClientExtension {
  return {
    side: 'client',
    name: NAME,
    ids: options.ids ?? [FAKE],
    settings: { version: '1.0', ...options.settings },
    prepareCall(call, negotiated) {
      if (negotiated) call.meta[negotiated.id] = { from: 'client' };
    },
    onResult(result, _call, negotiated) {
      options.results?.push(negotiated ? result._meta?.[negotiated.id] : undefined);
    },
  };
}

function recordingLogger(): Logger & { messages: string[] } {
  const messages: string[] = [];
  return { messages, warn: (message) => messages.push(message) };
}

function text(value: unknown): ToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(value) }] };
}

function parsed(result: ToolResult): unknown {
  const block = result.content[0];
  return JSON.parse(typeof block?.text === 'string' ? block.text : 'null');
}

/** Registers `inspect`, which reports what the adapter put on the call context. */
function inspectTool(server: ExtendedServer): void {
  server.registerTool(
    'inspect',
    { description: 'reports the call context', inputSchema: z.object({ value: z.string().optional() }) },
    (args, ctx) =>
      text({
        args,
        era: ctx.era,
        sdk: ctx.sdk,
        protocolVersion: ctx.protocolVersion ?? null,
        peerExtensions: ctx.peerExtensions ?? null,
        negotiated: ctx.negotiated(FAKE) ?? null,
        principal: ctx.principal,
        canElicit: ctx.elicit !== undefined,
        tool: ctx.tool.name,
      }),
  );
}

const pairs: TestPair[] = [];
async function pair(options: TestPairOptions): Promise<TestPair> {
  const created = await createV2Pair({ ...options, serverOptions: { logger: silentLogger, ...options.serverOptions } });
  pairs.push(created);
  return created;
}
afterEach(async () => {
  await Promise.all(pairs.splice(0).map((p) => p.close()));
});

describe.each(LINES)('sdk-v2 adapter on %s', (line) => {
  const era = line === 'v2-modern' ? 'modern' : 'legacy';

  it('advertises capabilities.extensions on both sides and reports the era (CORE-10, CORE-13)', async () => {
    const p = await pair({
      line,
      serverExtensions: [fakeServer()],
      clientExtensions: [fakeClient()],
      setup: inspectTool,
    });
    expect(p.client.era).toBe(era);
    expect(p.client.serverExtensions()).toEqual({ [FAKE]: { version: '1.0', role: 'server' } });
    const seen = parsed(await p.client.callTool('inspect', { value: 'x' })) as Record<string, unknown>;
    expect(seen).toMatchObject({
      era,
      sdk: 'v2',
      args: { value: 'x' },
      peerExtensions: { [FAKE]: { version: '1.0' } },
      negotiated: { id: FAKE, settings: { version: '1.0' } },
      tool: 'inspect',
    });
    expect(seen.protocolVersion).toBe(line === 'v2-modern' ? '2026-07-28' : '2025-11-25');
  });

  it('negotiates the newest identifier both sides speak (CORE-4)', async () => {
    const p = await pair({
      line,
      serverExtensions: [fakeServer({ ids: [FAKE, FAKE_V2] })],
      clientExtensions: [fakeClient({ ids: [FAKE, FAKE_V2] })],
      setup: inspectTool,
    });
    expect(p.client.negotiated(FAKE)?.id).toBe(FAKE_V2);
    const seen = parsed(await p.client.callTool('inspect')) as { negotiated: { id: string } };
    expect(seen.negotiated.id).toBe(FAKE_V2);
  });

  it('falls back to the older identifier when the peer only speaks that one (CORE-4)', async () => {
    const p = await pair({
      line,
      serverExtensions: [fakeServer({ ids: [FAKE, FAKE_V2] })],
      clientExtensions: [fakeClient({ ids: [FAKE] })],
      setup: inspectTool,
    });
    expect(p.client.negotiated(FAKE)?.id).toBe(FAKE);
    expect((parsed(await p.client.callTool('inspect')) as { negotiated: { id: string } }).negotiated.id).toBe(FAKE);
  });

  it('does not negotiate with a client that lacks the extension (CORE-9, CORE-12)', async () => {
    const p = await pair({ line, serverExtensions: [fakeServer()], setup: inspectTool });
    const seen = parsed(await p.client.callTool('inspect')) as Record<string, unknown>;
    expect(seen.peerExtensions).toEqual({});
    expect(seen.negotiated).toBeNull();
    expect(p.client.negotiated(FAKE)).toBeUndefined();
  });

  it('treats invalid settings and an unknown major as not negotiated, with a warning (CORE-7)', async () => {
    for (const settings of [{ mode: 42 }, { version: '9.0' }]) {
      const logger = recordingLogger();
      const p = await pair({
        line,
        serverExtensions: [fakeServer()],
        clientExtensions: [fakeClient({ settings })],
        serverOptions: { logger },
        setup: inspectTool,
      });
      const result = await p.client.callTool('inspect');
      expect(result.isError).not.toBe(true);
      expect((parsed(result) as Record<string, unknown>).negotiated).toBeNull();
      expect(result._meta?.[FAKE]).toBeUndefined();
      expect(logger.messages.some((message) => message.includes(`extension ${FAKE} not negotiated`))).toBe(true);
    }
  });

  it('client side ignores a server advertising an unknown major, with a warning (CORE-7)', async () => {
    const logger = recordingLogger();
    const server = { ...fakeServer(), settings: { version: '7.1' } };
    const p = await pair({
      line,
      serverExtensions: [server],
      clientExtensions: [fakeClient()],
      clientOptions: { logger },
    });
    expect(p.client.negotiated(FAKE)).toBeUndefined();
    expect(logger.messages.some((message) => message.includes('not negotiated'))).toBe(true);
  });

  it('publishes Tool._meta[id] from toolMeta in tools/list (CORE-13)', async () => {
    const p = await pair({
      line,
      serverExtensions: [fakeServer({ ids: [FAKE, FAKE_V2] })],
      setup: (server) => {
        server.registerTool('plain', { description: 'no schema', _meta: { 'example.com/own': { kept: true } } }, () =>
          text('ok'),
        );
        inspectTool(server);
      },
    });
    const tools = await p.client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['plain', 'inspect']);
    expect(tools[0]?._meta).toEqual({
      'example.com/own': { kept: true },
      [FAKE]: { decorated: 'plain' },
      [FAKE_V2]: { decorated: 'plain' },
    });
    expect(tools[1]?.inputSchema).toMatchObject({ type: 'object', properties: { value: { type: 'string' } } });
    expect(p.server.composed.tools.get('plain')?._meta).toEqual({ 'example.com/own': { kept: true } });
    expect(p.server.composed.tools.get('inspect')?.inputJsonSchema).toMatchObject({
      properties: { value: { type: 'string' } },
    });
  });

  it('carries per-call data in params._meta and result._meta (CORE-13, CORE-14)', async () => {
    const results: unknown[] = [];
    const p = await pair({
      line,
      serverExtensions: [fakeServer()],
      clientExtensions: [fakeClient({ results })],
      setup: (server) => {
        server.registerTool('plain', {}, () => text('ok'));
      },
    });
    const result = await p.client.callTool('plain');
    expect(result._meta?.[FAKE]).toEqual({ seen: { from: 'client' }, settings: { version: '1.0' } });
    expect(results).toEqual([{ seen: { from: 'client' }, settings: { version: '1.0' } }]);
  });

  it('round-trips an extension method <id>/<verb> (CORE-13)', async () => {
    const p = await pair({ line, serverExtensions: [fakeServer()], clientExtensions: [fakeClient()] });
    await expect(p.client.request(`${FAKE}/echo`, { value: 'hello' })).resolves.toMatchObject({
      echoed: 'hello',
      negotiated: FAKE,
      era,
    });
  });

  // A name outside `<id>/<verb>` that no revision defines: SDK clients before 2.4 refuse to send `tasks/get` on
  // 2026-07-28 (@ext/tasks proves that name on the SDKs that send it).
  it('serves a named method by its own name, with the params as sent (CORE-40)', async () => {
    const named: ServerExtension = {
      ...fakeServer(),
      namedMethods: {
        'widgets/get': (params, ctx) => ({
          got: params,
          principal: ctx.principal,
          negotiated: ctx.negotiated(FAKE)?.id ?? null,
        }),
      },
    };
    const p = await pair({ line, serverExtensions: [named], clientExtensions: [fakeClient()] });
    await expect(p.client.request('widgets/get', { taskId: 't-1', extra: [1] })).resolves.toMatchObject({
      got: { taskId: 't-1', extra: [1] },
      negotiated: FAKE,
    });
  });

  it('turns an ExtensionError from a method into a WireError with structured data (CORE-15)', async () => {
    const p = await pair({ line, serverExtensions: [fakeServer()], clientExtensions: [fakeClient()] });
    const error: unknown = await p.client.request(`${FAKE}/fail`).catch((caught: unknown) => caught);
    expect(WireError.isInstance(error)).toBe(true);
    const wire = error as WireError;
    expect(wire.code).toBe(ErrorCodes.InvalidParams);
    expect(wire.data).toEqual({
      code: 'FAKE_REFUSED',
      message: 'the fake extension refused',
      category: 'invalid_input',
      suggestion: 'send value',
      details: { field: 'value' },
    });
  });

  it('reports a method the server does not serve as a WireError -32601 on every era (never a transport failure)', async () => {
    const p = await pair({ line });
    const error: unknown = await p.client.request(`${FAKE}/no-such-verb`).catch((caught: unknown) => caught);
    expect(WireError.isInstance(error)).toBe(true);
    expect((error as WireError).code).toBe(-32601);
  });

  it('refuses a tool call with -32021 when a mandatory extension is missing (CORE-11)', async () => {
    const p = await pair({
      line,
      serverExtensions: [mandatory(fakeServer({ ids: [FAKE, FAKE_V2] }))],
      setup: inspectTool,
    });
    const error: unknown = await p.client.callTool('inspect').catch((caught: unknown) => caught);
    expect(WireError.isInstance(error)).toBe(true);
    expect((error as WireError).code).toBe(ErrorCodes.MissingRequiredClientCapability);
    expect((error as WireError).data).toEqual({ requiredCapabilities: { extensions: { [FAKE_V2]: {} } } });
  });

  it('serves a mandatory extension to a client that has it (CORE-11)', async () => {
    const p = await pair({
      line,
      serverExtensions: [mandatory(fakeServer())],
      clientExtensions: [fakeClient()],
      setup: inspectTool,
    });
    const result = await p.client.callTool('inspect');
    expect(result.isError).not.toBe(true);
  });

  it('keeps an ordinary thrown error an isError result (CORE-12)', async () => {
    const p = await pair({
      line,
      serverExtensions: [fakeServer()],
      setup: (server) => {
        server.registerTool('broken', {}, () => {
          throw new Error('boom');
        });
      },
    });
    const result = await p.client.callTool('broken');
    expect(result.isError).toBe(true);
    expect(result.content[0]).toMatchObject({ type: 'text', text: expect.stringContaining('boom') as unknown });
  });

  it('runs middlewares in pipeline order whatever the listing order (CORE-16)', async () => {
    const trace: string[] = [];
    const p = await pair({
      line,
      serverExtensions: [
        fakeServer({ name: '@ext/late', ids: ['io.github.mcp-ext/late'], stage: 'transactions', trace }),
        fakeServer({ name: '@ext/early', ids: ['io.github.mcp-ext/early'], stage: 'errors', trace }),
      ],
      setup: (server) => {
        server.registerTool('traced', {}, () => {
          trace.push('handler');
          return text('ok');
        });
      },
    });
    await p.client.callTool('traced');
    expect(trace).toEqual(['@ext/early:before', '@ext/late:before', 'handler', '@ext/late:after', '@ext/early:after']);
    expect(p.server.composed.pipeline.map((entry) => entry.stage)).toEqual(['errors', 'transactions']);
  });

  it('passes authInfo through as the principal (CORE-19)', async () => {
    const p = await pair({
      line,
      serverExtensions: [fakeServer()],
      authInfo: { clientId: 'alice', scopes: ['read'] },
      setup: inspectTool,
    });
    expect((parsed(await p.client.callTool('inspect')) as { principal: string }).principal).toBe('client:alice');
  });

  it('delivers progress and notifications/<id>/<event> of a call (CORE-13)', async () => {
    const p = await pair({
      line,
      serverExtensions: [fakeServer()],
      setup: (server) => {
        server.registerTool('chatty', {}, async (_args, ctx) => {
          if (ctx.progressToken !== undefined) {
            await ctx.notify('notifications/progress', {
              progressToken: ctx.progressToken,
              progress: 1,
              total: 2,
              message: 'half',
            });
          }
          await ctx.notify(`notifications/${FAKE}/tick`, { n: 1 });
          return text('done');
        });
      },
    });
    const ticks: unknown[] = [];
    p.client.onNotification(`notifications/${FAKE}/tick`, (params) => ticks.push(params));
    const progress: unknown[] = [];
    await p.client.callTool('chatty', {}, { onProgress: (update) => progress.push(update) });
    expect(progress).toEqual([{ progress: 1, total: 2, message: 'half' }]);
    expect(ticks).toEqual([{ n: 1 }]);
  });

  it('shares one store between per-request servers (CORE-19)', async () => {
    const p = await pair({
      line,
      serverExtensions: [fakeServer()],
      setup: (server) => {
        server.registerTool('count', {}, async (_args, ctx) => text(await ctx.store.increment('count')));
      },
    });
    expect(parsed(await p.client.callTool('count'))).toBe(1);
    expect(parsed(await p.client.callTool('count'))).toBe(2);
  });

  it('offers elicitation only on the legacy era, when the client can elicit', async () => {
    const p = await pair({
      line,
      serverExtensions: [fakeServer()],
      onElicit: (request) => Promise.resolve({ action: 'accept', content: { answer: `yes to ${request.message}` } }),
      setup: (server) => {
        server.registerTool('ask', {}, async (_args, ctx) => {
          if (!ctx.elicit) return text('cannot ask');
          const answer = await ctx.elicit({
            message: 'proceed?',
            requestedSchema: { type: 'object', properties: { answer: { type: 'string' } } },
          });
          return text(answer);
        });
      },
    });
    const answer = parsed(await p.client.callTool('ask'));
    if (era === 'legacy') expect(answer).toEqual({ action: 'accept', content: { answer: 'yes to proceed?' } });
    else expect(answer).toBe('cannot ask');
  });

  it('gives no elicit when the client did not declare elicitation', async () => {
    const p = await pair({ line, serverExtensions: [fakeServer()], setup: inspectTool });
    expect((parsed(await p.client.callTool('inspect')) as { canElicit: boolean }).canElicit).toBe(false);
  });
});

describe('sdk-v2 adapter outside the test pair', () => {
  it('degrades on stateless legacy HTTP: peer unknown, nothing negotiated, mandatory not enforced (CORE-10, CORE-11)', async () => {
    const composed = composeServer([mandatory(fakeServer())], { logger: silentLogger });
    const handler = createMcpHandler(() => {
      const server = new McpServer({ name: 's', version: '0' });
      inspectTool(extendServer(server, composed));
      return server;
    });
    const client = new Client({ name: 'c', version: '0' });
    const extended = extendClient(client, [fakeClient()]);
    await client.connect(
      new StreamableHTTPClientTransport(new URL('http://mcp.test/mcp'), {
        fetch: (url, init) => handler.fetch(new Request(url, init)),
      }),
    );
    try {
      const seen = parsed(await extended.callTool('inspect')) as Record<string, unknown>;
      expect(seen).toMatchObject({ era: 'legacy', peerExtensions: null, negotiated: null });
      expect(extended.negotiated(FAKE)?.id).toBe(FAKE);
    } finally {
      await client.close();
      await handler.close();
    }
  });

  it('serves extension methods beside a fallback and handlers the author installed first', async () => {
    const composed = composeServer([fakeServer()], { logger: silentLogger });
    const handler = createMcpHandler(() => {
      const server = new McpServer({ name: 's', version: '0' });
      server.server.fallbackRequestHandler = (request) => Promise.resolve({ fallback: request.method });
      server.server.setRequestHandler(`${FAKE}/fail`, { params: z.looseObject({}) }, () => ({ overridden: true }));
      extendServer(server, composed);
      return server;
    });
    const client = new Client({ name: 'c', version: '0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    const extended = extendClient(client, [fakeClient()]);
    await client.connect(
      new StreamableHTTPClientTransport(new URL('http://mcp.test/mcp'), {
        fetch: (url, init) => handler.fetch(new Request(url, init)),
      }),
    );
    try {
      await expect(extended.request(`${FAKE}/echo`, { value: 'hello' })).resolves.toMatchObject({
        echoed: 'hello',
        negotiated: FAKE,
        era: 'modern',
      });
      await expect(extended.request(`${FAKE}/no-such-verb`)).resolves.toMatchObject({
        fallback: `${FAKE}/no-such-verb`,
      });
      await expect(extended.request(`${FAKE}/fail`)).resolves.toMatchObject({ overridden: true });
    } finally {
      await client.close();
      await handler.close();
    }
  });

  it('accepts a composition made once and shares its default store (CORE-19)', () => {
    const composed = composeServer([fakeServer()], { logger: silentLogger });
    const first = extendServer(new McpServer({ name: 's', version: '0' }), composed);
    const second = extendServer(new McpServer({ name: 's', version: '0' }), composed);
    expect(first.composed).toBe(composed);
    expect(second.store).toBe(first.store);
    const store = new MemoryStore();
    expect(extendServer(new McpServer({ name: 's', version: '0' }), composed, { store }).store).toBe(store);
  });

  it('refuses a tool input schema the v2 SDK cannot list', () => {
    const extended = extendServer(new McpServer({ name: 's', version: '0' }), [fakeServer()], { logger: silentLogger });
    const bare = { '~standard': { version: 1 as const, vendor: 'bare', validate: (value: unknown) => ({ value }) } };
    expect(() => extended.registerTool('bare', { inputSchema: bare }, () => text('ok'))).toThrow(
      /Standard JSON Schema/,
    );
  });

  it('leaves progress and cancellation to the SDK on the client side', () => {
    const extended = extendClient(new Client({ name: 'c', version: '0' }), [fakeClient()]);
    expect(() => {
      extended.onNotification('notifications/progress', () => undefined);
    }).toThrow(/handled by the SDK/);
  });

  it('refuses to attach after tools were registered on the McpServer directly', () => {
    const server = new McpServer({ name: 's', version: '0' });
    server.registerTool('early', {}, () => ({ content: [] }));
    expect(() => extendServer(server, [fakeServer()], { logger: silentLogger })).toThrow(
      /before any tool is registered/,
    );
  });
});

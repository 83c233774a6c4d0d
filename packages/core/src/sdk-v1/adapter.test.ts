import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import Type from 'typebox';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { composeServer } from '../pipeline/compose.js';
import { ConfigurationError, ErrorCodes, ExtensionError, WireError } from '../contract/errors.js';
import { mandatory, type ServerExtension, type CallContext } from '../contract/extension.js';
import { type ClientExtension } from '../contract/client-extension.js';
import { type PipelineStage } from '../contract/stages.js';
import type { ExtendedServer } from '../contract/host.js';
import type { Logger } from '../telemetry/logger.js';
import { createV1Pair } from '../testing/sdk-v1-pair.js';
import type { TestPair, TestPairOptions } from '../testing/pair.js';
import type { ToolResult } from '../contract/types.js';
import { extendClient, extendServer } from './index.js';

const ID = 'io.github.mcp-ext/probe';
const ID_V2 = 'io.github.mcp-ext/probe-v2';
const NAME = '@ext/probe';

interface ProbeOptions {
  readonly ids?: readonly string[];
  readonly version?: string;
  readonly log?: string[];
}

/** A small server half: settings, a middleware writing `result._meta[id]`, `Tool._meta`, and methods. */
function probeServer(options: ProbeOptions = {}): ServerExtension {
  return {
    name: NAME,
    side: 'server',
    ids: options.ids ?? [ID],
    settings: { version: options.version ?? '1.0', role: 'server' },
    peerSettings: Type.Object({ version: Type.String(), role: Type.Optional(Type.String()) }),
    stage: 'idempotency',
    middleware: async (call, ctx, next) => {
      options.log?.push('probe:in');
      const result = await next();
      options.log?.push('probe:out');
      const negotiated = ctx.negotiated(ID);
      if (!negotiated) return result;
      return { ...result, _meta: { ...result._meta, [negotiated.id]: { received: call.meta[negotiated.id] ?? null } } };
    },
    toolMeta: (tool) => (tool.name === 'echo' ? { marked: true } : undefined),
    toolAnnotations: (tool) => (tool.name === 'echo' ? { idempotentHint: true } : undefined),
    methods: {
      echo: (params, ctx) => ({ echoed: params, principal: ctx.principal }),
      fail: (params) => {
        const category = params.category === 'transient' ? 'transient' : 'invalid_input';
        throw new ExtensionError(category, 'PROBE_FAILED', 'the probe failed', { details: { field: 'x' } });
      },
    },
  };
}

/** The matching client half: puts `params._meta[id]` on every call when negotiated. */
function probeClient(options: ProbeOptions = {}): ClientExtension {
  return {
    name: NAME,
    side: 'client',
    ids: options.ids ?? [ID],
    settings: { version: options.version ?? '1.0', role: 'client' },
    prepareCall: (call, negotiated) => {
      if (negotiated) call.meta[negotiated.id] = { token: 'abc' };
    },
  };
}

/** A pipeline stage that only records when it is entered and left. */
function recorder(stage: PipelineStage, log: string[]): ServerExtension {
  return {
    name: `@ext/${stage}-recorder`,
    side: 'server',
    ids: [`io.github.mcp-ext/${stage}-recorder`],
    settings: { version: '1.0' },
    stage,
    middleware: async (_call, _ctx, next) => {
      log.push(`${stage}:in`);
      const result = await next();
      log.push(`${stage}:out`);
      return result;
    },
  };
}

function capturingLogger(): Logger & { warnings: string[] } {
  const warnings: string[] = [];
  return { warnings, warn: (message) => warnings.push(message) };
}

const ok = (text: string): ToolResult => ({ content: [{ type: 'text', text }] });

/** Registers `echo` (with an input schema) and `inspect` (without) and returns what the handlers saw. */
function setupTools(seen: { ctx?: CallContext; args?: Record<string, unknown> }, log?: string[]) {
  return (server: ExtendedServer) => {
    server.registerTool('echo', { description: 'Echoes', inputSchema: z.object({ text: z.string() }) }, (args, ctx) => {
      log?.push('handler');
      seen.ctx = ctx;
      seen.args = args;
      return ok(args.text);
    });
    server.registerTool('inspect', {}, (args, ctx) => {
      seen.ctx = ctx;
      // Without an input schema the host types `args` as unknown.
      seen.args = args;
      return ok('inspected');
    });
  };
}

let pair: TestPair | undefined;

async function open(options: Omit<TestPairOptions, 'line'>): Promise<TestPair> {
  pair = await createV1Pair({ line: 'v1', ...options });
  return pair;
}

afterEach(async () => {
  await pair?.close();
  pair = undefined;
});

/** A raw v1 client (no adapter) advertising arbitrary capabilities, for settings the composer would refuse. */
async function rawClientPair(
  setup: (server: ExtendedServer) => void,
  extensions: Record<string, object>,
  logger: Logger,
) {
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  const mcpServer = new McpServer({ name: 'raw-server', version: '0.0.0' });
  setup(extendServer(mcpServer, [probeServer()], { logger }));
  const client = new Client({ name: 'raw-client', version: '0.0.0' }, { capabilities: { extensions } });
  await mcpServer.connect(serverTransport);
  await client.connect(clientTransport);
  return {
    client,
    close: async () => {
      await client.close();
      await mcpServer.close();
    },
  };
}

describe('sdk-v1 adapter: advertisement and negotiation', () => {
  it('advertises capabilities.extensions on both sides (CORE-13)', async () => {
    const seen: { ctx?: CallContext } = {};
    const { client } = await open({
      serverExtensions: [probeServer()],
      clientExtensions: [probeClient()],
      setup: setupTools(seen),
    });
    expect(client.serverExtensions()).toEqual({ [ID]: { version: '1.0', role: 'server' } });
    await client.callTool('inspect');
    expect(seen.ctx?.peerExtensions).toEqual({ [ID]: { version: '1.0', role: 'client' } });
    expect(seen.ctx).toMatchObject({
      sdk: 'v1',
      era: 'legacy',
      principal: 'local',
      identity: { principal: 'local', source: 'local' },
    });
    expect(seen.ctx?.protocolVersion).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });

  it('picks the newest common identifier on both sides (CORE-4, CORE-9)', async () => {
    const seen: { ctx?: CallContext } = {};
    const { client } = await open({
      serverExtensions: [probeServer({ ids: [ID, ID_V2] })],
      clientExtensions: [probeClient({ ids: [ID, ID_V2] })],
      setup: setupTools(seen),
    });
    expect(client.negotiated(ID)?.id).toBe(ID_V2);
    const result = await client.callTool('echo', { text: 'hi' });
    expect(seen.ctx?.negotiated(ID)?.id).toBe(ID_V2);
    expect(result._meta?.[ID_V2]).toEqual({ received: { token: 'abc' } });
    expect(result._meta?.[ID]).toBeUndefined();
  });

  it('falls back to the older identifier when the client only speaks it (CORE-9)', async () => {
    const seen: { ctx?: CallContext } = {};
    const { client } = await open({
      serverExtensions: [probeServer({ ids: [ID, ID_V2] })],
      clientExtensions: [probeClient({ ids: [ID] })],
      setup: setupTools(seen),
    });
    const result = await client.callTool('echo', { text: 'hi' });
    expect(seen.ctx?.negotiated(ID)?.id).toBe(ID);
    expect(result._meta?.[ID]).toEqual({ received: { token: 'abc' } });
  });

  it('degrades when the client lacks the extension (CORE-9, CORE-12)', async () => {
    const seen: { ctx?: CallContext; args?: Record<string, unknown> } = {};
    const { client } = await open({ serverExtensions: [probeServer()], setup: setupTools(seen) });
    const result = await client.callTool('echo', { text: 'plain' });
    expect(result.content).toEqual([{ type: 'text', text: 'plain' }]);
    expect(result._meta).toBeUndefined();
    expect(seen.ctx?.negotiated(ID)).toBeUndefined();
    expect(seen.ctx?.peerExtensions).toEqual({});
    expect(client.serverExtensions()).toHaveProperty(ID);
  });

  it('does not negotiate an unknown major and warns instead of failing (CORE-7)', async () => {
    const serverLogger = capturingLogger();
    const clientLogger = capturingLogger();
    const seen: { ctx?: CallContext } = {};
    const { client } = await open({
      serverExtensions: [probeServer()],
      clientExtensions: [probeClient({ version: '9.0' })],
      serverOptions: { logger: serverLogger },
      clientOptions: { logger: clientLogger },
      setup: setupTools(seen),
    });
    const result = await client.callTool('echo', { text: 'still works' });
    expect(result.isError).toBeUndefined();
    expect(seen.ctx?.negotiated(ID)).toBeUndefined();
    expect(client.negotiated(ID)).toBeUndefined();
    expect(serverLogger.warnings.join('\n')).toContain(`${ID} not negotiated`);
    expect(clientLogger.warnings.join('\n')).toContain(`${ID} not negotiated`);
  });

  it.each([
    ['a malformed version', { version: 'one' }],
    ['settings failing the schema', { version: '1.0', role: 42 }],
  ])('does not negotiate %s and warns (CORE-7)', async (_label, settings) => {
    const logger = capturingLogger();
    const seen: { ctx?: CallContext } = {};
    const raw = await rawClientPair(setupTools(seen), { [ID]: settings }, logger);
    try {
      const result = await raw.client.callTool({ name: 'inspect', arguments: {} });
      expect(result.isError).toBeUndefined();
      expect(seen.ctx?.negotiated(ID)).toBeUndefined();
      expect(logger.warnings.join('\n')).toContain(`${ID} not negotiated`);
    } finally {
      await raw.close();
    }
  });
});

describe('sdk-v1 adapter: tools and pipeline', () => {
  it('lists Tool._meta[id] and extension annotations (CORE-13)', async () => {
    const { client, server } = await open({ serverExtensions: [probeServer()], setup: setupTools({}) });
    const tools = await client.listTools();
    const echo = tools.find((tool) => tool.name === 'echo');
    expect(echo?._meta?.[ID]).toEqual({ marked: true });
    expect(echo?.annotations).toMatchObject({ idempotentHint: true });
    expect(tools.find((tool) => tool.name === 'inspect')?._meta).toBeUndefined();
    expect(server.composed.tools.get('echo')?.inputJsonSchema).toMatchObject({
      type: 'object',
      properties: { text: { type: 'string' } },
    });
  });

  it('passes params._meta minus the envelope to the pipeline and extension data never in arguments (CORE-14)', async () => {
    const seen: { ctx?: CallContext; args?: Record<string, unknown> } = {};
    const metas: unknown[] = [];
    const spy: ServerExtension = {
      ...recorder('permissions', []),
      middleware: (call, _ctx, next) => {
        metas.push(call.meta);
        return next();
      },
    };
    const { client } = await open({
      serverExtensions: [probeServer(), spy],
      clientExtensions: [probeClient()],
      setup: setupTools(seen),
    });
    await client.callTool(
      'echo',
      { text: 'x' },
      { meta: { 'com.example/other': { a: 1 } }, onProgress: () => undefined },
    );
    expect(metas).toEqual([{ 'com.example/other': { a: 1 }, [ID]: { token: 'abc' } }]);
    expect(seen.args).toEqual({ text: 'x' });
    expect(seen.ctx?.progressToken).toBeDefined();
  });

  it('runs middlewares in stage order whatever the list order (CORE-16)', async () => {
    const log: string[] = [];
    const { client } = await open({
      serverExtensions: [
        recorder('transactions', log),
        probeServer({ log }),
        recorder('errors', log),
        recorder('permissions', log),
      ],
      setup: setupTools({}, log),
    });
    await client.callTool('echo', { text: 'order' });
    expect(log).toEqual([
      'errors:in',
      'permissions:in',
      'probe:in',
      'transactions:in',
      'handler',
      'transactions:out',
      'probe:out',
      'permissions:out',
      'errors:out',
    ]);
  });

  it('refuses a client lacking a mandatory extension with JSON-RPC -32021 (CORE-11)', async () => {
    const log: string[] = [];
    const { client } = await open({ serverExtensions: [mandatory(probeServer({ log }))], setup: setupTools({}, log) });
    const failure = await client.callTool('echo', { text: 'x' }).catch((error: unknown) => error);
    expect(WireError.isInstance(failure)).toBe(true);
    const wire = failure as WireError;
    expect(wire.code).toBe(ErrorCodes.MissingRequiredClientCapability);
    expect(wire.message).not.toMatch(/^MCP error/);
    expect(wire.data).toEqual({ requiredCapabilities: { extensions: { [ID]: {} } } });
    expect(log).toEqual([]);
  });

  it('accepts a client that has the mandatory extension (CORE-11)', async () => {
    const { client } = await open({
      serverExtensions: [mandatory(probeServer())],
      clientExtensions: [probeClient()],
      setup: setupTools({}),
    });
    const result = await client.callTool('echo', { text: 'welcome' });
    expect(result.content).toEqual([{ type: 'text', text: 'welcome' }]);
  });

  it('turns other pipeline failures into the SDK isError result when nothing maps them (CORE-12)', async () => {
    const { client } = await open({
      serverExtensions: [probeServer()],
      setup: (server) => {
        server.registerTool('boom', {}, () => {
          throw new Error('handler exploded');
        });
      },
    });
    const result = await client.callTool('boom');
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain('handler exploded');
  });

  it('lets a WireError from any middleware through as a JSON-RPC error', async () => {
    const refuser: ServerExtension = {
      ...recorder('permissions', []),
      middleware: (call, _ctx, next) =>
        call.name === 'echo'
          ? Promise.reject(new WireError(ErrorCodes.InvalidParams, 'refused', { why: 'test' }))
          : next(),
    };
    const { client } = await open({ serverExtensions: [refuser], setup: setupTools({}) });
    await expect(client.callTool('echo', { text: 'x' })).rejects.toMatchObject({
      code: ErrorCodes.InvalidParams,
      message: 'refused',
      data: { why: 'test' },
    });
    // The connection stays usable and the parked error does not leak into the next call.
    await expect(client.callTool('inspect')).resolves.toMatchObject({ content: [{ type: 'text', text: 'inspected' }] });
  });

  it('refuses to extend an McpServer that already serves tools (CORE-10)', () => {
    const mcpServer = new McpServer({ name: 'mixed', version: '0.0.0' });
    mcpServer.registerTool('plain', {}, () => ({ content: [{ type: 'text', text: 'plain' }] }));
    expect(() => extendServer(mcpServer, [probeServer()])).toThrow(
      expect.objectContaining({ code: 'TOOLS_REGISTERED_TOO_EARLY' }),
    );
  });
});

describe('sdk-v1 adapter: methods, context and client helpers', () => {
  it('servers built per session share one routing schema per method instead of building their own', () => {
    const schemas: unknown[] = [];
    const spy = (server: McpServer) => {
      const original = server.server.setRequestHandler.bind(server.server);
      server.server.setRequestHandler = (schema: unknown, handler: never) => {
        schemas.push(schema);
        original(schema as never, handler);
      };
      return server;
    };
    const first = spy(new McpServer({ name: 'a', version: '1' }));
    const second = spy(new McpServer({ name: 'b', version: '1' }));
    const composed = composeServer([probeServer()]);
    extendServer(first, composed);
    const mark = schemas.length;
    extendServer(second, composed);
    expect(mark).toBeGreaterThan(0);
    expect(schemas.slice(mark)).toEqual(schemas.slice(0, mark));
    schemas.slice(mark).forEach((schema, index) => {
      expect(schema).toBe(schemas[index]);
    });
    // The SDK's public check throws when a handler for the method is installed.
    expect(() => {
      second.server.assertCanSetRequestHandler(`${ID}/echo`);
    }).toThrow(/already exists/);
  });

  it('round-trips an extension method <id>/<verb> (CORE-13)', async () => {
    const { client } = await open({
      serverExtensions: [probeServer()],
      clientExtensions: [probeClient()],
      authInfo: { clientId: 'client-7', scopes: ['read'] },
    });
    await expect(client.request(`${ID}/echo`, { a: 1 })).resolves.toEqual({
      echoed: { a: 1 },
      principal: 'client:client-7',
    });
  });

  it.each([
    ['invalid_input', ErrorCodes.InvalidParams],
    ['transient', ErrorCodes.ExtensionFailure],
  ])('delivers an ExtensionError (%s) as a WireError with the structured data (CORE-15)', async (category, code) => {
    const { client } = await open({ serverExtensions: [probeServer()] });
    const failure = await client.request(`${ID}/fail`, { category }).catch((error: unknown) => error);
    expect(WireError.isInstance(failure)).toBe(true);
    expect(failure).toMatchObject({
      code,
      message: 'the probe failed',
      data: { code: 'PROBE_FAILED', message: 'the probe failed', category, details: { field: 'x' } },
    });
  });

  it('answers an unknown method with -32601', async () => {
    const { client } = await open({ serverExtensions: [probeServer()] });
    await expect(client.request(`${ID}/nope`)).rejects.toMatchObject({ code: ErrorCodes.MethodNotFound });
  });

  it('gives the handler the caller identity, progress and notifications', async () => {
    const progress: number[] = [];
    const events: Record<string, unknown>[] = [];
    const seen: { ctx?: CallContext } = {};
    const { client } = await open({
      serverExtensions: [probeServer()],
      authInfo: { clientId: 'client-9', scopes: ['a', 'b'] },
      setup: (server) => {
        server.registerTool('work', {}, async (_args, ctx) => {
          seen.ctx = ctx;
          if (ctx.progressToken !== undefined) {
            await ctx.notify('notifications/progress', { progressToken: ctx.progressToken, progress: 1, total: 2 });
          }
          await ctx.notify(`notifications/${ID}/event`, { n: 1 });
          return ok('done');
        });
      },
    });
    client.onNotification(`notifications/${ID}/event`, (params) => events.push(params));
    await client.callTool('work', {}, { onProgress: (update) => progress.push(update.progress) });
    expect(seen.ctx?.principal).toBe('client:client-9');
    expect(seen.ctx?.identity).toEqual({ principal: 'client:client-9', source: 'oauth' });
    expect(seen.ctx?.authInfo).toMatchObject({ clientId: 'client-9', scopes: ['a', 'b'] });
    expect(progress).toEqual([1]);
    await expect.poll(() => events).toEqual([{ n: 1 }]);
  });

  it('routes elicitation to the client when it can elicit', async () => {
    const asked: string[] = [];
    const { client } = await open({
      serverExtensions: [probeServer()],
      onElicit: (request) => {
        asked.push(request.message);
        return Promise.resolve({ action: 'accept', content: { approve: true } });
      },
      setup: (server) => {
        server.registerTool('ask', {}, async (_args, ctx) => {
          if (!ctx.elicit) return ok('cannot ask');
          const answer = await ctx.elicit({
            message: 'Proceed?',
            requestedSchema: { type: 'object', properties: { approve: { type: 'boolean' } }, required: ['approve'] },
          });
          return ok(`${answer.action}:${JSON.stringify(answer.content)}`);
        });
      },
    });
    const result = await client.callTool('ask');
    expect(asked).toEqual(['Proceed?']);
    expect(result.content).toEqual([{ type: 'text', text: 'accept:{"approve":true}' }]);
  });

  it('leaves elicit undefined when the client cannot elicit', async () => {
    const seen: { ctx?: CallContext } = {};
    const { client } = await open({ serverExtensions: [probeServer()], setup: setupTools(seen) });
    await client.callTool('inspect');
    expect(seen.ctx?.elicit).toBeUndefined();
  });

  it('refuses to extend a server or client that is already connected', async () => {
    const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
    const mcpServer = new McpServer({ name: 'late', version: '0.0.0' });
    const client = new Client({ name: 'late', version: '0.0.0' });
    await mcpServer.connect(serverTransport);
    await client.connect(clientTransport);
    try {
      expect(() => extendServer(mcpServer, [probeServer()])).toThrow(ConfigurationError);
      expect(() => extendClient(client, [probeClient()])).toThrow(ConfigurationError);
    } finally {
      await client.close();
      await mcpServer.close();
    }
  });
});

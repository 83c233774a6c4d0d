import {
  composeServer,
  ConfigurationError,
  MemoryStore,
  type CallContext,
  type Logger,
  type NegotiationTable,
  type ServerExtension,
  type ToolCall,
} from '@ext/core';
import { createCallContext, createRequestContext, silentLogger } from '@ext/core/kit';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CONTENT_NEGOTIATION_DRAFT_ID, CONTENT_NEGOTIATION_ID } from './schema.js';
import { appliedFeatures, contentNegotiationServer, getPresentation, markApplied, render } from './server.js';
import { getCallPresentation } from './call-presentation.js';

const ID = CONTENT_NEGOTIATION_ID;

function context(settings: Record<string, unknown> | undefined, logger: Logger = silentLogger, id = ID): CallContext {
  const negotiation: NegotiationTable = new Map(
    settings === undefined ? [] : [['@ext/content-negotiation', { id, settings }]],
  );
  const request = createRequestContext({
    sdk: 'v2',
    era: 'modern',
    protocolVersion: '2026-07-28',
    authInfo: undefined,
    identity: { principal: 'local', source: 'local' },
    peerExtensions: settings === undefined ? {} : { [id]: settings },
    negotiation,
    signal: new AbortController().signal,
    logger,
    store: new MemoryStore(),
    progressToken: undefined,
    notify: () => Promise.resolve(),
    elicit: undefined,
  });
  return createCallContext(request, { name: 'tool' });
}

describe('contentNegotiationServer descriptor', () => {
  it('advertises io.github.mcp-ext/content-negotiation 1.0 at its stage (CN-1)', () => {
    const half = contentNegotiationServer();
    expect(half).toMatchObject({
      side: 'server',
      name: '@ext/content-negotiation',
      ids: [ID],
      settings: { version: '1.0' },
      stage: 'content-negotiation',
    });
    expect(half.reservedAliases).toBeUndefined();
    expect(composeServer([half], { logger: silentLogger }).pipeline).toEqual([
      { stage: 'content-negotiation', extension: '@ext/content-negotiation' },
    ]);
  });

  it('serves the draft identifier only when opted in, without the author listing it in allowReservedIds (CN-1)', () => {
    const half = contentNegotiationServer({ acceptDraftIdentifier: true });
    expect(half.ids).toEqual([ID, CONTENT_NEGOTIATION_DRAFT_ID]);
    expect(Object.keys(composeServer([half], { logger: silentLogger }).capabilities())).toEqual([
      ID,
      CONTENT_NEGOTIATION_DRAFT_ID,
    ]);
  });

  it.each([
    [{ defaultFormat: 'xml' }, 'defaultFormat'],
    [{ defaultVerbosity: 'loud' }, 'defaultVerbosity'],
    [{ acceptDraftIdentifier: 'yes' }, 'acceptDraftIdentifier'],
    [{ acceptDraftId: true }, 'acceptDraftId'],
  ])('refuses %o when the factory is called, naming the option', (options, name) => {
    expect(() => contentNegotiationServer(options as never)).toThrow(ConfigurationError);
    expect(() => contentNegotiationServer(options as never)).toThrow(name);
  });

  it('refuses a non-object', () => {
    expect(() => contentNegotiationServer('json' as never)).toThrow(/expects an object/);
  });
});

describe('the middleware never refuses, skips or rewrites a call (CN-15)', () => {
  const gate: ServerExtension = {
    side: 'server',
    name: '@ext/gate',
    ids: ['io.github.mcp-ext/gate'],
    settings: { version: '1.0' },
    stage: 'confirmation',
    middleware: (_call, _ctx, next) => next(),
  };

  it('for any advertised features and any per-call _meta, every later stage and the handler run once with the same call', async () => {
    const composed = composeServer([contentNegotiationServer(), gate], { logger: silentLogger });
    await fc.assert(
      fc.asyncProperty(
        fc.option(
          fc.record({
            version: fc.constant('1.0'),
            features: fc.array(fc.oneof(fc.string(), fc.anything()), { maxLength: 40 }),
          }),
          { nil: undefined },
        ),
        fc.dictionary(fc.constantFrom(ID, 'other', 'x'), fc.anything()),
        fc.dictionary(fc.string(), fc.jsonValue()),
        async (settings, meta, args) => {
          const call: ToolCall = { name: 'tool', arguments: args, meta };
          const seen: ToolCall[] = [];
          let handled = 0;
          const spy: ServerExtension = {
            ...gate,
            middleware: (current, _ctx, next) => {
              seen.push(current);
              return next();
            },
          };
          const traced = composeServer([contentNegotiationServer(), spy], { logger: silentLogger });
          const result = await traced.runToolCall(call, context(settings), (received) => {
            handled += 1;
            expect(received).toBe(args);
            return { content: [{ type: 'text', text: 'done' }] };
          });
          expect(handled).toBe(1);
          expect(seen).toEqual([call]);
          expect(seen[0]).toBe(call);
          expect(result.content).toEqual([{ type: 'text', text: 'done' }]);
        },
      ),
      { numRuns: 300 },
    );
    expect(composed.pipeline.map((entry) => entry.stage)).toEqual(['content-negotiation', 'confirmation']);
  });

  it('lets a refusal from a later stage through unchanged', async () => {
    const refusing: ServerExtension = { ...gate, middleware: () => Promise.reject(new Error('refused by the gate')) };
    const composed = composeServer([contentNegotiationServer(), refusing], { logger: silentLogger });
    const ctx = context({ version: '1.0', features: ['agent', '!interactive'] });
    await expect(
      composed.runToolCall({ name: 'tool', arguments: {}, meta: {} }, ctx, () => ({ content: [] })),
    ).rejects.toThrow('refused by the gate');
  });
});

describe('presentation in the call context', () => {
  const run = async (
    settings: Record<string, unknown> | undefined,
    meta: Record<string, unknown> = {},
    logger: Logger = silentLogger,
  ) => {
    const composed = composeServer([contentNegotiationServer()], { logger });
    const ctx = context(settings, logger);
    const result = await composed.runToolCall({ name: 'tool', arguments: {}, meta }, ctx, (_args, inner) =>
      render(inner, { data: { ok: true } }),
    );
    return { ctx, result };
  };

  it('is resolved before the pipeline and shared through core only when negotiated (CN-17)', async () => {
    const negotiated = await run({ version: '1.0', features: ['human'] });
    expect(getPresentation(negotiated.ctx)).toMatchObject({
      negotiated: true,
      id: ID,
      format: 'markdown',
      audience: 'human',
    });
    expect(getCallPresentation(negotiated.ctx)).toEqual({
      format: 'markdown',
      verbosity: 'standard',
      resultMeta: { [ID]: { features: ['format=markdown', 'verbosity=standard'] } },
    });
    const plain = await run(undefined);
    expect(getPresentation(plain.ctx)).toMatchObject({ negotiated: false, format: 'json' });
    expect(getCallPresentation(plain.ctx)).toBeUndefined();
    expect(plain.result._meta).toBeUndefined();
  });

  it('reports dropped tags once per advertised settings object', async () => {
    const messages: string[] = [];
    const logger: Logger = { warn: (message) => messages.push(message) };
    const settings = { version: '1.0', features: ['@#$%', 'agent'] };
    const composed = composeServer([contentNegotiationServer()], { logger });
    for (let index = 0; index < 3; index++) {
      await composed.runToolCall({ name: 'tool', arguments: {}, meta: {} }, context(settings, logger), () => ({
        content: [],
      }));
    }
    expect(messages).toHaveLength(1);
    expect(messages[0]).toContain('"@#$%"');
  });

  it('outside the extension, getPresentation gives the built-in defaults and render still works', () => {
    const ctx = { locals: new Map<symbol, unknown>(), tool: { name: 't' } };
    expect(getPresentation(ctx)).toMatchObject({ negotiated: false, format: 'json', verbosity: 'standard' });
    expect(render(ctx, { data: { a: 1 } })).toEqual({
      content: [{ type: 'text', text: '{"a":1}' }],
      structuredContent: { a: 1 },
    });
  });

  it('strips an echo a handler wrote itself from results to clients that did not negotiate (CN-7)', async () => {
    const composed = composeServer([contentNegotiationServer()], { logger: silentLogger });
    const result = await composed.runToolCall({ name: 'tool', arguments: {}, meta: {} }, context(undefined), () => ({
      content: [],
      _meta: { [ID]: { features: ['format=json'] }, other: 1 },
    }));
    expect(result._meta).toEqual({ other: 1 });
  });
});

describe('markApplied', () => {
  it('records canonical tags once, refuses malformed ones', () => {
    const ctx = { locals: new Map<symbol, unknown>() };
    markApplied(ctx, 'sampling', 'SAMPLING', 'X-Theme=Dark');
    expect(appliedFeatures(ctx)).toEqual(['sampling', 'x-theme=Dark']);
    expect(() => {
      markApplied(ctx, 'format==json');
    }).toThrow(TypeError);
  });

  it('stops at the echo bound', () => {
    const ctx = { locals: new Map<symbol, unknown>() };
    markApplied(ctx, ...Array.from({ length: 40 }, (_, index) => `x-t${index}`));
    expect(appliedFeatures(ctx)).toHaveLength(32);
  });
});

describe('presentationFor: resources and prompts (CN-13)', () => {
  const half = contentNegotiationServer({ acceptDraftIdentifier: true });

  it('negotiates from capabilities.extensions and reads the per-request override', () => {
    expect(half.presentationFor({ peerExtensions: { [ID]: { version: '1.0', features: ['human'] } } })).toMatchObject({
      negotiated: true,
      id: ID,
      format: 'markdown',
    });
    expect(
      half.presentationFor({
        peerExtensions: { [CONTENT_NEGOTIATION_DRAFT_ID]: { version: '1.0', features: ['human'] } },
        meta: { [CONTENT_NEGOTIATION_DRAFT_ID]: { features: ['format=text'] } },
      }),
    ).toMatchObject({
      id: CONTENT_NEGOTIATION_DRAFT_ID,
      format: 'text',
      resultMeta: { [CONTENT_NEGOTIATION_DRAFT_ID]: { features: ['format=text', 'verbosity=standard'] } },
    });
  });

  it('gives the defaults when unknown, absent, or of an unknown major, with a warning for the last', () => {
    const messages: string[] = [];
    const logger: Logger = { warn: (message) => messages.push(message) };
    expect(half.presentationFor({ peerExtensions: undefined }).negotiated).toBe(false);
    expect(half.presentationFor({ peerExtensions: {} }).negotiated).toBe(false);
    expect(
      half.presentationFor({ peerExtensions: { [ID]: { version: '2.0', features: ['human'] } }, logger }),
    ).toMatchObject({ negotiated: false, format: 'json' });
    expect(messages).toHaveLength(1);
  });
});

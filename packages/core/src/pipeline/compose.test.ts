import { describe, expect, it } from 'vitest';
import { approvalRequirements, grantApproval, requireApproval } from '../cooperation/approval.js';
import { composeClient, composeServer } from './compose.js';
import { createCallContext, createRequestContext } from './context.js';
import { ConfigurationError, WireError } from '../contract/errors.js';
import { PIPELINE_STAGES, type PipelineStage } from '../contract/stages.js';
import { mandatory, type ServerExtension, type CallContext } from '../contract/extension.js';
import { type NegotiationTable } from '../contract/client-extension.js';
import { silentLogger } from '../telemetry/logger.js';
import { MemoryStore } from '../store/memory-store.js';
import { defineLocal } from '../kit/locals.js';
import type { ToolCall, ToolResult } from '../contract/types.js';

function half(name: string, extra: Partial<ServerExtension> = {}): ServerExtension {
  return {
    side: 'server',
    name: `@ext/${name}`,
    ids: [`io.github.mcp-ext/${name}`],
    settings: { version: '1.0' },
    ...extra,
  };
}

function tracer(stage: PipelineStage, trace: string[]): ServerExtension {
  return half(stage, {
    stage,
    middleware: async (_call, _ctx, next) => {
      trace.push(stage);
      return next();
    },
  });
}

function context(negotiation: NegotiationTable, peerExtensions: Record<string, unknown> | undefined): CallContext {
  const request = createRequestContext({
    sdk: 'v2',
    era: 'modern',
    protocolVersion: '2026-07-28',
    authInfo: undefined,
    identity: { principal: 'local', source: 'local' },
    peerExtensions,
    negotiation,
    signal: new AbortController().signal,
    logger: silentLogger,
    store: new MemoryStore(),
    progressToken: undefined,
    notify: () => Promise.resolve(),
    elicit: undefined,
  });
  return createCallContext(request, { name: 'tool' });
}

const ok: ToolResult = { content: [{ type: 'text', text: 'ok' }] };

describe('composeServer', () => {
  it('runs middlewares in the fixed pipeline order, whatever the list order', async () => {
    const trace: string[] = [];
    const shuffled = [...PIPELINE_STAGES].reverse().map((stage) => tracer(stage, trace));
    const composed = composeServer(shuffled, { logger: silentLogger });
    expect(composed.pipeline.map((entry) => entry.stage)).toEqual([...PIPELINE_STAGES]);
    await composed.runToolCall({ name: 'tool', arguments: {}, meta: {} }, context(new Map(), {}), () => {
      trace.push('handler');
      return ok;
    });
    expect(trace).toEqual([...PIPELINE_STAGES, 'handler']);
    expect(composed.describe()).toMatch(/^ 1\. errors/);
  });

  it('ignores false and null entries (opt-in idiom)', () => {
    const enabled = process.env.NEVER_SET_IN_TESTS === 'yes';
    const composed = composeServer([enabled && half('a'), null, undefined, half('b')], { logger: silentLogger });
    expect(composed.extensions.map((extension) => extension.name)).toEqual(['@ext/b']);
  });

  it('refuses duplicates, missing dependencies, reserved ids and bad versions with messages naming the package', () => {
    expect(() => composeServer([half('a'), half('a')])).toThrow(/@ext\/a is listed twice/);
    expect(() => composeServer([half('transactions', { requires: ['@ext/idempotency'] })])).toThrow(
      /@ext\/transactions requires @ext\/idempotency/,
    );
    expect(() => composeServer([half('x', { ids: ['io.modelcontextprotocol/x'] })])).toThrow(/reserved/);
    expect(() => composeServer([half('x', { settings: { version: 'one' } })])).toThrow(/settings.version/);
    expect(() => composeServer([half('x', { middleware: (_c, _x, next) => next() })])).toThrow(/stage/);
    try {
      composeServer([half('a'), half('a')]);
    } catch (error) {
      expect(ConfigurationError.isInstance(error)).toBe(true);
    }
  });

  it('advertises every identifier a package serves and negotiates the newest common one', () => {
    const composed = composeServer(
      [
        half('errors', {
          ids: ['io.github.mcp-ext/errors', 'io.github.mcp-ext/errors-v2'],
          settings: { version: '2.0' },
          majors: [1, 2],
        }),
      ],
      { logger: silentLogger },
    );
    expect(Object.keys(composed.capabilities())).toEqual(['io.github.mcp-ext/errors', 'io.github.mcp-ext/errors-v2']);
    const table = composed.negotiate({
      'io.github.mcp-ext/errors': { version: '1.0' },
      'io.github.mcp-ext/errors-v2': { version: '2.1' },
    });
    expect(table.get('@ext/errors')).toEqual({ id: 'io.github.mcp-ext/errors-v2', settings: { version: '2.1' } });
  });

  it('treats invalid peer settings as not negotiated, with a warning, never a crash', () => {
    const warnings: string[] = [];
    const composed = composeServer([half('a')], { logger: { warn: (message) => warnings.push(message) } });
    for (const bad of [null, 'x', [], { version: 7 }, { version: '9.0' }]) {
      expect(composed.negotiate({ 'io.github.mcp-ext/a': bad }).size).toBe(0);
    }
    expect(composed.negotiate('garbage').size).toBe(0);
    expect(warnings.length).toBe(5);
  });

  it('merges tool metadata contributions under each identifier', () => {
    const composed = composeServer(
      [
        half('a', {
          toolMeta: (tool) => (tool.name === 'rm' ? { risky: true } : undefined),
          toolAnnotations: () => ({ destructiveHint: true }),
        }),
      ],
      { logger: silentLogger },
    );
    expect(composed.decorateTool({ name: 'rm', _meta: { other: 1 } })).toEqual({
      _meta: { other: 1, 'io.github.mcp-ext/a': { risky: true } },
      annotations: { destructiveHint: true },
    });
  });

  it('asks the extensions again only when a re-registered tool changed, and hands out copies', () => {
    let asked = 0;
    const composed = composeServer([half('a', { toolMeta: (tool) => ((asked += 1), { seen: tool.description }) })], {
      logger: silentLogger,
    });
    const meta = { other: 1 };
    const first = composed.decorateTool({ name: 'rm', description: 'one', _meta: meta });
    first._meta.other = 2;
    // A server per request registers the same registration again: decorated once.
    expect(composed.decorateTool({ name: 'rm', description: 'one', _meta: meta })).toEqual({
      _meta: { other: 1, 'io.github.mcp-ext/a': { seen: 'one' } },
      annotations: undefined,
    });
    expect(asked).toBe(1);
    // Anything an extension could read differs: decorated again.
    expect(composed.decorateTool({ name: 'rm', description: 'two', _meta: meta })._meta['io.github.mcp-ext/a']).toEqual(
      { seen: 'two' },
    );
    // A literal with the same content, as a factory writes it per request: not asked again.
    composed.decorateTool({ name: 'rm', description: 'two', _meta: { other: 1 } });
    expect(asked).toBe(2);
    composed.decorateTool({ name: 'rm', description: 'two', _meta: { other: 3 } });
    expect(asked).toBe(3);
  });

  it('negotiates a declaration once, whether the same object or the same JSON comes again', () => {
    const warnings: string[] = [];
    const composed = composeServer([half('a'), half('b')], { logger: { warn: (message) => warnings.push(message) } });
    const declaration = { 'io.github.mcp-ext/a': { version: '1.0' }, 'io.github.mcp-ext/b': { version: 7 } };
    const table = composed.negotiate(declaration);
    expect([...table.keys()]).toEqual(['@ext/a']);
    expect(composed.negotiate(declaration)).toBe(table);
    expect(composed.negotiate(JSON.parse(JSON.stringify(declaration)))).toBe(table);
    // Member order is not part of the declaration.
    expect(
      composed.negotiate({ 'io.github.mcp-ext/b': { version: 7 }, 'io.github.mcp-ext/a': { version: '1.0' } }),
    ).toBe(table);
    expect(warnings).toHaveLength(1);
    expect([...composed.negotiate({ 'io.github.mcp-ext/b': { version: '1.0' } }).keys()]).toEqual(['@ext/b']);
  });

  it('remembers a copy of each declaration, so mutating the original later cannot reuse its outcome', () => {
    const composed = composeServer([half('a'), half('b')], { logger: silentLogger });
    const declaration: Record<string, unknown> = { 'io.github.mcp-ext/a': { version: '1.0' } };
    const first = composed.negotiate(declaration);
    declaration['io.github.mcp-ext/b'] = { version: '1.0' };
    // Same object, now mutated: a legacy peer's capabilities do not change mid-connection, so identity still answers.
    expect(composed.negotiate(declaration)).toBe(first);
    // A new object with the mutated content is a new declaration.
    expect([...composed.negotiate({ ...declaration }).keys()]).toEqual(['@ext/a', '@ext/b']);
    expect([...composed.negotiate({ 'io.github.mcp-ext/a': { version: '1.0' } }).keys()]).toEqual(['@ext/a']);
  });

  it('keeps a bounded number of declarations and negotiates an evicted one again', () => {
    // Each negotiation of a malformed entry warns once: the count of warnings is the count of negotiations.
    let negotiations = 0;
    const composed = composeServer([half('a'), half('b')], { logger: { warn: () => (negotiations += 1) } });
    const declarationOf = (n: number): Record<string, unknown> => ({
      'io.github.mcp-ext/a': { version: '1.0', n },
      'io.github.mcp-ext/b': { version: 7 },
    });
    for (let n = 0; n < 40; n++) composed.negotiate(declarationOf(n));
    expect(negotiations).toBe(40);
    composed.negotiate(declarationOf(39));
    expect(negotiations).toBe(40);
    composed.negotiate(declarationOf(0));
    expect(negotiations).toBe(41);
  });

  it('refuses a call with -32021 when a mandatory extension is missing on a known peer', async () => {
    const composed = composeServer([mandatory(half('a'))], { logger: silentLogger });
    const run = composed.runToolCall({ name: 'tool', arguments: {}, meta: {} }, context(new Map(), {}), () => ok);
    await expect(run).rejects.toSatisfy((error: unknown) => {
      return (
        WireError.isInstance(error) &&
        error.code === -32021 &&
        JSON.stringify(error.data) ===
          JSON.stringify({ requiredCapabilities: { extensions: { 'io.github.mcp-ext/a': {} } } })
      );
    });
    // Unknown peer (legacy stateless HTTP): degrade, do not refuse.
    await expect(
      composed.runToolCall({ name: 'tool', arguments: {}, meta: {} }, context(new Map(), undefined), () => ok),
    ).resolves.toEqual(ok);
  });

  it('accepts a reserved alias a half declares for its own extension name, and nothing else (CORE-3)', () => {
    const draft = 'io.modelcontextprotocol/content-negotiation';
    const own = 'io.github.mcp-ext/content-negotiation';
    const composed = composeServer([half('content-negotiation', { ids: [own, draft], reservedAliases: [draft] })], {
      logger: silentLogger,
    });
    expect(Object.keys(composed.capabilities())).toEqual([own, draft]);
    expect(composed.negotiate({ [draft]: { version: '1.0' } }).get('@ext/content-negotiation')?.id).toBe(draft);
    // Not in ids, another extension's name, or no own identifier to alias: refused.
    expect(() => composeServer([half('a', { reservedAliases: ['io.modelcontextprotocol/a'] })])).toThrow(
      /must be listed in ids/,
    );
    expect(() =>
      composeServer([
        half('a', {
          ids: ['io.github.mcp-ext/a', 'io.modelcontextprotocol/b'],
          reservedAliases: ['io.modelcontextprotocol/b'],
        }),
      ]),
    ).toThrow(/same extension/);
    expect(() =>
      composeServer([
        half('a', { ids: ['io.modelcontextprotocol/a'], reservedAliases: ['io.modelcontextprotocol/a'] }),
      ]),
    ).toThrow(/reserved alias/);
    // A reserved identifier that is not declared as an alias still needs the author's allowReservedIds.
    expect(() => composeServer([half('a', { ids: ['io.github.mcp-ext/a', 'io.modelcontextprotocol/a'] })])).toThrow(
      /reserved/,
    );
  });

  it('advertises an alias with the settings the official extension defines, its own identifier with a version (CORE-5)', () => {
    const official = 'io.modelcontextprotocol/tasks';
    const own = 'io.github.mcp-ext/tasks';
    const tasks = half('tasks', {
      ids: [own, official],
      reservedAliases: [official],
      aliasSettings: { [official]: {} },
    });
    const composed = composeServer([tasks], { logger: silentLogger });
    expect(composed.capabilities()).toEqual({ [own]: { version: '1.0' }, [official]: {} });
    // Settings for an identifier that is not one of its aliases: refused at composition.
    expect(() => composeServer([half('a', { aliasSettings: { 'io.github.mcp-ext/a': {} } })])).toThrow(
      /not one of its reservedAliases/,
    );
  });

  it('runs every beginCall before the pipeline, in pipeline order, and ignores one that throws', async () => {
    const trace: string[] = [];
    const warnings: string[] = [];
    const slot = Symbol('seen');
    const composed = composeServer(
      [
        half('late', {
          stage: 'idempotency',
          middleware: (_call, _ctx, next) => next(),
          beginCall: () => trace.push('begin late'),
        }),
        half('broken', {
          beginCall: () => {
            throw new Error('boom');
          },
        }),
        half('errors', {
          stage: 'errors',
          beginCall: (_call, ctx) => {
            trace.push('begin errors');
            ctx.locals.set(slot, 'set before the pipeline');
          },
          middleware: (_call, ctx, next) => {
            trace.push(`errors stage sees: ${String(ctx.locals.get(slot))}`);
            return next();
          },
        }),
      ],
      { logger: { warn: (message) => warnings.push(message) } },
    );
    const ctx = context(new Map(), {});
    const validate = (args: Record<string, unknown>) => {
      trace.push('validate');
      return Promise.resolve(args);
    };
    await expect(
      composed.runToolCall(
        { name: 'tool', arguments: {}, meta: {} },
        { ...ctx, logger: { warn: (message) => warnings.push(message) } },
        () => ok,
        validate,
      ),
    ).resolves.toEqual(ok);
    expect(trace).toEqual(['begin errors', 'begin late', 'errors stage sees: set before the pipeline', 'validate']);
    expect(warnings).toEqual(['@ext/broken: beginCall threw; the call proceeds without it']);
  });

  it('lists methods as <id>/<verb> for every identifier', () => {
    const composed = composeServer(
      [half('t', { ids: ['io.github.mcp-ext/t', 'io.github.mcp-ext/t-v2'], methods: { begin: () => ({}) } })],
      {
        logger: silentLogger,
      },
    );
    expect(composed.methods.map((method) => method.method)).toEqual([
      'io.github.mcp-ext/t/begin',
      'io.github.mcp-ext/t-v2/begin',
    ]);
  });

  it('lists named methods once, by their own name, and refuses a name served twice (CORE-40)', () => {
    const composed = composeServer(
      [
        half('t', {
          ids: ['io.github.mcp-ext/t', 'io.github.mcp-ext/t-v2'],
          namedMethods: { 'tasks/get': () => ({}) },
        }),
      ],
      { logger: silentLogger },
    );
    expect(composed.methods.map(({ method, id, named }) => ({ method, id, named }))).toEqual([
      { method: 'tasks/get', id: 'io.github.mcp-ext/t', named: true },
    ]);
    const twice = (): unknown =>
      composeServer(
        [
          half('a', { namedMethods: { 'tasks/get': () => ({}) } }),
          half('b', { namedMethods: { 'tasks/get': () => ({}) } }),
        ],
        { logger: silentLogger },
      );
    expect(twice).toThrow(
      expect.objectContaining({ code: 'DUPLICATE_METHOD', message: 'tasks/get is registered twice' }),
    );
  });
});

/** What calling `next` again throws, or `'ran'` when it did not throw. */
async function refusal(next: () => Promise<ToolResult>): Promise<string> {
  try {
    await next();
    return 'ran';
  } catch (error) {
    return error instanceof Error ? error.message : 'not an Error';
  }
}

describe('calling next() more than once (CORE-41)', () => {
  const call = { name: 'tool', arguments: {}, meta: {} };

  it('throws on a second call while the first is in flight or after it returned a tool result', async () => {
    const outcomes: string[] = [];
    const greedy = half('tasks', {
      stage: 'tasks',
      middleware: async (_call, _ctx, next) => {
        const first = next();
        outcomes.push(await refusal(next));
        await first;
        outcomes.push(await refusal(next));
        return first;
      },
    });
    let runs = 0;
    await composeServer([greedy], { logger: silentLogger }).runToolCall(call, context(new Map(), {}), () => {
      runs += 1;
      return ok;
    });
    expect(runs).toBe(1);
    expect(outcomes).toEqual([
      'next() called twice by a tool-call middleware',
      'next() called twice by a tool-call middleware',
    ]);
  });

  it('runs the inner stages again after they answered input_required, and the handler once answered', async () => {
    const asks = half('confirmation', {
      stage: 'confirmation',
      middleware: async (_call, ctx, next) =>
        ctx.inputRound?.requestState === 'answered'
          ? next()
          : ({ resultType: 'input_required', inputRequests: {} } as unknown as ToolResult),
    });
    const rounds = half('tasks', {
      stage: 'tasks',
      middleware: async (_call, ctx, next) => {
        const first = await next();
        expect(first).toMatchObject({ resultType: 'input_required' });
        Object.defineProperty(ctx, 'inputRound', { value: { responses: {}, requestState: 'answered' } });
        return next();
      },
    });
    let runs = 0;
    const result = await composeServer([asks, rounds], { logger: silentLogger }).runToolCall(
      call,
      context(new Map(), {}),
      () => {
        runs += 1;
        return ok;
      },
    );
    expect(result).toEqual(ok);
    expect(runs).toBe(1);
  });
});

describe('composeClient', () => {
  it('refuses server halves and advertises client settings', () => {
    expect(() => composeClient([half('a') as never])).toThrow(/server half/);
    const composed = composeClient([
      { side: 'client', name: '@ext/a', ids: ['io.github.mcp-ext/a'], settings: { version: '1.0', x: 1 } },
    ]);
    expect(composed.capabilities()).toEqual({ 'io.github.mcp-ext/a': { version: '1.0', x: 1 } });
  });
});

describe('approval requirements (CORE approval slot)', () => {
  const asker = half('cost', {
    stage: 'cost',
    middleware: async (_call, ctx, next) => {
      requireApproval(ctx, { requestedBy: '@ext/cost', reason: 'billed: 5 credits' });
      return next();
    },
  });

  it('refuses to run the handler when an approval was asked for and nobody granted it (fail closed)', async () => {
    const composed = composeServer([asker], { logger: silentLogger });
    const ctx = context(new Map(), {});
    let ran = false;
    const outcome = composed.runToolCall({ name: 'tool', arguments: {}, meta: {} }, ctx, () => {
      ran = true;
      return ok;
    });
    await expect(outcome).rejects.toMatchObject({ code: 'APPROVAL_REQUIRED', category: 'permanent' });
    expect(ran).toBe(false);
  });

  it('runs the handler once a gate granted the approval', async () => {
    const gate = half('confirmation', {
      stage: 'confirmation',
      middleware: async (_call, ctx, next) => {
        expect(approvalRequirements(ctx).map((requirement) => requirement.reason)).toEqual(['billed: 5 credits']);
        grantApproval(ctx);
        return next();
      },
    });
    const composed = composeServer([gate, asker], { logger: silentLogger });
    await expect(
      composed.runToolCall({ name: 'tool', arguments: {}, meta: {} }, context(new Map(), {}), () => ok),
    ).resolves.toEqual(ok);
  });
});

describe('a gate trusting a forecast replay (CORE-45)', () => {
  const call = { name: 'tool', arguments: { n: 1 }, meta: {} };
  /** A slot of the test's own, as an extension declares one (idempotency's replay probe is such a slot). */
  const replaySlot = defineLocal<(call: ToolCall) => Promise<boolean>>('test/replay');
  /** An idempotency-like half: offers a probe answering `stored`, replays when it says so. */
  const replayer = (stored: () => boolean, seen: ToolCall[] = []): ServerExtension =>
    half('idempotency', {
      stage: 'idempotency',
      beginCall: (_call, ctx) => {
        replaySlot.set(ctx, (probed) => {
          seen.push(probed);
          return Promise.resolve(stored());
        });
      },
      middleware: async (_call, _ctx, next) => (stored() ? { content: [{ type: 'text', text: 'replayed' }] } : next()),
    });
  /** A gate that lets a forecast replay through unasked, as CORE-45 says, and refuses everything else. */
  const gate = half('confirmation', {
    stage: 'confirmation',
    middleware: async (current, ctx, next) => {
      const probe = replaySlot.get(ctx);
      if (probe === undefined || !(await probe(current))) throw new Error('asked a person');
      requireApproval(ctx, { requestedBy: '@ext/confirmation', reason: 'gated' });
      return next();
    },
  });

  it('a gate asks the probe about the call it holds, and a replay passes without the handler', async () => {
    const seen: ToolCall[] = [];
    const composed = composeServer([gate, replayer(() => true, seen)], { logger: silentLogger });
    let ran = false;
    const result = await composed.runToolCall(call, context(new Map(), {}), () => {
      ran = true;
      return ok;
    });
    expect(result).toEqual({ content: [{ type: 'text', text: 'replayed' }] });
    expect(ran).toBe(false);
    expect(seen).toEqual([call]);
  });

  it('a forecast replay that runs after all is refused before the handler (fail closed)', async () => {
    const answers = [true, false];
    const composed = composeServer([gate, replayer(() => answers.shift() ?? false)], { logger: silentLogger });
    let ran = false;
    const outcome = composed.runToolCall(call, context(new Map(), {}), () => {
      ran = true;
      return ok;
    });
    await expect(outcome).rejects.toMatchObject({ code: 'APPROVAL_REQUIRED', category: 'permanent' });
    expect(ran).toBe(false);
  });
});

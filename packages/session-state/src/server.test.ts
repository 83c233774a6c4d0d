import {
  composeServer,
  ConfigurationError,
  ExtensionError,
  MemoryStore,
  PIPELINE_STAGES,
  type CallContext,
  type ToolCall,
  type ToolHandler,
  type ToolResult,
} from '@ext/core';
import { createCallContext, createRequestContext, silentLogger } from '@ext/core/kit';
import { describe, expect, it } from 'vitest';
import Type from 'typebox';
import { readResultMeta } from './logic.js';
import { SESSION_STATE_ID, SESSION_STATE_PACKAGE } from './schema.js';
import { sessionState, sessionStateServer, type SessionStateServerOptions } from './server.js';

const K1 = { id: 'k1', secret: 'first-secret-of-at-least-thirty-two-bytes' };

interface ContextOptions {
  /** `'yes'`: negotiated; `'no'`: the peer is known and lacks it; `'unknown'`: legacy stateless HTTP. */
  readonly peer?: 'yes' | 'no' | 'unknown';
  readonly principal?: string;
  readonly clientMax?: number;
  /** Whether the client negotiated `@ext/errors` too (default `true` when the peer is known). */
  readonly errors?: boolean;
}

function contextFor(options: ContextOptions = {}): CallContext {
  const peer = options.peer ?? 'yes';
  const settings: Record<string, unknown> = { version: '1.0' };
  if (options.clientMax !== undefined) settings.max_token_bytes = options.clientMax;
  const request = createRequestContext({
    sdk: 'v2',
    era: 'legacy',
    protocolVersion: undefined,
    authInfo: { clientId: options.principal ?? 'alice' },
    identity: { principal: `client:${options.principal ?? 'alice'}`, source: 'oauth' },
    peerExtensions: peer === 'unknown' ? undefined : peer === 'yes' ? { [SESSION_STATE_ID]: settings } : {},
    negotiation: new Map([
      ...(peer === 'yes' ? [[SESSION_STATE_PACKAGE, { id: SESSION_STATE_ID, settings }] as const] : []),
      ...(peer !== 'unknown' && options.errors !== false
        ? [['@ext/errors', { id: 'io.github.mcp-ext/errors', settings: { version: '1.0' } }] as const]
        : []),
    ]),
    signal: new AbortController().signal,
    logger: silentLogger,
    store: new MemoryStore(),
    progressToken: undefined,
    notify: () => Promise.resolve(),
    elicit: undefined,
  });
  return createCallContext(request, { name: 'tool' });
}

function callWith(token?: string): ToolCall {
  return {
    name: 'tool',
    arguments: {},
    meta: token === undefined ? {} : { [SESSION_STATE_ID]: { session_state: token } },
  };
}

/** Runs one call through the session-state middleware alone. */
async function run(
  options: Partial<SessionStateServerOptions>,
  handler: ToolHandler,
  token?: string,
  context: ContextOptions = {},
): Promise<ToolResult> {
  const middleware = sessionStateServer({ keys: [K1], ...options }).middleware;
  if (!middleware) throw new Error('sessionStateServer has no middleware');
  const ctx = contextFor(context);
  return middleware(callWith(token), ctx, () => Promise.resolve(handler({}, ctx)));
}

const ok: ToolResult = { content: [{ type: 'text', text: 'ok' }] };

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('sessionStateServer options', () => {
  it.each<[unknown, RegExp]>([
    [undefined, /expects an options object/],
    [{}, /keys must be a non-empty array/],
    [{ keys: [K1], ttlSeconds: 0 }, /ttlSeconds must be an integer from 1 to 315360000, got 0/],
    [{ keys: [K1], ttlSeconds: '60' }, /ttlSeconds must be an integer from 1 to 315360000, got string/],
    [{ keys: [K1], ttlSeconds: Number.MAX_SAFE_INTEGER }, /ttlSeconds must be an integer from 1/],
    [{ keys: [K1], maxTokenBytes: 100 }, /maxTokenBytes must be an integer from 256/],
    [{ keys: [K1], serverName: '' }, /serverName must be a non-empty string/],
    [{ keys: [K1], rolling: 'yes' }, /rolling must be a boolean/],
    [{ keys: [K1], subject: 'alice' }, /subject must be a function/],
    [{ keys: [K1], now: 5 }, /now must be a function/],
    [{ keys: [K1], schema: 'object' }, /schema must be a TypeBox schema/],
    [{ keys: [K1], key: K1 }, /unknown option "key"/],
  ])('refuses %j naming the option', (options, message) => {
    let thrown: unknown;
    try {
      sessionStateServer(options as SessionStateServerOptions);
    } catch (error) {
      thrown = error;
    }
    expect(ConfigurationError.isInstance(thrown)).toBe(true);
    expect((thrown as Error).message).toMatch(message);
  });

  it('SS-1: sits at the session-state stage, right under errors', () => {
    const half = sessionStateServer({ keys: [K1] });
    expect(half.stage).toBe('session-state');
    expect(PIPELINE_STAGES.indexOf('session-state')).toBe(PIPELINE_STAGES.indexOf('errors') + 1);
    expect(half.settings).toEqual({ version: '1.0', ttl_seconds: 3600, max_token_bytes: 65_536 });
    const composed = composeServer([half], { logger: silentLogger });
    expect(composed.pipeline).toEqual([{ stage: 'session-state', extension: SESSION_STATE_PACKAGE }]);
  });
});

describe('the middleware', () => {
  it('SS-4 SS-11: seals what the handler set, expiring ttlSeconds later', async () => {
    const now = 1_800_000_000_000;
    const result = await run({ ttlSeconds: 60, now: () => now }, (_args, ctx) => {
      sessionState(ctx).set({ step: 1 });
      return ok;
    });
    expect(readResultMeta(result)).toMatchObject({
      state_changed: true,
      expires_at: new Date(now + 60_000).toISOString(),
    });
  });

  it('SS-11: a token is refused from its expiry on, not before', async () => {
    let now = 1_800_000_000_000;
    const options = { ttlSeconds: 60, now: () => now };
    const sealed = readResultMeta(
      await run(options, (_args, ctx) => {
        sessionState(ctx).set('s');
        return ok;
      }),
    );
    const token = sealed?.session_state;
    now += 59_999;
    const read = await run(
      options,
      (_args, ctx) => ({ content: [{ type: 'text', text: JSON.stringify(sessionState(ctx).get()) }] }),
      token,
    );
    expect(read.content[0]).toEqual({ type: 'text', text: '"s"' });
    now += 1;
    const error = await rejection(run(options, () => ok, token));
    expect(error).toMatchObject({ code: 'SESSION_STATE_INVALID', details: { reason: 'expired' } });
  });

  it('SS-3: on legacy stateless HTTP (capabilities unknown) it acts as negotiated', async () => {
    const sealed = await run(
      {},
      (_args, ctx) => {
        expect(sessionState(ctx).enabled).toBe(true);
        sessionState(ctx).set(1);
        return ok;
      },
      undefined,
      { peer: 'unknown' },
    );
    expect(readResultMeta(sealed)?.session_state).toBeDefined();
    // Whether the client reads structured errors is unknown too: the refusal comes as a plain result that drops the token.
    const refused = await run({}, () => ok, 'AQID', { peer: 'unknown' });
    expect(refused).toMatchObject({ isError: true, _meta: { [SESSION_STATE_ID]: { state_changed: true } } });
  });

  it('SS-8: with @ext/errors negotiated the refusal is thrown for the errors stage to render', async () => {
    const error = await rejection(run({}, () => ok, 'AQID'));
    expect(ExtensionError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      category: 'invalid_input',
      code: 'SESSION_STATE_INVALID',
      details: { reason: 'malformed' },
    });
    const plain = await run({}, () => ok, 'AQID', { errors: false });
    expect(plain.isError).toBe(true);
  });

  it('SS-3: with a client known to lack it, tokens are ignored and nothing is sent', async () => {
    const result = await run(
      {},
      (_args, ctx) => {
        expect(sessionState(ctx).enabled).toBe(false);
        expect(sessionState(ctx).get()).toBeUndefined();
        sessionState(ctx).set(1);
        expect(sessionState(ctx).get()).toBe(1);
        return ok;
      },
      'AQID',
      { peer: 'no' },
    );
    expect(result).toEqual(ok);
  });

  it('SS-12: set() is limited by the smaller of both sides', async () => {
    const error = await rejection(
      run(
        {},
        (_args, ctx) => {
          expect(sessionState(ctx).maxTokenBytes).toBe(300);
          sessionState(ctx).set('x'.repeat(300));
          return ok;
        },
        undefined,
        { clientMax: 300 },
      ),
    );
    expect(error).toMatchObject({ code: 'SESSION_STATE_TOO_LARGE', details: { limit_bytes: 300 } });
  });

  it('SS-8: a token whose state no longer matches the server schema is refused as invalid_state', async () => {
    const minted = readResultMeta(
      await run({}, (_args, ctx) => {
        sessionState(ctx).set({ count: 'three' });
        return ok;
      }),
    );
    const schema = Type.Object({ count: Type.Integer() });
    const error = await rejection(run({ schema }, () => ok, minted?.session_state));
    expect(error).toMatchObject({ code: 'SESSION_STATE_INVALID', details: { reason: 'invalid_state' } });
    const refusedSet = await rejection(
      run({ schema }, (_args, ctx) => {
        sessionState(ctx).set({ count: 1.5 });
        return ok;
      }),
    );
    expect(refusedSet).toMatchObject({ code: 'SESSION_STATE_INVALID_VALUE' });
    expect((refusedSet as Error).message).toContain('/count');
  });

  it('SS-7: the subject option decides whom a token belongs to', async () => {
    const subject = (ctx: CallContext): string => `tenant:${ctx.authInfo?.clientId ?? ''}`;
    const minted = readResultMeta(
      await run({ subject }, (_args, ctx) => {
        sessionState(ctx).set(1);
        return ok;
      }),
    );
    expect((await run({ subject }, () => ok, minted?.session_state, { principal: 'alice' })).isError).toBeUndefined();
    const error = await rejection(run({ subject }, () => ok, minted?.session_state, { principal: 'bob' }));
    expect(error).toMatchObject({ details: { reason: 'not_authentic' } });
  });
});

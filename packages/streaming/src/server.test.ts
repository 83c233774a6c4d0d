import {
  composeServer,
  ConfigurationError,
  MemoryStore,
  type CallContext,
  type ToolInfo,
  type ToolResult,
} from '@ext/core';
import {
  setDetachedRun,
  type DetachedRun,
  type JsonValue,
  createCallContext,
  createRequestContext,
  silentLogger,
} from '@ext/core/kit';
import { describe, expect, it } from 'vitest';
import { STREAMING_ID } from './schema.js';
import { streamingServer, streamOf } from './server.js';

interface Sent {
  readonly method: string;
  readonly params: Record<string, unknown> | undefined;
}

function context(options: { tool?: ToolInfo; negotiated?: boolean; progressToken?: string | number } = {}): {
  ctx: CallContext;
  sent: Sent[];
} {
  const sent: Sent[] = [];
  const negotiation = new Map(
    options.negotiated === true ? [['@ext/streaming', { id: STREAMING_ID, settings: { version: '1.0' } }]] : [],
  );
  const request = createRequestContext({
    sdk: 'v2',
    era: 'modern',
    protocolVersion: '2026-07-28',
    authInfo: undefined,
    identity: { principal: 'local', source: 'local' },
    peerExtensions: {},
    negotiation,
    signal: new AbortController().signal,
    logger: silentLogger,
    store: new MemoryStore(),
    progressToken: options.progressToken,
    notify: (method, params) => {
      sent.push({ method, params });
      return Promise.resolve();
    },
    elicit: undefined,
  });
  return { ctx: createCallContext(request, options.tool ?? { name: 'tool' }), sent };
}

const resumable: ToolInfo = { name: 'resumable', _meta: { [STREAMING_ID]: { checkpoints: true } } };
const follow = { [STREAMING_ID]: { operation_id: 'op-1' } };

async function run(
  ctx: CallContext,
  meta: Record<string, unknown>,
  handler: (ctx: CallContext) => Promise<ToolResult>,
): Promise<ToolResult> {
  const composed = composeServer([streamingServer()], { logger: silentLogger });
  return composed.runToolCall({ name: ctx.tool.name, arguments: {}, meta }, ctx, (_args, callCtx) => handler(callCtx));
}

const ok: ToolResult = { content: [{ type: 'text', text: 'ok' }] };

describe('streamingServer options', () => {
  it('names the option it refuses', () => {
    expect(() => streamingServer({ checkpointTtlSeconds: 0 })).toThrow(/checkpointTtlSeconds/);
    expect(() => streamingServer({ maxStateBytes: 1.5 })).toThrow(/maxStateBytes/);
    expect(() => streamingServer({ keyPrefix: '' })).toThrow(/keyPrefix/);
    expect(() => streamingServer({ now: 5 as unknown as () => number })).toThrow(/now/);
    expect(() => streamingServer({ checkpointTtlSeconds: -1 })).toThrow(ConfigurationError);
  });

  it('STRM-1: advertises the wire version and the checkpoint lifetime', () => {
    expect(streamingServer({ checkpointTtlSeconds: 600 }).settings).toEqual({
      version: '1.0',
      checkpoint_ttl_seconds: 600,
    });
  });

  it('STRM-3: validates the tool metadata at registration', () => {
    const server = streamingServer();
    expect(server.toolMeta?.({ name: 't' })).toBeUndefined();
    expect(server.toolMeta?.(resumable)).toEqual({ checkpoints: true });
    expect(() => server.toolMeta?.({ name: 'bad', _meta: { [STREAMING_ID]: { checkpoint: true } } })).toThrow(
      /tool "bad"/,
    );
  });
});

describe('streamOf(ctx)', () => {
  it('STRM-18: without the server half, sends plain MCP progress only', async () => {
    const { ctx, sent } = context({ progressToken: 'p' });
    const stream = streamOf(ctx);
    expect(streamOf(ctx)).toBe(stream);
    expect(stream.enabled).toBe(false);
    await stream.progress(1, 4, 'a');
    await stream.partial({ x: 1 });
    expect(await stream.chunk('c')).toEqual({ sequence: 0, checkpointToken: undefined });
    expect(await stream.checkpoint({ at: 1 })).toBeUndefined();
    expect(sent).toEqual([
      { method: 'notifications/progress', params: { progressToken: 'p', progress: 1, total: 4, message: 'a' } },
    ]);
  });

  it('STRM-8: never sends a non-increasing MCP progress, but still reports it on the extension channel', async () => {
    const { ctx, sent } = context({ progressToken: 7, negotiated: true });
    await run(ctx, follow, async (callCtx) => {
      const stream = streamOf(callCtx);
      await Promise.all([
        stream.progress(2, 10),
        stream.progress(2, 10, 'again'),
        stream.progress(1, 10),
        stream.progress(3),
      ]);
      return ok;
    });
    expect(
      sent.filter((entry) => entry.method === 'notifications/progress').map((entry) => entry.params?.progress),
    ).toEqual([2, 3]);
    expect(
      sent.filter((entry) => entry.method.endsWith('/progress') && entry.method !== 'notifications/progress'),
    ).toEqual([
      {
        method: `notifications/${STREAMING_ID}/progress`,
        params: { type: 'progress', operation_id: 'op-1', progress: 0.2 },
      },
      {
        method: `notifications/${STREAMING_ID}/progress`,
        params: { type: 'progress', operation_id: 'op-1', progress: 0.2, message: 'again' },
      },
      {
        method: `notifications/${STREAMING_ID}/progress`,
        params: { type: 'progress', operation_id: 'op-1', progress: 0.1 },
      },
      { method: `notifications/${STREAMING_ID}/progress`, params: { type: 'progress', operation_id: 'op-1' } },
    ]);
  });

  it('STRM-9 STRM-10: keeps the order of concurrent sends and refuses a chunk after the final one', async () => {
    const { ctx, sent } = context({ tool: resumable, negotiated: true });
    await run(ctx, follow, async (callCtx) => {
      const stream = streamOf(callCtx);
      const receipts = await Promise.all([
        stream.chunk(1, { checkpoint: { n: 1 } }),
        stream.chunk(2),
        stream.chunk(3, { final: true }),
      ]);
      expect(receipts.map((receipt) => receipt.sequence)).toEqual([0, 1, 2]);
      expect(receipts[0].checkpointToken).toMatch(/^v1\./);
      expect(() => stream.chunk(4)).toThrow(/final chunk/);
      return ok;
    });
    expect(sent.map((entry) => entry.params?.sequence)).toEqual([0, 1, 2]);
    expect(sent.map((entry) => entry.params?.is_final)).toEqual([false, false, true]);
  });

  it('STRM-6: refuses bad progress, undeclared checkpoints, non-JSON and oversized state', async () => {
    const { ctx } = context({ negotiated: true });
    await run(ctx, follow, async (callCtx) => {
      const stream = streamOf(callCtx);
      expect(() => stream.progress(-1)).toThrow(/done/);
      expect(() => stream.progress(1, 0)).toThrow(/total/);
      expect(() => stream.progress(1, 2, undefined, { estimatedRemainingSeconds: Number.NaN })).toThrow(
        /estimatedRemainingSeconds/,
      );
      expect(() => stream.partial([] as unknown as Record<string, unknown>)).toThrow(/plain object/);
      await expect(stream.checkpoint({})).rejects.toMatchObject({ code: 'CHECKPOINTS_NOT_DECLARED' });
      return ok;
    });
    const big = context({ tool: resumable, negotiated: true });
    const composed = composeServer([streamingServer({ maxStateBytes: 16 })], { logger: silentLogger });
    await composed.runToolCall({ name: 'resumable', arguments: {}, meta: follow }, big.ctx, async (_args, callCtx) => {
      const stream = streamOf(callCtx);
      await expect(stream.checkpoint({ text: 'x'.repeat(32) })).rejects.toMatchObject({ code: 'CHECKPOINT_TOO_LARGE' });
      await expect(stream.checkpoint({ n: 1n } as unknown as Record<string, never>)).rejects.toMatchObject({
        code: 'INVALID_CHECKPOINT_STATE',
      });
      expect(await stream.checkpoint({ n: 1 })).toMatch(/^v1\./);
      return ok;
    });
  });
});

/** A detached run (what the tasks stage sets) that records what reaches it, in order. */
function recordingRun(resumeState?: JsonValue): DetachedRun & { readonly events: string[] } {
  const events: string[] = [];
  return {
    id: 'task-1',
    resumeState,
    events,
    progress: (update) => {
      events.push(`progress:${JSON.stringify(update)}`);
      return Promise.resolve();
    },
    checkpoint: (state) => {
      events.push(`checkpoint:${JSON.stringify(state)}`);
      return Promise.resolve();
    },
  };
}

describe('a call that runs detached, as a task (STRM-21, STRM-22)', () => {
  it('records progress, partial results and checkpoints with the run, and still sends the notifications', async () => {
    const { ctx, sent } = context({ tool: resumable, negotiated: true, progressToken: 7 });
    const detached = recordingRun();
    setDetachedRun(ctx, detached);
    await run(ctx, follow, async (callCtx) => {
      const stream = streamOf(callCtx);
      await stream.progress(1, 4, 'one of four', { estimatedRemainingSeconds: 3 });
      await stream.partial({ rows: 1 }, 'first row');
      await stream.chunk('a', { checkpoint: { next: 1 } });
      await stream.checkpoint({ next: 2 });
      return { content: [{ type: 'text', text: 'done' }] };
    });
    expect(detached.events).toEqual([
      'progress:{"done":1,"total":4,"message":"one of four","estimatedRemainingSeconds":3}',
      'progress:{"message":"first row","partialResult":{"rows":1}}',
      'checkpoint:{"next":1}',
      'checkpoint:{"next":2}',
    ]);
    expect(sent.map((entry) => entry.method)).toContain('notifications/progress');
  });

  it("hands the run's checkpoint to the handler as resumeState, and says it resumed", async () => {
    const { ctx } = context({ tool: resumable });
    setDetachedRun(ctx, recordingRun({ next: 5 }));
    let seen: unknown;
    await run(ctx, {}, (callCtx) => {
      const stream = streamOf<{ next: number }>(callCtx);
      seen = { state: stream.resumeState, resumed: stream.resumed, resumable: stream.resumable };
      return Promise.resolve({ content: [] });
    });
    expect(seen).toEqual({ state: { next: 5 }, resumed: true, resumable: true });
  });

  it('leaves a call without a detached run as before: nothing to resume from', async () => {
    const { ctx } = context({ tool: resumable });
    let seen: unknown;
    await run(ctx, {}, (callCtx) => {
      const stream = streamOf(callCtx);
      seen = { state: stream.resumeState, resumed: stream.resumed, resumable: stream.resumable };
      return Promise.resolve({ content: [] });
    });
    expect(seen).toEqual({ state: undefined, resumed: false, resumable: false });
  });
});

import { describe, expect, it } from 'vitest';
import { requireApproval } from './approval.js';
import { composeServer } from '../pipeline/compose.js';
import { createCallContext, createRequestContext } from '../pipeline/context.js';
import { handlerStarted } from './execution.js';
import type { ServerExtension, CallContext } from '../contract/extension.js';
import { silentLogger } from '../telemetry/logger.js';
import { MemoryStore } from '../store/memory-store.js';
import type { ToolResult } from '../contract/types.js';

function context(): CallContext {
  const request = createRequestContext({
    sdk: 'v2',
    era: 'modern',
    protocolVersion: '2026-07-28',
    authInfo: undefined,
    identity: { principal: 'local', source: 'local' },
    peerExtensions: {},
    negotiation: new Map(),
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

/** An outer stage that records, after `next()`, whether the handler ran. */
function observer(seen: boolean[], answerWithoutRunning = false): ServerExtension {
  return {
    side: 'server',
    name: '@ext/observer',
    ids: ['io.github.mcp-ext/observer'],
    settings: { version: '1.0' },
    stage: 'cost',
    middleware: async (_call, ctx, next) => {
      try {
        return answerWithoutRunning ? ok : await next();
      } finally {
        seen.push(handlerStarted(ctx));
      }
    },
  };
}

describe('handlerStarted', () => {
  it('is true after the handler ran, false before', async () => {
    const seen: boolean[] = [];
    const ctx = context();
    expect(handlerStarted(ctx)).toBe(false);
    await composeServer([observer(seen)], { logger: silentLogger }).runToolCall(
      { name: 'tool', arguments: {}, meta: {} },
      ctx,
      () => ok,
    );
    expect(seen).toEqual([true]);
  });

  it('stays false when a stage answers without running the handler, or the approval gate refuses', async () => {
    const seen: boolean[] = [];
    await composeServer([observer(seen, true)], { logger: silentLogger }).runToolCall(
      { name: 'tool', arguments: {}, meta: {} },
      context(),
      () => ok,
    );
    const asking: ServerExtension = {
      side: 'server',
      name: '@ext/asker',
      ids: ['io.github.mcp-ext/asker'],
      settings: { version: '1.0' },
      stage: 'intent',
      middleware: (_call, ctx, next) => {
        requireApproval(ctx, { requestedBy: '@ext/asker', reason: 'billed' });
        return next();
      },
    };
    const refused = composeServer([observer(seen), asking], { logger: silentLogger }).runToolCall(
      { name: 'tool', arguments: {}, meta: {} },
      context(),
      () => ok,
    );
    await expect(refused).rejects.toMatchObject({ code: 'APPROVAL_REQUIRED' });
    expect(seen).toEqual([false, false]);
  });
});

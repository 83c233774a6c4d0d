import { afterEach, describe, expect, it } from 'vitest';
import { composeServer } from '../pipeline/compose.js';
import { createRequestContext } from '../pipeline/context.js';
import type { ClientExtension, NegotiationTable } from '../contract/client-extension.js';
import type { ServerExtension } from '../contract/extension.js';
import type { Logger } from '../telemetry/logger.js';
import { MemoryStore } from '../store/memory-store.js';
import { createTestPair, TEST_LINES, type TestPair } from '../testing/index.js';

const ID = 'io.github.mcp-ext/probe';
const ID_V2 = 'io.github.mcp-ext/probe-v2';
const NAME = '@ext/probe';
const OTHER_ID = 'io.github.mcp-ext/other';

function half(name: string, ids: string[]): ServerExtension {
  return { side: 'server', name, ids, settings: { version: '1.0' } };
}

function clientHalf(): ClientExtension {
  return { side: 'client', name: NAME, ids: [ID], settings: { version: '1.0' } };
}

function recordingLogger(): Logger & { readonly warnings: string[] } {
  const warnings: string[] = [];
  return { warnings, warn: (message) => warnings.push(message) };
}

function contextFor(negotiation: NegotiationTable, logger: Logger) {
  return createRequestContext({
    sdk: 'v2',
    era: 'modern',
    protocolVersion: '2026-07-28',
    authInfo: undefined,
    identity: { principal: 'local', source: 'local' },
    peerExtensions: {},
    negotiation,
    signal: new AbortController().signal,
    logger,
    store: new MemoryStore(),
    progressToken: undefined,
    notify: () => Promise.resolve(),
    elicit: undefined,
  });
}

describe('ctx.negotiated (CORE-36)', () => {
  const composed = composeServer([half(NAME, [ID, ID_V2]), half('@ext/other', [OTHER_ID])], {
    logger: recordingLogger(),
  });
  const table = composed.negotiate({ [ID_V2]: { version: '1.0' } });

  it('finds an extension by any identifier it serves, and says which one was agreed', () => {
    const logger = recordingLogger();
    const ctx = contextFor(table, logger);
    expect(ctx.negotiated(ID)).toEqual({ id: ID_V2, settings: { version: '1.0' } });
    expect(ctx.negotiated(ID_V2)).toEqual({ id: ID_V2, settings: { version: '1.0' } });
    expect(ctx.negotiated(OTHER_ID)).toBeUndefined();
    expect(ctx.negotiated('io.github.mcp-ext/unknown')).toBeUndefined();
    expect(logger.warnings).toEqual([]);
  });

  it('still takes the npm name, deprecated: one warning per logger and name, naming the identifier', () => {
    const logger = recordingLogger();
    const ctx = contextFor(table, logger);
    expect(ctx.negotiated(NAME)).toEqual({ id: ID_V2, settings: { version: '1.0' } });
    expect(ctx.negotiated(NAME)?.id).toBe(ID_V2);
    expect(contextFor(table, logger).negotiated(NAME)?.id).toBe(ID_V2);
    expect(logger.warnings).toHaveLength(1);
    expect(logger.warnings[0]).toContain(`ctx.negotiated('${NAME}') is deprecated`);
    expect(logger.warnings[0]).toContain(`'${ID}'`);
    expect(ctx.negotiated('@ext/other')).toBeUndefined();
    expect(logger.warnings).toHaveLength(2);
    const another = recordingLogger();
    expect(contextFor(table, another).negotiated(NAME)?.id).toBe(ID_V2);
    expect(another.warnings).toHaveLength(1);
  });

  it('finds an extension serving only a later generation by its first identifier (ERRORS_ID finds errors-v2)', () => {
    const onlyV2 = composeServer([half(NAME, [ID_V2])], { logger: recordingLogger() });
    const ctx = contextFor(onlyV2.negotiate({ [ID_V2]: { version: '1.0' } }), recordingLogger());
    expect(ctx.negotiated(ID)?.id).toBe(ID_V2);
    expect(ctx.negotiated('io.github.mcp-ext/probe-tools')).toBeUndefined();
    expect(ctx.negotiated('com.example/probe')).toBeUndefined();
  });

  it('reads a table built by hand by the identifier agreed on', () => {
    const logger = recordingLogger();
    const ctx = contextFor(new Map([[NAME, { id: ID, settings: { version: '1.0' } }]]), logger);
    expect(ctx.negotiated(ID)?.id).toBe(ID);
    expect(ctx.negotiated(ID_V2)?.id).toBe(ID);
    expect(ctx.negotiated(OTHER_ID)).toBeUndefined();
  });
});

describe.each(TEST_LINES)('negotiated by identifier on %s', (line) => {
  let pair: TestPair | undefined;
  afterEach(async () => {
    await pair?.close();
    pair = undefined;
  });

  it('ctx.negotiated(id) in a tool and client.negotiated(id), the npm name warning once on each side', async () => {
    const serverLogger = recordingLogger();
    const clientLogger = recordingLogger();
    const seen: unknown[] = [];
    pair = await createTestPair({
      line,
      serverExtensions: [half(NAME, [ID])],
      clientExtensions: [clientHalf()],
      serverOptions: { logger: serverLogger },
      clientOptions: { logger: clientLogger },
      setup: (server) => {
        server.registerTool('probe', {}, (_args, ctx) => {
          seen.push(ctx.negotiated(ID)?.id, ctx.negotiated(NAME)?.id);
          return { content: [{ type: 'text', text: 'ok' }] };
        });
      },
    });
    await pair.client.callTool('probe');
    await pair.client.callTool('probe');
    expect(seen).toEqual([ID, ID, ID, ID]);
    expect(serverLogger.warnings.filter((message) => message.includes('is deprecated'))).toHaveLength(1);

    expect(pair.client.negotiated(ID)?.id).toBe(ID);
    expect(pair.client.negotiated(clientHalf())?.id).toBe(ID);
    expect(clientLogger.warnings).toEqual([]);
    expect(pair.client.negotiated(NAME)?.id).toBe(ID);
    expect(pair.client.negotiated(NAME)?.id).toBe(ID);
    expect(clientLogger.warnings).toHaveLength(1);
    expect(clientLogger.warnings[0]).toContain(`client.negotiated('${NAME}') is deprecated`);
  });
});

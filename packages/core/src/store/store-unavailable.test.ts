import { afterEach, describe, expect, it } from 'vitest';
import { StoreUnavailableError } from '../contract/errors.js';
import type { ServerExtension } from '../contract/extension.js';
import { silentLogger } from '../telemetry/logger.js';
import { createTestPair, TEST_LINES, type TestPair } from '../testing/index.js';

const ID = 'io.github.mcp-ext/stateful';

/** An extension whose store is down: its method and its middleware fail as a store in an outage does. */
function stateful(): ServerExtension {
  const outage = (): never => {
    throw new StoreUnavailableError({ reason: 'timeout', cause: new Error('redis://10.0.0.9:6379 did not answer') });
  };
  return { side: 'server', name: '@ext/stateful', ids: [ID], settings: { version: '1.0' }, methods: { read: outage } };
}

const open: TestPair[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((pair) => pair.close()));
});

describe.each(TEST_LINES)('a store outage reaches the peer as what it is, on %s [CORE-30]', (line) => {
  it('an extension method answers a JSON-RPC error whose data is the transient SERVICE_UNAVAILABLE error, naming nothing internal', async () => {
    const pair = await createTestPair({
      line,
      serverExtensions: [stateful()],
      serverOptions: { logger: silentLogger },
    });
    open.push(pair);
    const failure: unknown = await pair.client.request(`${ID}/read`).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toMatchObject({
      code: -31000,
      data: {
        code: 'SERVICE_UNAVAILABLE',
        category: 'transient',
        retry_after_seconds: 1,
        details: { reason: 'timeout' },
      },
    });
    expect(JSON.stringify(failure)).not.toContain('10.0.0.9');
  });

  it('a tool failing with it is an error result with its message, not an internal error', async () => {
    const pair = await createTestPair({
      line,
      serverExtensions: [stateful()],
      serverOptions: { logger: silentLogger },
      setup: (server) => {
        server.registerTool('save', {}, () => {
          throw new StoreUnavailableError({ reason: 'unreachable' });
        });
      },
    });
    open.push(pair);
    const result = await pair.client.callTool('save', {});
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain('The server cannot use its data store right now.');
  });
});

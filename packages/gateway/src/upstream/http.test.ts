// Upstreams over Streamable HTTP: an SDK v2 server on both eras and an SDK v1 server, real servers on real ports.
import { ExtensionError } from '@ext/core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { HttpUpstream } from '../config/schema.js';
import { connectUpstream } from './connection.js';
import type { UpstreamConnection } from './types.js';
import { recordingLogger, REFUSED_CREDENTIALS, serveV1, serveV2, type V2Upstream } from './testing/servers.js';

const clientInfo = { name: 'gateway-test', version: '0.0.0' };

/** The error `promise` rejects with, which must be an `ExtensionError`. */
async function rejection(promise: Promise<unknown>): Promise<ExtensionError> {
  const error: unknown = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  if (!ExtensionError.isInstance(error)) throw new Error(`expected an ExtensionError, got ${String(error)}`);
  return error;
}

function text(result: { content?: unknown }): string {
  const [first] = (result.content ?? []) as { type: string; text?: string }[];
  return first?.text ?? '';
}

describe.each(['2025-11-25', '2026-07-28'] as const)('an SDK v2 upstream spoken to in the %s era', (protocol) => {
  let server: V2Upstream;
  let connection: UpstreamConnection;
  const logger = recordingLogger();
  const open: UpstreamConnection[] = [];

  async function connect(extra: Partial<HttpUpstream> = {}): Promise<UpstreamConnection> {
    const made = await connectUpstream('api', { url: server.url, protocol, ...extra }, { logger, clientInfo });
    open.push(made);
    return made;
  }

  beforeAll(async () => {
    server = await serveV2();
    connection = await connect({ headers: { authorization: 'Bearer upstream-secret' } });
  });
  afterEach(() => {
    server.releaseAll();
  });
  afterAll(async () => {
    await Promise.all(open.map((made) => made.close()));
    await server.close();
  });

  it('lists the tools with their fields as the upstream lists them, and calls one', async () => {
    const tools = await connection.tools();
    expect(tools.map((tool) => tool.name)).toEqual(['echo', 'fail', 'slow']);
    expect(tools[0]).toMatchObject({
      name: 'echo',
      title: 'Echo',
      description: 'Says the text back.',
      inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
      outputSchema: { type: 'object', properties: { echoed: { type: 'string' } } },
      annotations: { readOnlyHint: true },
      _meta: { 'example.com/kind': 'echo' },
    });
    const result = await connection.callTool('echo', { text: 'hello' });
    expect(result).toMatchObject({
      content: [{ type: 'text', text: 'hello' }],
      structuredContent: { echoed: 'hello' },
    });
  });

  it('sends the configured headers with every request', async () => {
    await connection.callTool('echo', { text: 'with credentials' });
    const mine = server.authorizations.filter((value) => value !== null);
    expect(mine.length).toBeGreaterThan(0);
    expect(new Set(mine)).toEqual(new Set(['Bearer upstream-secret']));
  });

  it('passes a tool error through as it is', async () => {
    const result = await connection.callTool('fail', {});
    expect(result).toMatchObject({ isError: true, content: [{ type: 'text', text: 'the tool failed' }] });
  });

  it('turns a JSON-RPC invalid-params error into a readable invalid_input error', async () => {
    const error = await rejection(connection.callTool('nope', {}));
    expect(error).toMatchObject({ category: 'invalid_input', code: 'UPSTREAM_INVALID_PARAMS' });
    expect(error.message).toBe('Upstream "api": Tool nope not found');
    expect(error.details).toMatchObject({ upstream: 'api', upstream_code: -32602 });
  });

  it('passes on that the upstream tool list changed, and lists it again', async () => {
    if (protocol === '2025-11-25') await server.legacyStreamOpen;
    const changed = new Promise<void>((resolve) => connection.onToolsChanged(resolve));
    const name = `late_${protocol.slice(0, 4)}`;
    server.addTool(name);
    await changed;
    const tools = await connection.tools();
    expect(tools.map((tool) => tool.name)).toContain(name);
    expect(text(await connection.callTool(name, {}))).toBe(`added ${name}`);
  });

  it('cancels the upstream request when the caller aborts', async () => {
    const controller = new AbortController();
    const label = `abort-${protocol}`;
    const call = connection.callTool('slow', { label }, { signal: controller.signal });
    await server.whenStarted(label);
    controller.abort(new Error('caller went away'));
    await expect(call).rejects.toThrow('caller went away');
    await server.whenAborted(label);
    expect(server.aborted).toContain(label);
  });

  it('reports an upstream too slow to answer as a transient UPSTREAM_TIMEOUT and cancels its request', async () => {
    const slow = await connect({ timeoutMs: 2000 });
    const label = `timeout-${protocol}`;
    const error = await rejection(slow.callTool('slow', { label }));
    expect(error).toMatchObject({ category: 'transient', code: 'UPSTREAM_TIMEOUT' });
    expect(error.message).toBe('Upstream "api" did not answer tools/call within 2000 ms');
    expect(error.toStructured().retry_after_seconds).toBeGreaterThan(0);
    await server.whenAborted(label);
    // The connection still serves.
    expect(text(await slow.callTool('echo', { text: 'still here' }))).toBe('still here');
  });
});

describe('an HTTP upstream that goes away', () => {
  it('fails to connect with a transient UPSTREAM_UNAVAILABLE naming it', async () => {
    const server = await serveV2();
    const url = server.url;
    await server.close();
    const logger = recordingLogger();
    const error = await rejection(connectUpstream('gone', { url, protocol: '2025-11-25' }, { logger, clientInfo }));
    expect(error).toMatchObject({ category: 'transient', code: 'UPSTREAM_UNAVAILABLE' });
    expect(error.message).toMatch(/^Upstream "gone" is unavailable: it cannot be reached \(.*ECONNREFUSED.*\)$/);
    expect(error.retryAfterSeconds).toBeGreaterThan(0);
  });

  it('connects again, once, when its session is gone, and the call is answered', async () => {
    const server = await serveV2();
    const logger = recordingLogger();
    const connection = await connectUpstream(
      'api',
      { url: server.url, protocol: '2025-11-25' },
      { logger, clientInfo },
    );
    try {
      await server.forgetSessions();
      expect(text(await connection.callTool('echo', { text: 'after a restart' }))).toBe('after a restart');
      expect(logger.warnings()).toEqual([]);
    } finally {
      await connection.close();
      await server.close();
    }
  });

  it.each(['auto', '2025-11-25', '2026-07-28'] as const)(
    'refusing the configured credentials (protocol %s) is a permanent UPSTREAM_REJECTED',
    async (protocol) => {
      const server = await serveV2();
      try {
        const error = await rejection(
          connectUpstream(
            'api',
            { url: server.url, protocol, headers: { authorization: REFUSED_CREDENTIALS } },
            { logger: recordingLogger(), clientInfo },
          ),
        );
        expect(error).toMatchObject({ category: 'permanent', code: 'UPSTREAM_REJECTED' });
        expect(error.message).toBe('Upstream "api" refused the gateway\'s credentials (HTTP 401)');
      } finally {
        await server.close();
      }
    },
  );

  it('fails calls once it goes away, logging the outage once', async () => {
    const server = await serveV2();
    const logger = recordingLogger();
    const connection = await connectUpstream(
      'api',
      { url: server.url, protocol: '2025-11-25' },
      { logger, clientInfo },
    );
    try {
      await server.close();
      const first = await rejection(connection.callTool('echo', { text: 'a' }));
      const second = await rejection(connection.callTool('echo', { text: 'b' }));
      for (const error of [first, second]) {
        expect(error).toMatchObject({ category: 'transient', code: 'UPSTREAM_UNAVAILABLE' });
        expect(error.message).toContain('Upstream "api" is unavailable');
        expect(error.toStructured().retry_after_seconds).toBeGreaterThan(0);
      }
      expect(logger.warnings().filter((entry) => entry.details?.code === 'UPSTREAM_UNAVAILABLE')).toHaveLength(1);
    } finally {
      await connection.close();
    }
  });
});

describe('an SDK v1 upstream over HTTP', () => {
  let server: { url: string; close(): Promise<void> };
  const logger = recordingLogger();
  beforeAll(async () => {
    server = await serveV1();
  });
  afterAll(async () => {
    await server.close();
  });

  it.each(['auto', '2025-11-25'] as const)('is spoken to with protocol %s: listing and calling', async (protocol) => {
    const connection = await connectUpstream('v1', { url: server.url, protocol }, { logger, clientInfo });
    try {
      expect((await connection.tools()).map((tool) => tool.name)).toEqual(['echo', 'crash']);
      expect(text(await connection.callTool('echo', { text: 'from v1' }))).toBe('from v1');
    } finally {
      await connection.close();
    }
  });

  it('turns another JSON-RPC error into a permanent error keeping the upstream message and code', async () => {
    const connection = await connectUpstream('v1', { url: server.url }, { logger, clientInfo });
    try {
      const error = await rejection(connection.callTool('crash', {}));
      expect(error).toMatchObject({ category: 'permanent', code: 'UPSTREAM_ERROR' });
      expect(error.message).toBe('Upstream "v1": database is down');
      expect(error.details).toMatchObject({ upstream: 'v1', upstream_code: -32603 });
    } finally {
      await connection.close();
    }
  });

  it('cannot be pinned to the 2026-07-28 era it does not speak', async () => {
    const error = await rejection(
      connectUpstream('v1', { url: server.url, protocol: '2026-07-28' }, { logger, clientInfo }),
    );
    expect(error).toMatchObject({ category: 'permanent', code: 'UPSTREAM_INCOMPATIBLE' });
    expect(error.message).toContain('Upstream "v1"');
  });
});

describe('a 2026-07-28 upstream whose tool-change stream is cut', () => {
  it('is listened to again, and its changes still reach the gateway', async () => {
    const server = await serveV2();
    const logger = recordingLogger();
    const connection = await connectUpstream(
      'api',
      { url: server.url, protocol: '2026-07-28' },
      { logger, clientInfo },
    );
    try {
      await server.whenListens(1);
      // A stream that lasted a while (not one the server ends at once) is listened to again.
      await new Promise((resolve) => setTimeout(resolve, 1100));
      const lost = new Promise<void>((resolve) => {
        const off = connection.onToolsChanged(() => {
          off();
          resolve();
        });
      });
      server.dropListenStreams();
      // Changes sent while nobody listened are lost: the loss itself is passed on.
      await lost;
      await server.whenListens(2);
      const changed = new Promise<void>((resolve) => connection.onToolsChanged(resolve));
      server.addTool('after_cut');
      await changed;
      expect((await connection.tools()).map((tool) => tool.name)).toContain('after_cut');
    } finally {
      await connection.close();
      await server.close();
    }
  });
});

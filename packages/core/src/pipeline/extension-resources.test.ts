import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer as V1McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ReadResourceRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { McpServer } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import { ExtensionError } from '../contract/errors.js';
import type { ServerExtension } from '../contract/extension.js';
import { silentLogger } from '../telemetry/logger.js';
import { extendServer as extendV1Server } from '../sdk-v1/server.js';
import { createHttpHandler, extendServer } from '../sdk-v2/server.js';
import type { TestLine } from '../testing/pair.js';

const LINES: readonly TestLine[] = ['v1', 'v2-legacy', 'v2-modern'];

/** A half that owns the `fixture:` URIs: answers them with the caller, refuses `fixture:refused`, fails on `fixture:broken`. */
const fixture: ServerExtension = {
  side: 'server',
  name: '@ext/fixture',
  ids: ['io.github.mcp-ext/fixture'],
  settings: { version: '1.0' },
  resources: {
    owns: (uri) => uri.startsWith('fixture:'),
    read(uri, ctx) {
      if (uri === 'fixture:refused')
        throw new ExtensionError('invalid_input', 'FIXTURE_REFUSED', 'the fixture refused', { details: { uri } });
      if (uri === 'fixture:broken') throw new Error('the fixture broke');
      return Promise.resolve({ contents: [{ uri, mimeType: 'text/plain', text: `read for ${ctx.principal}` }] });
    },
  },
};

/** How the application serves its own resources beside the extension's. */
type AppResources = 'none' | 'registered' | 'low-level';

interface Plain {
  read(uri: string): Promise<{ contents: unknown[] }>;
  list(): Promise<string[]>;
  capabilities(): Record<string, unknown> | undefined;
  close(): Promise<void>;
}

const appContents = (uri: string) => ({ contents: [{ uri, mimeType: 'text/plain', text: `app: ${uri}` }] });

function v1Server(extensions: ServerExtension[], app: AppResources): V1McpServer {
  const server = new V1McpServer({ name: 's', version: '0' });
  // Registered before extendServer: the router goes in front of McpServer's handler all the same.
  if (app === 'registered') server.registerResource('notes', 'app://notes', {}, (uri) => appContents(uri.href));
  extendV1Server(server, extensions, { logger: silentLogger });
  if (app === 'low-level') {
    server.server.registerCapabilities({ resources: {} });
    server.server.setRequestHandler(ReadResourceRequestSchema, (request) => appContents(request.params.uri));
  }
  return server;
}

function v2Server(extensions: ServerExtension[], app: AppResources): McpServer {
  const server = new McpServer({ name: 's', version: '0' });
  extendServer(server, extensions, { logger: silentLogger });
  // Registered after extendServer: McpServer's lazily installed handler goes behind the router.
  if (app === 'registered') server.registerResource('notes', 'app://notes', {}, (uri) => appContents(uri.href));
  if (app === 'low-level')
    server.server.setRequestHandler('resources/read', (request) => appContents(request.params.uri));
  return server;
}

async function connect(line: TestLine, extensions: ServerExtension[], app: AppResources): Promise<Plain> {
  if (line === 'v1') {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const server = v1Server(extensions, app);
    await server.connect(serverSide);
    const client = new V1Client({ name: 'plain', version: '0' });
    await client.connect(clientSide);
    return {
      read: (uri) => client.readResource({ uri }),
      list: async () => (await client.listResources()).resources.map((resource) => resource.uri),
      capabilities: () => client.getServerCapabilities(),
      close: async () => {
        await client.close();
        await server.close();
      },
    };
  }
  const handler = createHttpHandler(() => v2Server(extensions, app), { anonymous: 'shared', logger: silentLogger });
  const client = new Client(
    { name: 'plain', version: '0' },
    { versionNegotiation: { mode: line === 'v2-modern' ? { pin: '2026-07-28' } : 'legacy' } },
  );
  const fetch = (url: string | URL, init?: RequestInit) => handler.fetch(new Request(url, init));
  await client.connect(new StreamableHTTPClientTransport(new URL('http://mcp.test/mcp'), { fetch }));
  return {
    read: (uri) => client.readResource({ uri }),
    list: async () => (await client.listResources()).resources.map((resource) => resource.uri),
    capabilities: () => client.getServerCapabilities(),
    close: async () => {
      await client.close();
      await handler.close();
    },
  };
}

interface Failure {
  readonly code?: unknown;
  readonly data?: { readonly details?: Record<string, unknown> } & Record<string, unknown>;
}

async function failure(promise: Promise<unknown>): Promise<Failure> {
  return promise.then(
    () => ({}),
    (error: unknown) => error as Failure,
  );
}

const open: Plain[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((client) => client.close()));
});

async function plain(line: TestLine, extensions: ServerExtension[], app: AppResources): Promise<Plain> {
  const client = await connect(line, extensions, app);
  open.push(client);
  return client;
}

describe.each(LINES)('extension resources on %s (CORE-38)', (line) => {
  it('advertises resources only when a composed half serves them, and answers its URIs with the caller', async () => {
    expect((await plain(line, [], 'none')).capabilities()?.resources).toBeUndefined();
    const client = await plain(line, [fixture], 'none');
    expect(client.capabilities()?.resources).toBeDefined();
    const principal = line === 'v1' ? 'local' : 'anonymous';
    expect((await client.read('fixture:a')).contents).toEqual([
      { uri: 'fixture:a', mimeType: 'text/plain', text: `read for ${principal}` },
    ]);
    // Not listed: resources/list stays the application's (empty here).
    expect(await client.list()).toEqual([]);
  });

  it("passes every other URI to the application's registered resources, which still list", async () => {
    const client = await plain(line, [fixture], 'registered');
    expect((await client.read('app://notes')).contents).toEqual([
      { uri: 'app://notes', mimeType: 'text/plain', text: 'app: app://notes' },
    ]);
    expect((await client.read('fixture:b')).contents).toHaveLength(1);
    expect(await client.list()).toEqual(['app://notes']);
  });

  it('keeps a low-level resources/read handler of the application behind the router', async () => {
    const client = await plain(line, [fixture], 'low-level');
    expect((await client.read('other://x')).contents).toEqual([
      { uri: 'other://x', mimeType: 'text/plain', text: 'app: other://x' },
    ]);
    expect((await client.read('fixture:c')).contents).toEqual([
      expect.objectContaining({ uri: 'fixture:c', text: expect.stringMatching(/^read for /) as unknown }),
    ]);
  });

  it("sends a half's refusal as its JSON-RPC error, and an internal failure with a correlation id", async () => {
    const client = await plain(line, [fixture], 'none');
    const refused = await failure(client.read('fixture:refused'));
    expect(refused.code).toBe(-32602);
    expect(refused.data).toMatchObject({ code: 'FIXTURE_REFUSED', category: 'invalid_input' });
    const broken = await failure(client.read('fixture:broken'));
    expect(broken.code).toBe(-32603);
    expect(broken.data).toMatchObject({ code: 'INTERNAL_ERROR' });
    expect(broken.data?.details?.correlation_id).toMatch(/^[0-9a-f]{16}$/);
  });
});

/**
 * Each v1 patch against the installed `@modelcontextprotocol/sdk`: a version
 * that moves what a patch reaches for fails here, by name, before the
 * adapter's own tests fail for reasons further away.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { afterEach, describe, expect, it } from 'vitest';
import {
  hookConnect,
  installedRequestHandler,
  interceptHandlerRegistration,
  replaceToolRegistration,
  serverInfoOf,
} from './sdk-patches.js';
import { methodOf } from './shared.js';

const closers: (() => Promise<void>)[] = [];

afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

async function connected(server: McpServer): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'c', version: '0' });
  await client.connect(clientSide);
  closers.push(
    () => client.close(),
    () => server.close(),
  );
  return client;
}

describe('sdk-v1 patches against the installed SDK', () => {
  it('sees the handlers McpServer installs with its first tool, and finds them installed', () => {
    const server = new McpServer({ name: 's', version: '1' });
    const registered: unknown[] = [];
    interceptHandlerRegistration(server.server, (next) => (schema, handler) => {
      registered.push(methodOf(schema));
      next(schema, handler);
    });
    expect(() => installedRequestHandler(server.server, 'tools/call')).toThrow(
      expect.objectContaining({ code: 'UNSUPPORTED_SDK' }),
    );
    server.registerTool('t', {}, () => ({ content: [] }));
    expect(registered).toEqual(expect.arrayContaining(['tools/list', 'tools/call']));
    expect(installedRequestHandler(server.server, 'tools/call')).toBeTypeOf('function');
    expect(installedRequestHandler(server.server, 'initialize')).toBeTypeOf('function');
  });

  it('reads the identity the server was constructed with', () => {
    const server = new McpServer({ name: 'named', version: '3.1.4' });
    expect(serverInfoOf(server.server)).toMatchObject({ name: 'named', version: '3.1.4' });
  });

  it('refuses registerTool and tool on the instance only, and the original still registers', async () => {
    const server = new McpServer({ name: 's', version: '1' });
    const original = replaceToolRegistration(server, (what) => () => {
      throw new Error(`refused ${what}`);
    });
    expect(() => server.registerTool('direct', {}, () => ({ content: [] }))).toThrow('refused McpServer.registerTool');
    // eslint-disable-next-line @typescript-eslint/no-deprecated -- the deprecated path must be closed too
    expect(() => server.tool('old', () => ({ content: [] }))).toThrow('refused McpServer.tool');
    original('kept', {}, () => ({ content: [] }));
    const client = await connected(server);
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['kept']);
  });

  it('hands over each transport before connecting, and the onclose set then still hears the close', async () => {
    const server = new McpServer({ name: 's', version: '1' });
    const transports: Transport[] = [];
    let closed = 0;
    hookConnect(server.server, (transport) => {
      transports.push(transport);
      transport.onclose = () => {
        closed++;
      };
    });
    const client = await connected(server);
    expect(transports).toHaveLength(1);
    await client.close();
    await server.close();
    expect(closed).toBeGreaterThan(0);
  });
});

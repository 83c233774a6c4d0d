/**
 * Each v2 patch against the installed `@modelcontextprotocol/server`: a
 * version that moves what a patch reaches for fails here, by name, before
 * the adapter's own tests fail for reasons further away.
 */
import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport, McpServer, type Transport } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  gateFallbackRequestHandler,
  hookConnect,
  installedRequestHandler,
  interceptHandlerRegistration,
  observeDispatch,
  observeInstalledRequests,
  replaceRegisterTool,
  serverInfoOf,
} from './sdk-patches.js';

const anyResult = z.looseObject({});
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

describe('sdk-v2 patches against the installed SDK', () => {
  it('sees the handlers McpServer installs with its first tool, and finds them installed', () => {
    const server = new McpServer({ name: 's', version: '1' });
    const registered: string[] = [];
    interceptHandlerRegistration(server.server, (next) => (method, ...rest) => {
      registered.push(method);
      next(method, ...rest);
    });
    expect(installedRequestHandler(server.server, 'tools/call')).toBeUndefined();
    server.registerTool('t', {}, () => ({ content: [] }));
    expect(registered).toEqual(expect.arrayContaining(['tools/list', 'tools/call']));
    expect(installedRequestHandler(server.server, 'tools/call')).toBeTypeOf('function');
  });

  it('shows a tools/call param the SDK validation drops to the observer, then runs the tool', async () => {
    const server = new McpServer({ name: 's', version: '1' });
    server.registerTool('t', {}, () => ({ content: [{ type: 'text', text: 'ran' }] }));
    const observed: unknown[] = [];
    observeInstalledRequests(server.server, 'tools/call', (request) => observed.push(request.params));
    const client = await connected(server);
    const result = await client.request({ method: 'tools/call', params: { name: 't', arguments: {}, draft: 7 } });
    expect(result).toMatchObject({ content: [{ type: 'text', text: 'ran' }] });
    expect(observed).toEqual([expect.objectContaining({ name: 't', draft: 7 })]);
  });

  it('reads the identity the server was constructed with', () => {
    const server = new McpServer({ name: 'named', version: '3.1.4' });
    expect(serverInfoOf(server.server)).toMatchObject({ name: 'named', version: '3.1.4' });
  });

  it('replaces registerTool on the instance only, and the original still registers', async () => {
    const server = new McpServer({ name: 's', version: '1' });
    const original = replaceRegisterTool(server, () => {
      throw new Error('refused');
    });
    expect(() => server.registerTool('direct', {}, () => ({ content: [] }))).toThrow('refused');
    original('kept', {}, () => ({ content: [] }));
    expect(
      new McpServer({ name: 'other', version: '1' }).registerTool('fine', {}, () => ({ content: [] })),
    ).toBeTruthy();
    const client = await connected(server);
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['kept']);
  });

  it('offers the fallback only while a method it serves dispatches, keeping the one the application sets', async () => {
    const server = new McpServer({ name: 's', version: '1' });
    let dispatching: string | undefined;
    const transports: Transport[] = [];
    hookConnect(server.server, {
      connecting: (transport) => transports.push(transport),
      connected: (transport) => {
        observeDispatch(transport, (method) => {
          dispatching = method;
        });
      },
    });
    gateFallbackRequestHandler(
      server.server,
      (other) => async (request, ctx) =>
        request.method === 'x/ours' ? { ours: true } : ((await other()?.(request, ctx)) ?? { none: true }),
      () => dispatching === undefined || dispatching === 'x/ours',
    );
    const client = await connected(server);
    expect(transports).toHaveLength(1);
    await expect(client.request({ method: 'x/ours' }, anyResult)).resolves.toEqual({ ours: true });
    await expect(client.request({ method: 'x/else' }, anyResult)).rejects.toMatchObject({ code: -32601 });
    server.server.fallbackRequestHandler = () => Promise.resolve({ app: true });
    await expect(client.request({ method: 'x/else' }, anyResult)).resolves.toEqual({ app: true });
    await expect(client.request({ method: 'x/ours' }, anyResult)).resolves.toEqual({ ours: true });
    expect(dispatching).toBeUndefined();
  });
});

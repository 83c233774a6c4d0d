/**
 * One gateway, every kind of client: our client halves, a plain SDK v2
 * client on both eras, a plain SDK v1 client and the AI SDK's MCP client,
 * each in front of the unmodified server-memory. Then HTTP upstreams: an
 * SDK v2 server spoken to on 2026-07-28 and an SDK v1 server, proxied side
 * by side; a change of an upstream's tools reaching a connected client; an
 * upstream that stops answering.
 */
import { join } from 'node:path';
import { CONFIRMATION_ID } from '@ext/confirmation';
import { callWithConfirmation, confirmationClient, confirmationElicitationHandler } from '@ext/confirmation/client';
import { COST_ID } from '@ext/cost';
import { costClient } from '@ext/cost/client';
import { errorsClient } from '@ext/errors/client';
import { IDEMPOTENCY_ID } from '@ext/idempotency';
import { idempotencyClient } from '@ext/idempotency/client';
import { provenanceClient } from '@ext/provenance/client';
import { transactionsClient } from '@ext/transactions/client';
import { Client } from '@modelcontextprotocol/client';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { serveV1, serveV2, type V2Upstream } from '../upstream/testing/servers.js';
import {
  closeAfter,
  closeAfterEach,
  connectClient,
  entitiesOnDisk,
  ERAS,
  eraOptions,
  errorOf,
  gatewayConfig,
  memoryUpstream,
  plainClient,
  serveGateway,
  tempDir,
  textOf,
  v1Client,
  watchToolList,
  type Era,
  type ServedGateway,
} from './support.js';

closeAfterEach();

const NODE_MAJOR = Number(process.versions.node.split('.')[0]);
// @ai-sdk/mcp declares `engines.node >= 22`; `pnpm test` runs the suite again on Node 24.
const AI_SDK_NODE = NODE_MAJOR >= 22;

interface MemoryGateway extends ServedGateway {
  readonly file: string;
}

async function memoryGateway(): Promise<MemoryGateway> {
  const file = join(await tempDir('memory'), 'memory.jsonl');
  const config = gatewayConfig({
    upstreams: { memory: memoryUpstream(file) },
    policy: { 'create_*': { cost: { units: 1, unit: 'writes' } } },
    identity: { anonymous: true },
    store: 'memory',
  });
  return { ...(await serveGateway(config)), file };
}

const ADA = { name: 'ada', entityType: 'person', observations: ['wrote the first program'] };
const MEMORY_TOOLS = [
  'create_entities',
  'create_relations',
  'add_observations',
  'delete_entities',
  'delete_observations',
  'delete_relations',
  'read_graph',
  'search_nodes',
  'open_nodes',
];

describe('clients of one gateway in front of server-memory', () => {
  it.each(ERAS)('our client halves (%s): the policy in _meta, a write, a gated delete approved', async (era) => {
    const served = await memoryGateway();
    const { client } = await connectClient(served.url, {
      era,
      extensions: [errorsClient(), confirmationClient(), idempotencyClient(), costClient(), transactionsClient()],
    });
    expect(client.negotiated(CONFIRMATION_ID)).toBeDefined();
    const tools = new Map((await client.listTools()).map((tool) => [tool.name, tool]));
    expect([...tools.keys()]).toEqual(MEMORY_TOOLS);
    expect(tools.get('delete_entities')?._meta?.[CONFIRMATION_ID]).toMatchObject({ requires_confirmation: true });
    expect(tools.get('create_entities')?._meta?.[COST_ID]).toMatchObject({ cost: { unit_label: 'writes' } });
    expect(tools.get('read_graph')?._meta?.[IDEMPOTENCY_ID]).toEqual({ idempotent_capable: false });

    expect((await client.callTool('create_entities', { entities: [ADA] })).isError).toBeFalsy();
    const deleted = await callWithConfirmation(
      client,
      'delete_entities',
      { entityNames: ['ada'] },
      { confirm: () => Promise.resolve(true) },
    );
    expect(deleted.isError).toBeFalsy();
    expect(await entitiesOnDisk(served.file)).toEqual([]);
  });

  it.each(ERAS)('a plain SDK v2 client (%s): lists, writes and reads; the gated delete is refused', async (era) => {
    const served = await memoryGateway();
    const sdk = await plainClient(served.url, era);
    expect(sdk.getProtocolEra()).toBe(era);
    const { tools } = await sdk.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(MEMORY_TOOLS);

    const created = await sdk.callTool({ name: 'create_entities', arguments: { entities: [ADA] } });
    expect(created.structuredContent).toEqual({ entities: [ADA] });
    const graph = await sdk.callTool({ name: 'read_graph', arguments: {} });
    expect(graph.structuredContent).toEqual({ entities: [ADA], relations: [] });
    const refused = await sdk.callTool({ name: 'delete_entities', arguments: { entityNames: ['ada'] } });
    expect(refused.isError).toBe(true);
    expect(await entitiesOnDisk(served.file)).toEqual(['ada']);
  });

  it('a plain SDK v1 client: lists, writes and reads; the gated delete is refused', async () => {
    const served = await memoryGateway();
    const sdk = await v1Client(served.url);
    const { tools } = await sdk.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(MEMORY_TOOLS);

    const created = await sdk.callTool({ name: 'create_entities', arguments: { entities: [ADA] } });
    expect(created.structuredContent).toEqual({ entities: [ADA] });
    const refused = await sdk.callTool({ name: 'delete_entities', arguments: { entityNames: ['ada'] } });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toContain('the call was not executed');
    expect(await entitiesOnDisk(served.file)).toEqual(['ada']);
  });

  it('an SDK v1 client that can elicit is asked in-band, and the delete runs on its yes', async () => {
    const served = await memoryGateway();
    const sdk = new V1Client({ name: 'v1-host', version: '0.0.0' }, { capabilities: { elicitation: { form: {} } } });
    const asked: string[] = [];
    sdk.setRequestHandler(
      ElicitRequestSchema,
      confirmationElicitationHandler((request) => {
        asked.push(request.kind === 'call' ? request.tool : request.kind);
        return Promise.resolve(true);
      }),
    );
    await sdk.connect(new V1Transport(served.url));
    closeAfter(() => sdk.close());

    await sdk.callTool({ name: 'create_entities', arguments: { entities: [ADA] } });
    const deleted = await sdk.callTool({ name: 'delete_entities', arguments: { entityNames: ['ada'] } });
    expect(deleted.isError).toBeFalsy();
    expect(asked).toEqual(['delete_entities']);
    expect(await entitiesOnDisk(served.file)).toEqual([]);
  });

  describe.skipIf(!AI_SDK_NODE)('the AI SDK MCP client (skipped before Node 22: @ai-sdk/mcp needs it)', () => {
    it.each([
      { discovery: true, protocolVersion: '2026-07-28' },
      { discovery: false, protocolVersion: '2025-11-25' },
    ])('protocol $protocolVersion: lists the tools and runs one as an AI SDK tool', async (expected) => {
      const served = await memoryGateway();
      // Loaded here, so that on an older Node the file still loads and these tests are reported as skipped.
      const { createMCPClient } = await import('@ai-sdk/mcp');
      const client = await createMCPClient({
        transport: { type: 'http', url: served.url.href },
        protocolVersionDiscovery: expected.discovery,
      });
      closeAfter(() => client.close());
      expect(client.initializeResult.protocolVersion).toBe(expected.protocolVersion);

      const listed = await client.listTools();
      expect(listed.tools.map((tool) => tool.name)).toEqual(MEMORY_TOOLS);
      const tools = await client.tools();
      const create = tools.create_entities;
      if (create?.execute === undefined) throw new Error('create_entities is not an executable AI SDK tool');
      const created = (await create.execute(
        { entities: [ADA] },
        { toolCallId: 'call-1', messages: [], context: {} },
      )) as {
        isError?: boolean;
      };
      expect(created.isError).toBeFalsy();
      expect(await entitiesOnDisk(served.file)).toEqual(['ada']);

      const refused = await client.callTool({ name: 'delete_entities', arguments: { entityNames: ['ada'] } });
      expect(refused.isError).toBe(true);
      expect(await entitiesOnDisk(served.file)).toEqual(['ada']);
    });
  });
});

/** A gateway in front of an SDK v2 server spoken to on 2026-07-28 and an SDK v1 server. */
async function httpUpstreamsGateway(policy: Record<string, unknown> = {}) {
  const modern = await serveV2();
  closeAfter(() => modern.close());
  const legacy = await serveV1();
  closeAfter(() => legacy.close());
  const config = gatewayConfig({
    upstreams: {
      modern: { url: modern.url, protocol: '2026-07-28', timeoutMs: 5000 },
      legacy: { url: legacy.url },
    },
    policy,
    identity: { anonymous: true },
    store: 'memory',
  });
  return { modern, legacy, served: await serveGateway(config) };
}

/**
 * An SDK v2 client on `era` watching the gateway's tool list, returned once
 * the gateway listens for the upstream's changes (2026-07-28) and the client
 * for the gateway's (its `GET` stream, or `subscriptions/listen`).
 */
async function watchingClient(
  { modern, served }: { readonly modern: V2Upstream; readonly served: ServedGateway },
  era: Era,
): Promise<{ readonly sdk: Client; readonly changed: Promise<string[]> }> {
  const watch = watchToolList();
  const sdk = new Client({ name: 'watcher', version: '0.0.0' }, { ...eraOptions(era), listChanged: watch.listChanged });
  await sdk.connect(new StreamableHTTPClientTransport(served.url));
  closeAfter(() => sdk.close());
  await modern.whenListens(1);
  await (era === 'legacy' ? served.streamOpen : served.listenOpen);
  return { sdk, changed: watch.changed };
}

function names(tools: readonly { name: string }[] | null | undefined): string[] {
  return (tools ?? []).map((tool) => tool.name);
}

describe('HTTP upstreams behind the gateway', () => {
  it.each(ERAS)('an SDK v2 upstream on 2026-07-28 and an SDK v1 upstream, proxied (%s client)', async (era) => {
    const { served } = await httpUpstreamsGateway();
    const { client } = await connectClient(served.url, { era, extensions: [errorsClient(), provenanceClient()] });
    const listed = (await client.listTools()).map((tool) => tool.name);
    expect(listed).toEqual(['modern__echo', 'modern__fail', 'modern__slow', 'legacy__echo', 'legacy__crash']);

    const echoed = await client.callTool('modern__echo', { text: 'over 2026-07-28' });
    expect(echoed.structuredContent).toEqual({ echoed: 'over 2026-07-28' });
    expect(textOf(await client.callTool('legacy__echo', { text: 'over v1' }))).toBe('over v1');

    const failed = await client.callTool('modern__fail', {});
    expect(failed.isError).toBe(true);
    expect(textOf(failed)).toBe('the tool failed');
    const crashed = await client.callTool('legacy__crash', {});
    expect(errorOf(crashed)).toMatchObject({ category: 'permanent', code: 'UPSTREAM_ERROR' });
    expect(textOf(crashed)).toContain('database is down');
  });

  it('a tool added upstream reaches a client in a 2025-era session: tools/list_changed, then the new list', async () => {
    const gateway = await httpUpstreamsGateway();
    const { sdk, changed } = await watchingClient(gateway, 'legacy');
    expect(names((await sdk.listTools()).tools)).not.toContain('modern__later');

    gateway.modern.addTool('later');
    expect(await changed).toContain('modern__later');
    const called = await sdk.callTool({ name: 'modern__later', arguments: {} });
    expect(textOf(called)).toBe('added later');
  });

  it('a tool added upstream reaches a 2026-07-28 client listening for changes (subscriptions/listen)', async () => {
    const gateway = await httpUpstreamsGateway();
    const { sdk, changed } = await watchingClient(gateway, 'modern');
    expect(names((await sdk.listTools()).tools)).not.toContain('modern__later');

    gateway.modern.addTool('later');
    expect(await changed).toContain('modern__later');
    expect(textOf(await sdk.callTool({ name: 'modern__later', arguments: {} }))).toBe('added later');
  });

  it('a session set up without the scope a new tool needs is not given it; a new session gets it, checked (GW-19)', async () => {
    const gateway = await httpUpstreamsGateway({ '*later': { scopes: ['notes:admin'] } });
    const { sdk: early, changed } = await watchingClient(gateway, 'legacy');

    gateway.modern.addTool('later');
    expect(await changed).not.toContain('modern__later');
    const unknown = await early.callTool({ name: 'modern__later', arguments: {} }).catch((error: unknown) => error);
    expect(JSON.stringify(unknown, Object.getOwnPropertyNames(unknown))).toMatch(/not found|unknown tool/i);

    const { client } = await connectClient(gateway.served.url, { era: 'legacy', extensions: [errorsClient()] });
    expect((await client.listTools()).map((tool) => tool.name)).toContain('modern__later');
    expect(errorOf(await client.callTool('modern__later', {}))).toMatchObject({ code: 'SCOPE_INSUFFICIENT' });
  });

  it('a session whose composition declares the scope gets the new tool, with the scope checked (GW-19)', async () => {
    const gateway = await httpUpstreamsGateway({
      '*echo': { scopes: ['notes:write'] },
      '*later': { scopes: ['notes:write'] },
    });
    const { sdk, changed } = await watchingClient(gateway, 'legacy');

    gateway.modern.addTool('later');
    expect(await changed).toContain('modern__later');
    const refused = await sdk.callTool({ name: 'modern__later', arguments: {} });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(/notes:write/);
  });

  it('an upstream that stops answering gives a transient error with retry_after_seconds', async () => {
    const { modern, served } = await httpUpstreamsGateway();
    const { client } = await connectClient(served.url, { era: 'modern', extensions: [errorsClient()] });
    expect((await client.callTool('modern__echo', { text: 'up' })).isError).toBeFalsy();

    await modern.close();
    const failed = await client.callTool('modern__echo', { text: 'down' });
    const error = errorOf(failed);
    expect(error).toMatchObject({ category: 'transient', code: 'UPSTREAM_UNAVAILABLE' });
    expect(error.retry_after_seconds).toBeGreaterThan(0);
    // The other upstream still answers.
    expect(textOf(await client.callTool('legacy__echo', { text: 'still here' }))).toBe('still here');
  });
});

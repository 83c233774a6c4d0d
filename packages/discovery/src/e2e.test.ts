import { silentLogger } from '@ext/core/kit';
import { WireError, type ExtendedServer } from '@ext/core';
import { createTestPair, seedValidators, TEST_LINES, type TestLine, type TestPair } from '@ext/core/testing';
import { errorsClient, getStructuredError } from '@ext/errors/client';
import { errorsServer } from '@ext/errors/server';
import { readFileSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { describeRecommendation, discoveryClient, getDiscoverySettings, recommendServers } from './client.js';
import { RegistryIndex } from './registry.js';
import { DISCOVERY_ID, type RecommendResult } from './schema.js';
import { discoveryServer, registerDiscoveryTools, type DiscoveryServerOptions } from './server.js';
import { syncRegistry } from './sync.js';
import { startFakeRegistry, type FakeRegistry } from './testing/fake-registry.js';

const fixture = JSON.parse(readFileSync(new URL('./fixtures/registry.json', import.meta.url), 'utf8')) as {
  servers: Record<string, unknown>[];
};
const seedRecommendation = seedValidators().check('service-manifest', 'ServerRecommendation');

const PEERS: DiscoveryServerOptions['peers'] = [
  {
    name: 'com.acme/billing',
    title: 'Acme Billing',
    description: 'Invoices, refunds and subscription plans for Acme customers.',
    keywords: ['payments'],
    url: 'https://billing.acme.example/mcp',
    authFlow: 'oauth2_device',
    registryUrl: 'https://catalog.acme.example/servers/billing',
  },
];

// One registry on 127.0.0.1 for the whole file: the index is synced from it once.
let registry: FakeRegistry;
let index: RegistryIndex;
beforeAll(async () => {
  registry = await startFakeRegistry(JSON.parse(JSON.stringify(fixture.servers)) as Record<string, unknown>[]);
  index = new RegistryIndex();
  await syncRegistry(index, { url: registry.url, pageSize: 50 });
});
afterAll(async () => {
  await registry.close();
});

let pair: TestPair | undefined;
afterEach(async () => {
  await pair?.close();
  pair = undefined;
});

async function connect(
  line: TestLine,
  client: boolean,
  options: DiscoveryServerOptions = {},
  tools = false,
): Promise<TestPair> {
  pair = await createTestPair({
    line,
    serverExtensions: [
      errorsServer(),
      discoveryServer({ index, peers: PEERS, exclude: ['com.postbox/email'], ...options }),
    ],
    clientExtensions: [errorsClient(), client && discoveryClient()],
    serverOptions: { logger: silentLogger },
    clientOptions: { logger: silentLogger },
    setup: (server: ExtendedServer) => {
      if (tools) registerDiscoveryTools(server);
    },
  });
  return pair;
}

describe.each(TEST_LINES)('discovery end to end on %s', (line) => {
  it('DISC-1: the server advertises the extension and its result cap', async () => {
    const { client } = await connect(line, true, { maxResults: 8 });
    expect(client.serverExtensions()[DISCOVERY_ID]).toEqual({ version: '1.0', max_results: 8 });
    expect(getDiscoverySettings(client)).toEqual({ version: '1.0', max_results: 8 });
  });

  it('DISC-7 DISC-8: recommends ranked servers from the synced index, each a seed ServerRecommendation', async () => {
    const { client } = await connect(line, true);
    const before = registry.requests.length;
    const answer = await recommendServers(client, 'design_mockup');
    expect(answer?.capability_needed).toBe('design_mockup');
    expect(answer?.index_size).toBe(60);
    const [first, second] = answer?.recommendations ?? [];
    expect(first).toMatchObject({
      capability: 'design_mockup',
      server_name: 'com.pixelforge/design',
      title: 'PixelForge',
      version: '1.2.0',
      match_confidence: 'high',
      auth_flow: 'oauth2',
      source: 'registry',
      registry_url: `${registry.url}/v0.1/servers/com.pixelforge%2Fdesign/versions/1.2.0`,
      remotes: [{ type: 'streamable-http', url: 'https://mcp.pixelforge.example.com/mcp' }],
      reason: 'Matched "design" in the name, "mockup" (as "mockups") in the description.',
    });
    expect(second).toMatchObject({
      server_name: 'io.github.pencil-labs/wireframe-kit',
      match_confidence: 'medium',
      auth_flow: 'none',
      packages: [
        { registry_type: 'npm', identifier: '@pencil-labs/wireframe-mcp', version: '0.4.2', transport: 'stdio' },
      ],
    });
    for (const recommendation of answer?.recommendations ?? [])
      expect(seedRecommendation(recommendation)).toEqual({ valid: true, errors: '' });
    expect(describeRecommendation(first!)).toBe(
      'PixelForge [com.pixelforge/design] (high): Read PixelForge design files, components and mockups; export frames as PNG or SVG. — connect: https://mcp.pixelforge.example.com/mcp — auth: oauth2',
    );
    // DISC-12: answering never asks the registry anything.
    expect(registry.requests.length).toBe(before);
  });

  it('DISC-5: deprecated and deleted servers and superseded versions are never recommended', async () => {
    const { client } = await connect(line, true);
    const quiz = await recommendServers(client, 'quiz flashcards');
    expect(quiz?.recommendations[0]).toMatchObject({ server_name: 'com.quizly/quiz', version: '1.0.0' });
    const crawl = await recommendServers(client, 'crawler', { maxResults: 20 });
    expect(crawl?.recommendations.map((r) => r.server_name)).not.toContain('io.github.crawlkit/crawler');
  });

  it('DISC-10: configured peers are recommended, ahead of registry entries on equal terms, and excluded names never', async () => {
    const { client } = await connect(line, true);
    const answer = await recommendServers(client, 'refund an invoice');
    expect(answer?.recommendations[0]).toMatchObject({
      server_name: 'com.acme/billing',
      source: 'peer',
      auth_flow: 'oauth2_device',
      registry_url: 'https://catalog.acme.example/servers/billing',
      remotes: [{ type: 'streamable-http', url: 'https://billing.acme.example/mcp' }],
    });
    const mail = await recommendServers(client, 'read and send email', { maxResults: 20 });
    expect(mail?.recommendations.map((r) => r.server_name)).not.toContain('com.postbox/email');
  });

  it('DISC-11: max_results is capped by the server; min_confidence filters', async () => {
    const { client } = await connect(line, true, { maxResults: 3, defaultResults: 2 });
    expect((await recommendServers(client, 'send a chat message'))?.recommendations).toHaveLength(2);
    expect((await recommendServers(client, 'send a chat message', { maxResults: 50 }))?.recommendations).toHaveLength(
      3,
    );
    const strong = await recommendServers(client, 'send a chat message', { maxResults: 3, minConfidence: 'high' });
    expect(strong?.recommendations.every((r) => r.match_confidence === 'high')).toBe(true);
    expect((await recommendServers(client, 'zyxwvut'))?.recommendations).toEqual([]);
  });

  it('DISC-3: malformed params are refused with -32602 naming the field', async () => {
    const { client } = await connect(line, true);
    for (const [params, field] of [
      [{}, 'capability_needed'],
      [{ capability_needed: '   ' }, 'capability_needed'],
      [{ capability_needed: 'x'.repeat(300) }, 'capability_needed'],
      [{ capability_needed: 'maps', max_results: 0 }, 'max_results'],
      [{ capability_needed: 'maps', min_confidence: 'sure' }, 'min_confidence'],
    ] as const) {
      const error: unknown = await client.request(`${DISCOVERY_ID}/recommend`, params).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(WireError.isInstance(error)).toBe(true);
      expect((error as WireError).code).toBe(-32602);
      expect((error as WireError).data).toMatchObject({
        code: 'INVALID_INPUT',
        category: 'invalid_input',
        details: { field, pointer: `/${field}` },
      });
    }
  });

  it('DISC-2: a client without the extension sends nothing; the method still answers a direct request', async () => {
    const { client } = await connect(line, false);
    expect(await recommendServers(client, 'design mockup')).toBeUndefined();
    expect(getDiscoverySettings(client)).toBeUndefined();
    const direct = (await client.request(`${DISCOVERY_ID}/recommend`, {
      capability_needed: 'weather forecast',
    })) as unknown as RecommendResult;
    expect(direct.recommendations[0]?.server_name).toBe('com.skycast/weather');
  });

  it('DISC-13: recommend_servers serves the same answer to a client that can only call tools', async () => {
    const { client } = await connect(line, false, {}, true);
    const result = await client.callTool('recommend_servers', { capability_needed: 'design_mockup', max_results: 1 });
    expect(result.isError).not.toBe(true);
    const answer = result.structuredContent as unknown as RecommendResult;
    expect(answer.recommendations.map((r) => r.server_name)).toEqual(['com.pixelforge/design']);
    const text = result.content[0];
    expect(
      text?.type === 'text' &&
        typeof text.text === 'string' &&
        text.text.startsWith('Recommended: com.pixelforge/design (high).'),
    ).toBe(true);
    const bad = await client.callTool('recommend_servers', { capability_needed: '' });
    expect(getStructuredError(bad)).toMatchObject({ category: 'invalid_input' });
  });
});

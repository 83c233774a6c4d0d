/**
 * Tool shaping (GW-51) in front of the unmodified server-memory: a tool
 * offered under another name, with the operator's description, is listed and
 * called by that name; a tool the operator annotates as destructive is gated
 * like one its upstream calls destructive.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  closeAfterEach,
  entitiesOnDisk,
  ERAS,
  gatewayConfig,
  memoryUpstream,
  plainClient,
  serveGateway,
  tempDir,
  textOf,
} from './support.js';

closeAfterEach();

describe('tools shaped by the policy', () => {
  it.each(ERAS)('are listed and called as the operator named, described and annotated them (%s)', async (era) => {
    const file = join(await tempDir('shaping'), 'memory.jsonl');
    const served = await serveGateway(
      gatewayConfig({
        upstreams: { memory: memoryUpstream(file) },
        policy: {
          read_graph: { as: 'graph', description: 'The whole knowledge graph, as JSON.' },
          create_entities: { annotations: { destructiveHint: true, title: 'Add people' } },
        },
        identity: { anonymous: true },
        store: 'memory',
      }),
    );
    const sdk = await plainClient(served.url, era);
    const { tools } = await sdk.listTools();
    const names = tools.map((tool) => tool.name);
    expect(names).toContain('graph');
    expect(names).not.toContain('read_graph');
    expect(tools.find((tool) => tool.name === 'graph')?.description).toBe('The whole knowledge graph, as JSON.');
    expect(tools.find((tool) => tool.name === 'create_entities')?.annotations).toMatchObject({
      destructiveHint: true,
      title: 'Add people',
    });

    const graph = await sdk.callTool({ name: 'graph', arguments: {} });
    expect(graph.structuredContent).toEqual({ entities: [], relations: [] });
    await expect(sdk.callTool({ name: 'read_graph', arguments: {} })).rejects.toThrow(/read_graph not found/);

    // No way to ask this client: the gate the operator's annotation set fails closed, and nothing was written.
    const gated = await sdk.callTool({
      name: 'create_entities',
      arguments: { entities: [{ name: 'ada', entityType: 'person', observations: [] }] },
    });
    expect(gated.isError).toBe(true);
    expect(textOf(gated)).toMatch(/destructive operation that needs a person's approval.*was not executed/);
    expect(await entitiesOnDisk(file)).toEqual([]);
  });
});

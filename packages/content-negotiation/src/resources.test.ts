import { extendClient, extendServer } from '@ext/core/sdk-v1';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { contentNegotiationClient } from './client.js';
import { genericMarkdown } from './render.js';
import { CONTENT_NEGOTIATION_ID } from './schema.js';
import { contentNegotiationServer, renderPrompt, renderResource } from './server.js';

const ID = CONTENT_NEGOTIATION_ID;
const ticket = { id: 'T-1', title: 'Fix the build', status: 'open' };

/**
 * Resources and prompts bypass the tool pipeline, so a server resolves
 * their presentation itself; this wires the SDK directly to show how.
 */
async function pair(features: readonly string[] | undefined): Promise<{ client: Client; close: () => Promise<void> }> {
  const negotiation = contentNegotiationServer();
  const mcp = new McpServer({ name: 'resources', version: '0.0.0' });
  extendServer(mcp, [negotiation]);
  const presentation = (meta: unknown) =>
    negotiation.presentationFor({ peerExtensions: mcp.server.getClientCapabilities()?.extensions, meta });
  mcp.registerResource('ticket', 'tracker://tickets/T-1', {}, (uri, extra) =>
    renderResource(presentation(extra._meta), { uri: uri.href, data: { ticket } }),
  );
  mcp.registerPrompt('summarize', {}, (extra) =>
    renderPrompt(presentation(extra._meta), { data: { ticket }, preamble: 'Summarize this ticket.' }),
  );
  const client = new Client({ name: 'c', version: '0.0.0' });
  extendClient(client, features === undefined ? [] : [contentNegotiationClient({ features })]);
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await mcp.connect(serverTransport);
  await client.connect(clientTransport);
  return {
    client,
    close: async () => {
      await client.close();
      await mcp.close();
    },
  };
}

describe('resources and prompts vary too, on v1 (CN-13)', () => {
  let close: (() => Promise<void>) | undefined;

  afterEach(async () => {
    await close?.();
    close = undefined;
  });

  it('a person reads the resource as markdown, with the echo', async () => {
    const opened = await pair(['human']);
    close = opened.close;
    const result = await opened.client.readResource({ uri: 'tracker://tickets/T-1' });
    expect(result.contents).toEqual([
      { uri: 'tracker://tickets/T-1', mimeType: 'text/markdown', text: genericMarkdown({ ticket }, 'standard') },
    ]);
    expect(result._meta?.[ID]).toEqual({ features: ['format=markdown', 'verbosity=standard'] });
  });

  it('an agent gets the prompt data as JSON, and can override per request', async () => {
    const opened = await pair(['agent']);
    close = opened.close;
    const prompt = await opened.client.getPrompt({ name: 'summarize' });
    expect(prompt.messages[0]?.content).toEqual({
      type: 'text',
      text: `Summarize this ticket.\n\n${JSON.stringify({ ticket })}`,
    });
    const compact = await opened.client.readResource({
      uri: 'tracker://tickets/T-1',
      _meta: { [ID]: { features: ['format=text'] } },
    });
    expect(compact.contents[0]).toMatchObject({ mimeType: 'text/plain' });
  });

  it('a client without the extension gets the default (JSON) and no echo', async () => {
    const opened = await pair(undefined);
    close = opened.close;
    const result = await opened.client.readResource({ uri: 'tracker://tickets/T-1' });
    expect(result.contents[0]).toMatchObject({ mimeType: 'application/json', text: JSON.stringify({ ticket }) });
    expect(result._meta).toBeUndefined();
  });
});

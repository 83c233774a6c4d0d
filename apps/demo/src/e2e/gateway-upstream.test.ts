/**
 * The tracker as an upstream of `@ext/gateway` over Streamable HTTP on
 * 2026-07-28: the gateway speaks to it as a plain client with alice's
 * token, offers its tools under the gateway's own policy, and a plain client
 * of the gateway works the tracker through it.
 */
import { silentLogger } from '@ext/core/kit';
import { listen, type Listening } from '@ext/core/sdk-v2/server';
import { createGateway, type Gateway } from '@ext/gateway';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttpServer, type RunningHttpServer } from '../server/node-http.js';

const KEY = 'gateway-operator-key-0001';

describe('the tracker behind @ext/gateway, over HTTP on 2026-07-28', () => {
  let tracker: RunningHttpServer;
  let gateway: Gateway;
  let served: Listening;

  beforeAll(async () => {
    tracker = await startHttpServer({ port: 0, logger: silentLogger });
    gateway = await createGateway(
      {
        upstreams: {
          tracker: {
            url: tracker.url.href,
            protocol: '2026-07-28',
            headers: { authorization: `Bearer ${tracker.tokens!.alice}` },
          },
        },
        policy: { create_ticket: { provenance: { source: 'tracker' } }, list_tickets: { hidden: true } },
        store: 'memory',
        identity: { apiKeys: { [KEY]: 'operator' } },
      },
      { logger: silentLogger },
    );
    served = await listen(gateway.http, { port: 0 });
  });

  afterAll(async () => {
    await served.close();
    await gateway.close();
    await tracker.close();
  });

  it("offers the tracker's tools under the gateway's policy, and creates a ticket upstream", async () => {
    const client = new Client({ name: 'plain', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(served.url, { requestInit: { headers: { authorization: `Bearer ${KEY}` } } }),
    );
    try {
      const names = (await client.listTools()).tools.map((tool) => tool.name);
      expect(names).toEqual(expect.arrayContaining(['create_ticket', 'get_ticket', 'delete_ticket']));
      expect(names).not.toContain('list_tickets');
      const created = await client.callTool({ name: 'create_ticket', arguments: { title: 'Through the gateway' } });
      expect(created.isError).not.toBe(true);
      const ticket = (created.structuredContent as { ticket: { id: string; title: string } }).ticket;
      expect(ticket.title).toBe('Through the gateway');
      // The tracker itself now holds it.
      const upstream = new Client({ name: 'direct', version: '1.0.0' });
      await upstream.connect(
        new StreamableHTTPClientTransport(tracker.url, {
          requestInit: { headers: { authorization: `Bearer ${tracker.tokens!.alice}` } },
        }),
      );
      const read = await upstream.callTool({ name: 'get_ticket', arguments: { id: ticket.id } });
      expect(JSON.stringify(read.structuredContent)).toContain('Through the gateway');
      await upstream.close();
    } finally {
      await client.close();
    }
  });

  it("gates the tracker's destructive delete_ticket for a client that cannot be asked, and the ticket stays", async () => {
    const client = new Client({ name: 'plain', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(served.url, { requestInit: { headers: { authorization: `Bearer ${KEY}` } } }),
    );
    try {
      const created = await client.callTool({ name: 'create_ticket', arguments: { title: 'Keep me' } });
      const id = (created.structuredContent as { ticket: { id: string } }).ticket.id;
      const refused = await client.callTool({ name: 'delete_ticket', arguments: { id } });
      expect(refused.isError).toBe(true);
      const read = await client.callTool({ name: 'get_ticket', arguments: { id } });
      expect(JSON.stringify(read.structuredContent)).toContain('Keep me');
    } finally {
      await client.close();
    }
  });
});

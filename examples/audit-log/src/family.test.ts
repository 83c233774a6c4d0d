/**
 * The example composes with the whole family and with the gateway, with no
 * change to `@ext/core`: written against its public entry, placed by
 * position ({ after: 'errors' }), on every SDK line and era.
 */
import { MemoryStore, type ExtendedServer, type ServerExtension } from '@ext/core';
import { silentLogger } from '@ext/core/kit';
import { createHttpHandler, listen, type Listening } from '@ext/core/sdk-v2/server';
import { createTestPair, TEST_LINES, type TestPair } from '@ext/core/testing';
import { confirmationServer } from '@ext/confirmation/server';
import { contentNegotiationServer } from '@ext/content-negotiation/server';
import { costServer } from '@ext/cost/server';
import { createReferenceOrigin, dataReferencesServer } from '@ext/data-references/server';
import { discoveryServer } from '@ext/discovery/server';
import { errorsClient } from '@ext/errors/client';
import { errorsServer } from '@ext/errors/server';
import { eventsServer } from '@ext/events/server';
import { createGateway, parseConfig, type Gateway } from '@ext/gateway';
import { idempotencyServer } from '@ext/idempotency/server';
import { intentServer } from '@ext/intent/server';
import { manifestServer } from '@ext/manifest/server';
import { multimodalServer } from '@ext/multimodal/server';
import { permissionsServer } from '@ext/permissions/server';
import { provenanceServer } from '@ext/provenance/server';
import { sessionStateServer } from '@ext/session-state/server';
import { streamingServer } from '@ext/streaming/server';
import { tasksServer } from '@ext/tasks/server';
import { transactionsServer } from '@ext/transactions/server';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { McpServer } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import type { AuditEntry } from './schema.js';
import { auditLogServer } from './server.js';

/** Every server half of the family, each as a deployment would compose it. */
function family(): ServerExtension[] {
  return [
    errorsServer(),
    sessionStateServer({ keys: [{ id: 'k1', secret: 'an example secret, 32 bytes or more, never for production' }] }),
    contentNegotiationServer(),
    permissionsServer({ scopes: [{ name: 'notes:admin', description: 'purge every note', tools: ['purge'] }] }),
    costServer(),
    intentServer({ rules: [{ tool: 'hello', keywords: ['greet'] }] }),
    multimodalServer(),
    tasksServer(),
    confirmationServer(),
    idempotencyServer(),
    transactionsServer(),
    streamingServer(),
    dataReferencesServer({
      origin: createReferenceOrigin({
        secret: 'an example signing key, 32 bytes or more, never for production',
        store: new MemoryStore(),
        serverName: 'notes',
      }),
    }),
    provenanceServer(),
    eventsServer({ events: { greeted: { description: 'Someone was greeted.', payload: { type: 'object' } } } }),
    manifestServer(),
    discoveryServer({ peers: [] }),
  ];
}

function tools(server: ExtendedServer): void {
  server.registerTool('hello', { description: 'Says hello.', annotations: { readOnlyHint: true } }, () => ({
    content: [{ type: 'text', text: 'hello' }],
  }));
  server.registerTool('purge', { description: 'Deletes every note (needs notes:admin).' }, () => ({
    content: [{ type: 'text', text: 'purged' }],
  }));
}

const summary = (entries: readonly AuditEntry[]) =>
  entries.map(({ tool, outcome, code }) =>
    code === undefined ? `${tool}: ${outcome}` : `${tool}: ${outcome} ${code}`,
  );

describe.each(TEST_LINES)('with every extension of the family, on %s', (line) => {
  let pair: TestPair | undefined;
  afterEach(async () => {
    await pair?.close();
  });

  it('runs just inside the errors stage and records calls and the refusals of the stages inside it', async () => {
    const entries: AuditEntry[] = [];
    const halves = [auditLogServer({ write: (entry) => void entries.push(entry) }), ...family()];
    pair = await createTestPair({ line, serverExtensions: halves, clientExtensions: [errorsClient()], setup: tools });
    expect(pair.server.composed.pipeline.slice(0, 2)).toEqual([
      { stage: 'errors', extension: '@ext/errors' },
      { stage: 'after errors', extension: '@ext/example-audit-log' },
    ]);
    await pair.client.callTool('hello', {});
    const refused = await pair.client.callTool('purge', {});
    expect(refused.isError).toBe(true);
    expect(summary(entries)).toEqual(['hello: ok', 'purge: refused SCOPE_INSUFFICIENT']);
  });
});

describe('in @ext/gateway', () => {
  const closing: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of closing.splice(0).reverse()) await close();
  });

  async function upstream(): Promise<Listening> {
    const served = await listen(
      createHttpHandler(
        () => {
          const server = new McpServer({ name: 'notes', version: '1.0.0' });
          server.registerTool('echo', { description: 'Echoes.' }, () => ({
            content: [{ type: 'text', text: 'echo' }],
          }));
          return server;
        },
        { identify: () => 'gateway' },
      ),
      { port: 0 },
    );
    closing.push(() => served.close());
    return served;
  }

  it("records the calls it relays and its own refusals, under the caller's principal", async () => {
    const notes = await upstream();
    const entries: AuditEntry[] = [];
    const config = parseConfig(
      JSON.stringify({
        upstreams: { notes: { url: String(notes.url), protocol: '2026-07-28' } },
        identity: { apiKeys: { 'key-for-ada-0123456789abcdef': { principal: 'ada' } } },
        policy: { echo: { cost: { quota: { limit: 1, windowSeconds: 3600 } } } },
        store: 'memory',
      }),
      { format: 'json', source: 'audit-log.json' },
    );
    const gateway: Gateway = await createGateway(config, {
      store: new MemoryStore(),
      logger: silentLogger,
      extensions: [auditLogServer({ write: (entry) => void entries.push(entry) })],
    });
    closing.push(() => gateway.close());
    const served = await listen(gateway.http, { port: 0 });
    closing.push(() => served.close());
    const client = new Client({ name: 'ada', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(served.url, {
        requestInit: { headers: { authorization: 'Bearer key-for-ada-0123456789abcdef' } },
      }),
    );
    closing.push(() => client.close());
    await client.callTool({ name: 'echo', arguments: {} });
    await client.callTool({ name: 'echo', arguments: {} });
    expect(summary(entries)).toEqual(['echo: ok', 'echo: refused QUOTA_EXHAUSTED']);
    expect(entries.every((entry) => entry.principal.endsWith('ada'))).toBe(true);
  });
});

import { extensionId, WireError, type ExtendedClient, type ExtendedServer, type ToolResult } from '@ext/core';
import { silentLogger } from '@ext/core/kit';
import { createTestPair, seedValidators, TEST_LINES, type TestLine, type TestPair } from '@ext/core/testing';
import { confirmationServer } from '@ext/confirmation/server';
import { errorsClient } from '@ext/errors/client';
import { errorsServer } from '@ext/errors/server';
import { idempotencyServer } from '@ext/idempotency/server';
import { permissionsServer } from '@ext/permissions/server';
import { Compile } from 'typebox/compile';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { createManifestReader, fetchManifest, getManifestSettings, manifestClient } from './client.js';
import {
  MANIFEST_ID,
  manifestChangedMethod,
  ManifestChangedParamsSchema,
  manifestGetMethod,
  type ServiceManifest,
} from './schema.js';
import { manifestServer } from './server.js';

const seedManifest = seedValidators().check('service-manifest');
const validChanged = Compile(ManifestChangedParamsSchema);
const TOOLS_CHANGED = 'notifications/tools/list_changed';
const RECOMMENDATION = {
  capability: 'invoicing',
  server_name: 'billing-mcp',
  registry_url: 'https://registry.example/billing',
  match_confidence: 'high' as const,
};

const empty = (): ToolResult => ({ content: [{ type: 'text', text: 'ok' }] });

/** Tools with metadata from composed extensions (confirmation, permissions, idempotency) and from ones set by hand (cost, streaming, multimodal). */
function setup(server: ExtendedServer): void {
  server.registerTool(
    'get_order',
    { description: 'Reads an order', inputSchema: z.object({ id: z.string() }), annotations: { readOnlyHint: true } },
    empty,
  );
  server.registerTool(
    'delete_order',
    {
      description: 'Deletes an order',
      inputSchema: z.object({ id: z.string() }),
      _meta: {
        [extensionId('confirmation')]: {
          requires_confirmation: true,
          risk_level: 'destructive',
          confirmation_message: 'Delete order {id}?',
        },
      },
    },
    empty,
  );
  server.registerTool(
    'export_report',
    {
      description: 'Exports a report',
      inputSchema: z.object({ month: z.string() }),
      outputSchema: z.object({ rows: z.number() }),
      _meta: {
        [extensionId('cost')]: {
          cost: { category: 'metered', estimated_units: 5, unit_label: 'exports' },
          latency: 'minutes',
        },
        [extensionId('streaming')]: { checkpoints: true },
        [extensionId('multimodal')]: {
          input_types: ['text/csv'],
          output_types: ['application/pdf'],
          max_input_size_bytes: 1_048_576,
        },
        [MANIFEST_ID]: { supports_pagination: true },
      },
    },
    () => ({ content: [{ type: 'text', text: '{"rows":3}' }], structuredContent: { rows: 3 } }),
  );
  // MCP allows this name; the seed manifest does not, so it is left out of the manifest (MAN-5).
  server.registerTool('legacyLookup', { description: 'Old lookup' }, empty);
}

const open: TestPair[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((pair) => pair.close()));
});

async function pair(line: TestLine, withClient: boolean, authenticated = true): Promise<TestPair> {
  const created = await createTestPair({
    line,
    // Authenticated unless a test says otherwise: the manifest below says `bearer_token`.
    authInfo: authenticated ? { clientId: 'reader' } : undefined,
    serverExtensions: [
      errorsServer(),
      manifestServer({
        ttlSeconds: 60,
        auth: { methods: ['bearer_token'] },
        rateLimits: { requestsPerMinute: 60 },
        recommendations: [
          {
            capability: RECOMMENDATION.capability,
            serverName: RECOMMENDATION.server_name,
            registryUrl: RECOMMENDATION.registry_url,
            matchConfidence: RECOMMENDATION.match_confidence,
          },
        ],
      }),
      confirmationServer(),
      permissionsServer({
        scopes: [
          { name: 'orders:read', description: 'read orders', tools: ['get_order', 'export_report'] },
          { name: 'orders:write', description: 'delete orders', tools: ['delete_order'] },
        ],
      }),
      idempotencyServer(),
    ],
    clientExtensions: [errorsClient(), withClient && manifestClient()],
    setup,
    serverOptions: { logger: silentLogger },
    clientOptions: { logger: silentLogger },
  });
  open.push(created);
  return created;
}

/** The manifest through a plain method call, which a client without the extension can still make. */
async function rawGet(client: ExtendedClient, params: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
  return client.request(manifestGetMethod(), params);
}

function nextNotification(client: ExtendedClient, method: string): Promise<Record<string, unknown>> {
  return new Promise((resolve) => {
    client.onNotification(method, resolve);
  });
}

const stateful = (line: TestLine): boolean => line !== 'v2-modern';
const expectedRevision = (line: TestLine): string => (line === 'v2-modern' ? '2026-07-28' : '2025-11-25');

describe.each(TEST_LINES)('manifest end to end on %s', (line) => {
  it('MAN-1: the server advertises the extension and its ttl; the client negotiates it', async () => {
    const { client } = await pair(line, true);
    expect(getManifestSettings(client.serverExtensions())).toEqual({ version: '1.0', ttl_seconds: 60 });
    expect(client.negotiated(manifestClient())?.id).toBe(MANIFEST_ID);
  });

  it('says callers are not told apart (auth method none) only to callers of an anonymous shared endpoint (core IDENT-7)', async () => {
    const shared = ((await fetchManifest((await pair(line, true, false)).client))?.manifest as ServiceManifest).auth
      ?.methods;
    // The v1 pair is an in-process link: one local caller, no shared endpoint.
    expect(shared).toEqual(line === 'v1' ? ['bearer_token'] : ['bearer_token', 'none']);
    const named = ((await fetchManifest((await pair(line, true)).client))?.manifest as ServiceManifest).auth?.methods;
    expect(named).toEqual(['bearer_token']);
  });

  it('MAN-2 to MAN-9: get returns a seed-valid manifest assembled from every registered tool and extension', async () => {
    const { client } = await pair(line, true);
    const answer = await fetchManifest(client);
    expect(answer).toMatchObject({ not_modified: false, ttl_seconds: 60 });
    const manifest = answer?.manifest as ServiceManifest;
    expect(seedManifest(manifest).errors).toBe('');
    expect(manifest.server).toEqual({
      name: 'ext-test-server',
      version: '0.0.0',
      mcp_spec_version: expectedRevision(line),
    });
    expect(manifest.tools.map((tool) => tool.name)).toEqual(['delete_order', 'export_report', 'get_order']);
    const [deleteOrder, exportReport, getOrder] = manifest.tools;
    expect(deleteOrder).toMatchObject({
      description: 'Deletes an order',
      input_schema: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
      requires_confirmation: true,
      risk_level: 'destructive',
      confirmation_message: 'Delete order {id}?',
      required_scopes: ['orders:write'],
      idempotent: true,
    });
    expect(exportReport).toMatchObject({
      output_schema: { type: 'object', properties: { rows: { type: 'number' } } },
      cost: { category: 'metered', estimated_units: 5, unit_label: 'exports' },
      latency: 'minutes',
      supports_streaming: true,
      supports_pagination: true,
      input_types: ['text/csv'],
      output_types: ['application/pdf'],
      max_input_size_bytes: 1_048_576,
      required_scopes: ['orders:read'],
      requires_confirmation: false,
    });
    expect(getOrder).toMatchObject({
      idempotent: true,
      risk_level: 'safe',
      requires_confirmation: false,
      required_scopes: ['orders:read'],
    });
    expect(manifest.auth).toEqual({
      methods: ['bearer_token'],
      scopes: [
        { name: 'orders:read', description: 'read orders', grants: ['get_order', 'export_report'] },
        { name: 'orders:write', description: 'delete orders', grants: ['delete_order'] },
      ],
      session_ttl_seconds: 900,
    });
    expect(manifest.supported_extensions).toEqual(['idempotency', 'human_in_the_loop', 'structured_errors']);
    expect(Object.keys(manifest.extensions ?? {})).toEqual(
      ['confirmation', 'errors', 'idempotency', 'manifest', 'permissions'].map((name) => extensionId(name)),
    );
    expect(manifest.rate_limits).toEqual({ requests_per_minute: 60 });
    expect(manifest.recommendations).toEqual([RECOMMENDATION]);
    // The SDK still lists the tool the manifest cannot carry.
    expect((await client.listTools()).map((tool) => tool.name)).toContain('legacyLookup');
  });

  it('MAN-10 MAN-11: a current etag gets "not modified" with no manifest; another etag gets the manifest', async () => {
    const { client } = await pair(line, true);
    const first = await fetchManifest(client);
    const etag = first?.etag ?? '';
    expect(etag).toMatch(/^[0-9a-f]{64}$/);
    const again = await rawGet(client, { etag });
    expect(again).toMatchObject({ etag, ttl_seconds: 60, not_modified: true });
    expect(again).not.toHaveProperty('manifest');
    const other = await fetchManifest(client, 'not-the-etag');
    expect(other).toMatchObject({ etag, not_modified: false });
    expect(other?.manifest).toEqual(first?.manifest);
  });

  it('MAN-12: malformed params get invalid params naming the field', async () => {
    const { client } = await pair(line, true);
    const failure = await rawGet(client, { etag: 42 }).catch((error: unknown) => error);
    expect(WireError.isInstance(failure)).toBe(true);
    expect(failure).toMatchObject({
      code: -32602,
      data: { code: 'INVALID_INPUT', category: 'invalid_input', details: { pointer: '/etag' } },
    });
  });

  it('MAN-18: the client reader answers which tools need confirmation, cost something, or are slow', async () => {
    const { client } = await pair(line, true);
    const reader = createManifestReader(client);
    expect(await reader.toolsRequiringConfirmation()).toEqual(['delete_order']);
    expect(await reader.costlyTools()).toEqual(['export_report']);
    expect(await reader.slowTools()).toEqual(['export_report']);
    expect(await reader.slowTools('instant')).toEqual(['export_report']);
  });

  it('MAN-17: the reader relies on its cache for ttl_seconds, then revalidates by etag', async () => {
    const { client } = await pair(line, true);
    let now = 1_000_000;
    let requests = 0;
    const counting: ExtendedClient = {
      ...client,
      request: (method, params, options) => {
        requests += 1;
        return client.request(method, params, options);
      },
    };
    const reader = createManifestReader(counting, { now: () => now });
    const first = await reader.get();
    expect(requests).toBe(1);
    now += 59_000;
    expect(await reader.get()).toBe(first);
    expect(requests).toBe(1);
    now += 2_000;
    expect(await reader.get()).toBe(first);
    expect(requests).toBe(2);
    expect(reader.snapshot()).toMatchObject({ fetchedAt: now, freshUntil: now + 60_000 });
  });

  it('MAN-10 MAN-13: a tool registered later changes the etag; connected clients hear of it, the SDK list_changed still fires', async () => {
    const created = await pair(line, true);
    const { client } = created;
    const reader = createManifestReader(client);
    const before = reader.snapshot();
    expect(before).toBeUndefined();
    await reader.get();
    const oldEtag = reader.snapshot()?.etag;
    if (stateful(line)) {
      // The reader refreshes on nothing but the change notification, so its onChange proves the notification came.
      const changed = new Promise<[ServiceManifest, string]>((resolve) =>
        reader.onChange((manifest, etag) => {
          resolve([manifest, etag]);
        }),
      );
      const listChanged = nextNotification(client, TOOLS_CHANGED);
      created.server.registerTool('refund_order', { description: 'Refunds an order' }, empty);
      const [[manifest, etag]] = await Promise.all([changed, listChanged]);
      expect(etag).not.toBe(oldEtag);
      expect(manifest.tools.map((tool) => tool.name)).toContain('refund_order');
      expect(reader.snapshot()?.etag).toBe(etag);
    } else {
      // 2026-07-28 has no connection to notify on: the client finds out when it revalidates.
      created.server.registerTool('refund_order', { description: 'Refunds an order' }, empty);
      const manifest = await reader.refresh();
      expect(manifest?.tools.map((tool) => tool.name)).toContain('refund_order');
      expect(reader.snapshot()?.etag).not.toBe(oldEtag);
    }
    expect(seedManifest(reader.snapshot()?.manifest).errors).toBe('');
  });

  // 2026-07-28 has no connection that outlives a request, so nothing to notify on.
  it.skipIf(!stateful(line))('MAN-13: the change notification carries the etag a get then answers with', async () => {
    const created = await pair(line, true);
    const { client } = created;
    await fetchManifest(client);
    const notified = nextNotification(client, manifestChangedMethod());
    created.server.registerTool('refund_order', { description: 'Refunds' }, empty);
    created.server.registerTool('void_order', { description: 'Voids' }, empty);
    const params = await notified;
    expect(validChanged.Check(params)).toBe(true);
    const current = await fetchManifest(client, String(params.etag));
    expect(current).toMatchObject({ etag: params.etag, not_modified: true });
  });

  it('MAN-2 MAN-13: a client without the extension can still ask, but is never notified', async () => {
    const created = await pair(line, false);
    const { client } = created;
    expect(await fetchManifest(client)).toBeUndefined();
    expect(await createManifestReader(client).get()).toBeUndefined();
    const answer = await rawGet(client);
    expect(seedManifest(answer.manifest).errors).toBe('');
    if (!stateful(line)) return;
    const received: unknown[] = [];
    client.onNotification(manifestChangedMethod(), (params) => received.push(params));
    const first = nextNotification(client, TOOLS_CHANGED);
    created.server.registerTool('refund_order', { description: 'Refunds' }, empty);
    await first;
    // A change notice for the first registration would be sent before the second list_changed, on the same channel.
    const second = nextNotification(client, TOOLS_CHANGED);
    created.server.registerTool('void_order', { description: 'Voids' }, empty);
    await second;
    expect(received).toEqual([]);
  });
});

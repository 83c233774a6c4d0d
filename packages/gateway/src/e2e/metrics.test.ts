/**
 * The gateway's metrics and probes over real HTTP, in front of the
 * unmodified `@modelcontextprotocol/server-memory` (over stdio) with a
 * SQLite store: a scripted set of calls (answered, an upstream's `isError`,
 * a quota refusal, confirmations asked, given, replayed and declined, a
 * call held for an operator and denied), then one scrape read with a real
 * Prometheus text-format parser; the scrape refused without an operator's
 * credentials; `/healthz` and `/readyz` as the upstream's process dies and
 * comes back and as the store's file goes; the metrics on an address of
 * their own (GW-36 to GW-39).
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { CONFIRMATION_ID } from '@ext/confirmation';
import { confirmationClient, getConfirmationRequired } from '@ext/confirmation/client';
import { errorsClient } from '@ext/errors/client';
import { describe, expect, it, vi } from 'vitest';
import { readScrape, type Scrape } from '../metrics/testing.js';
import { childPid } from '../upstream/testing/servers.js';
import {
  closeAfterEach,
  connectClient,
  errorOf,
  gatewayConfig,
  memoryUpstream,
  serveGateway,
  tempDir,
  textOf,
  type ServedGateway,
} from './support.js';

closeAfterEach();

const OPERATOR_KEY = 'operator-key-0123456789';
const AGENT_KEY = 'agent-key-0123456789abc';
const AGENT = { authorization: `Bearer ${AGENT_KEY}` };
const OPERATOR = { authorization: `Bearer ${OPERATOR_KEY}` };
/** Long enough for a loaded machine: the probes and the pending gauge follow events that happen in the background. */
const SETTLED = { timeout: 30_000, interval: 100 };

interface MetricsGateway extends ServedGateway {
  /** The SQLite file of the gateway's store. */
  readonly database: string;
}

/** server-memory behind a gateway with metrics beside its MCP endpoint and a store in a file of its own. */
async function metricsGateway(extra: Record<string, unknown> = {}): Promise<MetricsGateway> {
  const dir = await tempDir('metrics');
  const database = join(dir, 'gateway.db');
  const config = gatewayConfig({
    upstreams: { memory: memoryUpstream(join(dir, 'memory.jsonl')) },
    policy: {
      read_graph: { cost: { quota: { limit: 1, windowSeconds: 3600 } } },
      delete_relations: { confirm: { approver: 'operator', message: 'Delete these relations?' } },
    },
    identity: {
      apiKeys: {
        [OPERATOR_KEY]: { principal: 'ops', scopes: ['gateway:metrics'] },
        [AGENT_KEY]: { principal: 'agent', scopes: [] },
      },
    },
    approvals: { holdSeconds: 0 },
    metrics: {},
    store: { sqlite: database },
    ...extra,
  });
  return { ...(await serveGateway(config, { store: 'config' })), database };
}

async function scrapeOf(served: ServedGateway): Promise<Scrape> {
  const response = await fetch(new URL('/metrics', served.url), { headers: OPERATOR });
  expect(response.status).toBe(200);
  return readScrape(await response.text());
}

async function probe(served: ServedGateway, path: '/healthz' | '/readyz') {
  const response = await fetch(new URL(path, served.url));
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

function entity(name: string) {
  return { name, entityType: 'person', observations: [`${name} was here`] };
}

/** The calls of the script, each checked as its client sees it. */
async function runScript(served: ServedGateway): Promise<void> {
  const { client } = await connectClient(served.url, {
    era: 'legacy',
    headers: AGENT,
    extensions: [errorsClient(), confirmationClient()],
  });
  expect((await client.callTool('create_entities', { entities: [entity('ada'), entity('bob')] })).isError).toBeFalsy();
  const missing = await client.callTool('add_observations', {
    observations: [{ entityName: 'nobody', contents: ['seen'] }],
  });
  expect([missing.isError, textOf(missing)]).toEqual([true, expect.stringContaining('nobody')]);
  expect((await client.callTool('read_graph', {})).isError).toBeFalsy();
  expect(errorOf(await client.callTool('read_graph', {})).code).toBe('QUOTA_EXHAUSTED');

  // A confirmation asked (a token), given (the call runs with it), then replayed (refused).
  const held = await client.callTool('delete_entities', { entityNames: ['bob'] });
  const token = getConfirmationRequired(held)?.confirmation_token;
  const withToken = { meta: { [CONFIRMATION_ID]: { confirmation_token: token } } };
  expect((await client.callTool('delete_entities', { entityNames: ['bob'] }, withToken)).isError).toBeFalsy();
  const replayed = await client.callTool('delete_entities', { entityNames: ['bob'] }, withToken);
  expect(errorOf(replayed).code).toBe('CONFIRMATION_TOKEN_REPLAYED');

  // A client that asks its user in-band, and the user says no.
  const asking = await connectClient(served.url, {
    era: 'legacy',
    headers: AGENT,
    extensions: [errorsClient()],
    elicit: () => Promise.resolve(false),
  });
  const declined = await asking.client.callTool('delete_entities', { entityNames: ['ada'] });
  expect(errorOf(declined).code).toBe('CONFIRMATION_DECLINED');

  // A call held for an operator: pending until the operator denies it.
  const relations = { relations: [{ from: 'ada', to: 'bob', relationType: 'knows' }] };
  expect(errorOf(await client.callTool('delete_relations', relations)).code).toBe('CONFIRMATION_PENDING');
}

describe('a scrape after a scripted set of calls', () => {
  it('holds every series with its labels and values', async () => {
    const served = await metricsGateway();
    await runScript(served);
    await vi.waitFor(async () => {
      expect((await scrapeOf(served)).value('mcp_gateway_approvals_pending', {})).toBe(1);
    }, SETTLED);
    const desk = served.gateway.approvals?.desk;
    const [request] = (await desk?.list({ state: 'pending' })) ?? [];
    await desk?.decide(request?.id ?? '', { approve: false, by: 'ops' });
    await vi.waitFor(async () => {
      expect((await scrapeOf(served)).value('mcp_gateway_approvals_pending', {})).toBe(0);
    }, SETTLED);
    const scrape = await scrapeOf(served);

    const calls = (tool: string, outcome: string, category: string) =>
      scrape.value('mcp_gateway_tool_calls_total', {
        upstream: 'memory',
        gen_ai_tool_name: tool,
        outcome,
        error_category: category,
      });
    expect(calls('create_entities', 'ok', '')).toBe(1);
    // The upstream's isError result is a failed call, not a success.
    expect(calls('add_observations', 'error', 'tool_error')).toBe(1);
    expect(calls('read_graph', 'ok', '')).toBe(1);
    expect(calls('read_graph', 'error', 'rate_limited')).toBe(1);
    expect(calls('delete_entities', 'held', '')).toBe(1);
    expect(calls('delete_entities', 'ok', '')).toBe(1);
    expect(calls('delete_entities', 'error', 'permanent')).toBe(2);
    expect(calls('delete_relations', 'error', 'transient')).toBe(1);
    expect(scrape.family('mcp_gateway_tool_calls_total').samples).toHaveLength(8);

    const tool = (name: string) => ({ gen_ai_tool_name: name });
    expect(
      scrape.value('mcp_gateway_limit_refusals_total', { upstream: 'memory', ...tool('read_graph'), limit: 'quota' }),
    ).toBe(1);
    expect(scrape.value('mcp_gateway_confirmations_requested_total', tool('delete_entities'))).toBe(1);
    const decided = (decision: string) =>
      scrape.value('mcp_gateway_confirmations_decided_total', { ...tool('delete_entities'), decision });
    expect([decided('confirmed'), decided('refused'), decided('declined')]).toEqual([1, 1, 1]);
    expect(scrape.value('mcp_gateway_approvals_requested_total', tool('delete_relations'))).toBe(1);
    expect(
      scrape.value('mcp_gateway_approvals_decided_total', { ...tool('delete_relations'), decision: 'denied' }),
    ).toBe(1);

    // The whole call, the upstream's part (only calls that reached it), and what the gateway added (every call).
    const whole = (name: string, errorType: string) =>
      scrape.sample('mcp_server_operation_duration_seconds', {
        mcp_method_name: 'tools/call',
        ...tool(name),
        error_type: errorType,
      });
    expect(whole('create_entities', '').count).toBe(1);
    expect(whole('add_observations', 'tool_error').count).toBe(1);
    expect(whole('read_graph', 'tool_error').count).toBe(1);
    const upstream = (name: string, errorType: string) =>
      scrape.sample('mcp_client_operation_duration_seconds', {
        mcp_method_name: 'tools/call',
        upstream: 'memory',
        ...tool(name),
        error_type: errorType,
      });
    expect(upstream('add_observations', 'tool_error').count).toBe(1);
    expect(upstream('read_graph', '').count).toBe(1);
    // Run once (with its token): the held, replayed and declined calls never reached server-memory.
    expect(upstream('delete_entities', '').count).toBe(1);
    expect(scrape.family('mcp_client_operation_duration_seconds').samples).toHaveLength(4);
    const added = scrape.sample('mcp_gateway_added_duration_seconds', {
      upstream: 'memory',
      ...tool('delete_entities'),
    });
    expect(added.count).toBe(4);
    const createdIn = whole('create_entities', '').sum ?? Number.NaN;
    const createdAdded = scrape.sample('mcp_gateway_added_duration_seconds', {
      upstream: 'memory',
      ...tool('create_entities'),
    });
    const createdUpstream = upstream('create_entities', '');
    expect((createdAdded.sum ?? 0) + (createdUpstream.sum ?? 0)).toBeCloseTo(createdIn, 6);

    expect(scrape.value('mcp_gateway_upstream_up', { upstream: 'memory' })).toBe(1);
    expect(scrape.value('mcp_gateway_upstream_breaker_state', { upstream: 'memory', state: 'closed' })).toBe(1);
    expect(scrape.value('mcp_gateway_upstream_breaker_state', { upstream: 'memory', state: 'open' })).toBe(0);
    expect(scrape.value('mcp_gateway_upstream_reconnects_total', { upstream: 'memory' })).toBe(0);
    expect(scrape.value('mcp_gateway_upstream_retries_total', { upstream: 'memory' })).toBe(0);
    expect(scrape.family('mcp_gateway_store_errors_total').samples).toEqual([]);
    expect(scrape.family('process_resident_memory_bytes').samples[0]?.value).toBeGreaterThan(0);
  });

  it('is refused without an operator’s credentials: 401 without any, 403 without the scope', async () => {
    const served = await metricsGateway();
    const anonymous = await fetch(new URL('/metrics', served.url));
    expect([anonymous.status, anonymous.headers.get('www-authenticate')]).toEqual([401, 'Bearer']);
    const agent = await fetch(new URL('/metrics', served.url), { headers: AGENT });
    expect(agent.status).toBe(403);
    expect(await agent.json()).toEqual({
      error: { code: 'MISSING_SCOPE', message: 'Reading the metrics needs the scope gateway:metrics' },
    });
    expect((await fetch(new URL('/metrics', served.url), { headers: OPERATOR })).status).toBe(200);
  });
});

describe('the probes', () => {
  it('/readyz follows the upstream’s process and the store’s file; /healthz stays alive', async () => {
    const served = await metricsGateway();
    expect(await probe(served, '/healthz')).toEqual({ status: 200, body: { status: 'alive' } });
    expect(await probe(served, '/readyz')).toEqual({
      status: 200,
      body: {
        status: 'ready',
        checks: { config: 'loaded', store: 'ok', upstreams: { memory: { state: 'up', breaker: 'closed' } } },
      },
    });

    // server-memory's process dies: its only upstream down, the gateway is not ready.
    process.kill(childPid('server-memory'), 'SIGKILL');
    await vi.waitFor(async () => {
      expect(await probe(served, '/readyz')).toMatchObject({
        status: 503,
        body: { status: 'not_ready', checks: { store: 'ok', upstreams: { memory: { state: 'down' } } } },
      });
    }, SETTLED);
    expect((await scrapeOf(served)).value('mcp_gateway_upstream_up', { upstream: 'memory' })).toBe(0);

    // The next call starts it again.
    const { client } = await connectClient(served.url, { era: 'modern', headers: AGENT, extensions: [errorsClient()] });
    expect((await client.callTool('create_entities', { entities: [entity('ada')] })).isError).toBeFalsy();
    expect((await probe(served, '/readyz')).status).toBe(200);
    let scrape = await scrapeOf(served);
    expect(scrape.value('mcp_gateway_upstream_reconnects_total', { upstream: 'memory' })).toBe(1);
    expect(scrape.value('mcp_gateway_upstream_up', { upstream: 'memory' })).toBe(1);

    // The store's file is deleted under it: not ready, and what the store fails is counted.
    await rm(served.database);
    expect(await probe(served, '/readyz')).toMatchObject({
      status: 503,
      body: { checks: { store: 'unavailable', upstreams: { memory: { state: 'up' } } } },
    });
    expect(errorOf(await client.callTool('read_graph', {})).code).toBe('SERVICE_UNAVAILABLE');
    scrape = await scrapeOf(served);
    expect(scrape.value('mcp_gateway_store_errors_total', { reason: 'file_deleted' })).toBeGreaterThanOrEqual(1);
    expect(
      scrape.value('mcp_gateway_tool_calls_total', {
        upstream: 'memory',
        gen_ai_tool_name: 'read_graph',
        outcome: 'error',
        error_category: 'transient',
      }),
    ).toBe(1);
    expect((await probe(served, '/healthz')).status).toBe(200);
  });
});

describe('metrics on an address of their own', () => {
  it('are served there without credentials, not beside the MCP endpoint; two gateways keep their own', async () => {
    const apart = { metrics: { listen: { port: 0 } }, identity: { anonymous: true } };
    const first = await metricsGateway(apart);
    const second = await metricsGateway(apart);
    const { client } = await connectClient(first.url, { era: 'modern' });
    await client.callTool('create_entities', { entities: [entity('ada')] });

    const scrapeApart = async (served: ServedGateway) => {
      const url = served.gateway.metricsUrl;
      if (url === undefined) throw new Error('the metrics address is not listening');
      const response = await fetch(new URL('/metrics', url));
      expect(response.status).toBe(200);
      return readScrape(await response.text());
    };
    const labels = { upstream: 'memory', gen_ai_tool_name: 'create_entities', outcome: 'ok', error_category: '' };
    expect((await scrapeApart(first)).value('mcp_gateway_tool_calls_total', labels)).toBe(1);
    expect((await scrapeApart(second)).family('mcp_gateway_tool_calls_total').samples).toEqual([]);
    expect(first.gateway.metricsUrl?.port).not.toBe(second.gateway.metricsUrl?.port);

    expect((await fetch(new URL('/metrics', first.url))).status).toBe(404);
    expect((await probe(first, '/healthz')).status).toBe(200);
    expect((await fetch(new URL('/readyz', first.gateway.metricsUrl))).status).toBe(200);
  });
});

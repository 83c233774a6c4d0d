// The operations endpoints as the config sets them up (GW-36, GW-38): beside the MCP endpoint behind an operator's scope, or apart.
import { request as httpRequest } from 'node:http';
import { MemoryStore } from '@ext/core';
import { silentLogger } from '@ext/core/kit';
import { afterEach, describe, expect, it } from 'vitest';
import type { MetricsConfig } from '../config/metrics-schema.js';
import { callerIdentification } from '../identity.js';
import { gatewayOperations, type GatewayOperations } from './operations.js';
import { readScrape } from './testing.js';

const OPERATOR_KEY = 'operator-key-0123456789';
const CLIENT_KEY = 'client-key-0123456789ab';
const identification = callerIdentification(
  {
    apiKeys: {
      [OPERATOR_KEY]: { principal: 'ops', scopes: ['gateway:metrics'] },
      [CLIENT_KEY]: { principal: 'agent', scopes: ['files:write'] },
    },
  },
  { logger: silentLogger },
);

const started: GatewayOperations[] = [];
afterEach(async () => {
  for (const operations of started.splice(0)) await operations.close();
});

/** Operations for `config`, started over a memory store and one upstream, `files`, that answers. */
async function operationsFor(config: MetricsConfig | undefined): Promise<GatewayOperations> {
  const operations = gatewayOperations(config, silentLogger);
  started.push(operations);
  operations.recorder.upstreamState('files', true);
  await operations.start({
    store: new MemoryStore(),
    upstreams: () => ['files'],
    identification: () => identification,
  });
  return operations;
}

/** The status of a GET of `url` naming `host` as its `Host` (which fetch will not set). */
function statusWithHost(url: URL, host: string): Promise<number | undefined> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { headers: { host } }, (res) => {
      res.resume();
      resolve(res.statusCode);
    });
    req.on('error', reject);
    req.end();
  });
}

function get(path: string, headers: Record<string, string> = {}, method = 'GET'): Request {
  return new Request(`http://127.0.0.1:8080${path}`, { method, headers });
}

describe('health and readiness, whatever the config says', () => {
  it('/healthz is alive and /readyz lists the upstreams; other paths and methods are not ours', async () => {
    const operations = await operationsFor(undefined);
    const alive = await operations.pages(get('/healthz'));
    expect([alive?.status, await alive?.json()]).toEqual([200, { status: 'alive' }]);
    const ready = await operations.pages(get('/readyz'));
    expect(ready?.status).toBe(200);
    expect(ready?.headers.get('cache-control')).toBe('no-store');
    expect(await ready?.json()).toEqual({
      status: 'ready',
      checks: { config: 'loaded', store: 'ok', upstreams: { files: { state: 'up', breaker: 'closed' } } },
    });
    const head = await operations.pages(get('/readyz', {}, 'HEAD'));
    expect([head?.status, await head?.text()]).toEqual([200, '']);
    const posted = await operations.pages(get('/healthz', {}, 'POST'));
    expect([posted?.status, posted?.headers.get('allow')]).toEqual([405, 'GET, HEAD']);
    expect(await operations.pages(get('/metrics'))).toBeUndefined();
    expect(await operations.pages(get('/mcp'))).toBeUndefined();
  });

  it('/readyz is 503 while no upstream answers', async () => {
    const operations = await operationsFor(undefined);
    operations.recorder.upstreamState('files', false);
    const ready = await operations.pages(get('/readyz'));
    expect(ready?.status).toBe(503);
    expect(await ready?.json()).toMatchObject({
      status: 'not_ready',
      checks: { upstreams: { files: { state: 'down' } } },
    });
  });
});

describe('metrics beside the MCP endpoint', () => {
  it('are read by an operator holding the scope: 401 without credentials, 403 without the scope', async () => {
    const operations = await operationsFor({});
    const anonymous = await operations.pages(get('/metrics'));
    expect([anonymous?.status, anonymous?.headers.get('www-authenticate')]).toEqual([401, 'Bearer']);
    expect(await anonymous?.json()).toMatchObject({ error: { code: 'UNAUTHENTICATED' } });
    const wrongKey = await operations.pages(get('/metrics', { authorization: 'Bearer not-a-key-at-all-000' }));
    expect(wrongKey?.status).toBe(401);
    const client = await operations.pages(get('/metrics', { authorization: `Bearer ${CLIENT_KEY}` }));
    expect(client?.status).toBe(403);
    expect(await client?.json()).toMatchObject({ error: { code: 'MISSING_SCOPE' } });

    const operator = await operations.pages(get('/metrics', { 'x-api-key': OPERATOR_KEY }));
    expect(operator?.status).toBe(200);
    expect(operator?.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    const scrape = await readScrape((await operator?.text()) ?? '');
    expect(scrape.value('mcp_gateway_upstream_up', { upstream: 'files' })).toBe(1);
  });

  it('at the path and under the scope the config names', async () => {
    const operations = await operationsFor({ path: '/ops/prometheus', scope: 'ops:read' });
    expect(await operations.pages(get('/metrics'))).toBeUndefined();
    const refused = await operations.pages(get('/ops/prometheus', { authorization: `Bearer ${OPERATOR_KEY}` }));
    expect(refused?.status).toBe(403);
    expect(await refused?.json()).toMatchObject({ error: { message: 'Reading the metrics needs the scope ops:read' } });
  });
});

describe('metrics on an address of their own', () => {
  it('serve the metrics, /healthz and /readyz there without credentials, and nothing beside the MCP endpoint', async () => {
    const operations = await operationsFor({ listen: { port: 0 } });
    const url = operations.url;
    if (url === undefined) throw new Error('the metrics address is not listening');
    expect(url.hostname).toBe('127.0.0.1');

    const scraped = await fetch(new URL('/metrics', url));
    expect(scraped.status).toBe(200);
    const scrape = await readScrape(await scraped.text());
    expect(scrape.value('mcp_gateway_upstream_up', { upstream: 'files' })).toBe(1);
    expect((await fetch(new URL('/readyz', url))).status).toBe(200);
    expect(await (await fetch(new URL('/healthz', url))).json()).toEqual({ status: 'alive' });
    expect((await fetch(new URL('/mcp', url))).status).toBe(404);
    // The Host checks of every other endpoint hold here too (DNS rebinding).
    expect(await statusWithHost(new URL('/metrics', url), `rebind.evil.example:${url.port}`)).toBe(403);
    expect(await statusWithHost(new URL('/metrics', url), `localhost:${url.port}`)).toBe(200);

    expect(await operations.pages(get('/metrics', { authorization: `Bearer ${OPERATOR_KEY}` }))).toBeUndefined();
    expect((await operations.pages(get('/healthz')))?.status).toBe(200);

    await operations.close();
    await expect(fetch(new URL('/healthz', url))).rejects.toThrow();
  });
});

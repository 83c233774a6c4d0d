/**
 * The gateway as an OAuth 2.1 resource server in front of a real, certified
 * OpenID provider (`oidc-provider`, tokens by client credentials): a valid
 * token calls through; every attack on a token is refused with the right
 * status and challenge and reaches no upstream; two clients of the provider
 * are two principals; the SDK's own OAuth client finds the provider through
 * the gateway's metadata and gets a token unaided.
 */
import { createServer } from 'node:net';
import { errorsClient } from '@ext/errors/client';
import { getReplayInfo, idempotencyClient, idempotencyMeta } from '@ext/idempotency/client';
import { Client, ClientCredentialsProvider, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '@ext/core/kit';
import { createGateway } from '../gateway.js';
import { serveV2, type V2Upstream } from '../upstream/testing/servers.js';
import { startProvider, type TestProvider } from './oidc-provider.js';
import { closeAfter, closeAfterEach, connectClient, errorOf, gatewayConfig, serveGateway, textOf } from './support.js';

closeAfterEach();

/** A port nothing listens on now, so the gateway's audience can name it before it listens. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

let provider: TestProvider;
let upstream: V2Upstream;
beforeAll(async () => {
  provider = await startProvider({ accessTokenTtlSeconds: 300 });
  upstream = await serveV2();
});
afterAll(async () => {
  await upstream.close();
  await provider.close();
});

async function oauthGateway(options: { quota?: number; provider?: TestProvider } = {}) {
  const trusted = options.provider ?? provider;
  const port = await freePort();
  const audience = `http://127.0.0.1:${String(port)}/mcp`;
  const config = gatewayConfig({
    upstreams: { notes: { url: upstream.url, protocol: '2026-07-28', timeoutMs: 5000 } },
    policy: {
      echo: {
        scopes: ['notes:write'],
        idempotent: true,
        ...(options.quota === undefined
          ? {}
          : { cost: { units: 1, quota: { limit: options.quota, windowSeconds: 3600 } } }),
      },
    },
    identity: {
      oauth: {
        issuer: trusted.issuer,
        audience,
        clockToleranceSeconds: 0,
        keyRefreshCooldownSeconds: 1,
        introspection: { clientId: provider.introspectionClient.clientId, clientSecretEnv: 'E2E_INTROSPECTION_SECRET' },
      },
    },
    listen: { port },
    store: 'memory',
  });
  process.env.E2E_INTROSPECTION_SECRET = provider.introspectionClient.clientSecret;
  const served = await serveGateway(config);
  return { ...served, audience };
}

/** What the gateway answers a raw request carrying `authorization`, and its challenge. */
async function knock(url: URL, authorization: string | undefined) {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(authorization === undefined ? {} : { authorization }),
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
    }),
  });
  await response.body?.cancel();
  return { status: response.status, challenge: response.headers.get('www-authenticate') ?? '' };
}

function segments(token: string): [string, string, string] {
  const [header = '', payload = '', signature = ''] = token.split('.');
  return [header, payload, signature];
}

const json = (part: string) => JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as Record<string, unknown>;
const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

describe('OAuth access tokens from a real OpenID provider (GW-22)', () => {
  it('a valid token calls through, as its client, with its scopes', async () => {
    const served = await oauthGateway();
    const token = await provider.token({ resource: served.audience, scope: 'notes:write' });
    const { client } = await connectClient(served.url, {
      era: 'modern',
      extensions: [errorsClient()],
      headers: { authorization: `Bearer ${token}` },
    });
    expect(textOf(await client.callTool('echo', { text: 'through' }))).toBe('through');
    // Its scope decides: a token without notes:write is refused by the permissions extension, naming it.
    const reader = await provider.token({ client: 'agent-reader', resource: served.audience, scope: 'notes:read' });
    const { client: readOnly } = await connectClient(served.url, {
      era: 'legacy',
      extensions: [errorsClient()],
      headers: { authorization: `Bearer ${reader}` },
    });
    const refused = errorOf(await readOnly.callTool('echo', { text: 'no' }));
    expect(refused.code).toBe('SCOPE_INSUFFICIENT');
  });

  it('refuses every attack on a token with 401 and its challenge, and none reaches the upstream', async () => {
    const served = await oauthGateway();
    const metadata = `resource_metadata="http://127.0.0.1:${served.url.port}/.well-known/oauth-protected-resource/mcp"`;
    const valid = await provider.token({ resource: served.audience, scope: 'notes:write' });
    const [header, payload, signature] = segments(valid);
    const publicJwk = await (await fetch(provider.jwksUri)).json();
    const attacker = await generateKeyPair('RS256');
    const other = await startProvider();
    closeAfter(() => other.close());
    const opaque = await provider.opaqueToken({ resource: served.audience, scope: 'notes:write' });
    await provider.revoke(opaque);

    const attacks: Record<string, string> = {
      'wrong issuer': await other.token({ resource: served.audience, scope: 'notes:write' }),
      'another resource': await provider.token({ resource: `${served.audience}/other`, scope: 'notes:write' }),
      'alg none': `${encode({ alg: 'none', typ: 'at+jwt' })}.${payload}.`,
      'HS256 signed with the public key': await new SignJWT(json(payload))
        .setProtectedHeader({ alg: 'HS256', typ: 'at+jwt' })
        .sign(new TextEncoder().encode(JSON.stringify(publicJwk))),
      'a tampered payload': `${header}.${encode({ ...json(payload), sub: 'root', scope: 'admin' })}.${signature}`,
      'an unknown kid': await new SignJWT(json(payload))
        .setProtectedHeader({
          alg: 'RS256',
          typ: 'at+jwt',
          kid: (await exportJWK(attacker.publicKey)).n?.slice(0, 8) ?? 'x',
        })
        .sign(attacker.privateKey),
      'a revoked opaque token': opaque,
    };
    const reached = upstream.authorizations.length;
    expect(await knock(served.url, undefined)).toEqual({ status: 401, challenge: `Bearer ${metadata}` });
    for (const [name, token] of Object.entries(attacks)) {
      const answer = await knock(served.url, `Bearer ${token}`);
      expect({ name, status: answer.status }).toEqual({ name, status: 401 });
      expect(answer.challenge).toMatch(/^Bearer error="invalid_token", error_description="[^"]+", resource_metadata=/);
    }
    expect(upstream.authorizations.length).toBe(reached);
  });

  it('an expired token of its own provider is refused', async () => {
    // Long enough to be used once on a loaded machine, short enough to wait out.
    const shortLived = await startProvider({ accessTokenTtlSeconds: 4 });
    closeAfter(() => shortLived.close());
    const served = await oauthGateway({ provider: shortLived });
    const token = await shortLived.token({ resource: served.audience, scope: 'notes:write' });
    expect((await knock(served.url, `Bearer ${token}`)).status).toBe(200);
    await expect
      .poll(async () => (await knock(served.url, `Bearer ${token}`)).status, { timeout: 15_000, interval: 500 })
      .toBe(401);
    const expired = await knock(served.url, `Bearer ${token}`);
    expect(expired.challenge).toContain('expired');
  });

  it('a rotated key is taken up, a dropped one refused', async () => {
    const served = await oauthGateway();
    const before = await provider.token({ resource: served.audience, scope: 'notes:write' });
    expect((await knock(served.url, `Bearer ${before}`)).status).toBe(200);
    await provider.rotateKeys({ keepPrevious: false });
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const after = await provider.token({ resource: served.audience, scope: 'notes:write' });
    expect((await knock(served.url, `Bearer ${after}`)).status).toBe(200);
    const dropped = await knock(served.url, `Bearer ${before}`);
    expect(dropped.status).toBe(401);
    expect(dropped.challenge).toContain('unknown');
  });

  it('an opaque token is introspected: accepted while active, refused once revoked', async () => {
    const served = await oauthGateway();
    const opaque = await provider.opaqueToken({ resource: served.audience, scope: 'notes:write' });
    expect((await knock(served.url, `Bearer ${opaque}`)).status).toBe(200);
    await provider.revoke(opaque);
    // The active answer is reused for at most 30 s (the default); a new gateway asks again.
    const fresh = await oauthGateway();
    const forFresh = await provider.opaqueToken({ resource: fresh.audience, scope: 'notes:write' });
    await provider.revoke(forFresh);
    expect((await knock(fresh.url, `Bearer ${forFresh}`)).status).toBe(401);
  });

  it('two clients of the provider keep separate quotas and idempotency records', async () => {
    const served = await oauthGateway({ quota: 2 });
    const connect = async (client: string) => {
      const token = await provider.token({ client, resource: served.audience, scope: 'notes:write' });
      return (
        await connectClient(served.url, {
          era: 'modern',
          extensions: [errorsClient(), idempotencyClient()],
          headers: { authorization: `Bearer ${token}` },
        })
      ).client;
    };
    const ada = await connect('agent-a');
    const bea = await connect('agent-b');
    const first = await ada.callTool('echo', { text: 'ada' }, { meta: idempotencyMeta('shared-key-0001') });
    expect(textOf(first)).toBe('ada');
    // The same key from another principal is a call of its own, not a replay of ada's.
    const beas = await bea.callTool('echo', { text: 'bea' }, { meta: idempotencyMeta('shared-key-0001') });
    expect(textOf(beas)).toBe('bea');
    expect(getReplayInfo(beas)?.was_replay ?? false).toBe(false);
    expect(textOf(await ada.callTool('echo', { text: 'ada again' }))).toBe('ada again');
    expect(errorOf(await ada.callTool('echo', { text: 'one too many' })).code).toBe('QUOTA_EXHAUSTED');
    expect(textOf(await bea.callTool('echo', { text: 'bea again' }))).toBe('bea again');
  });

  it('stops at start, naming the field, when the introspection secret is not in the environment', async () => {
    const config = gatewayConfig({
      upstreams: { notes: { url: upstream.url, protocol: '2026-07-28', timeoutMs: 5000 } },
      identity: {
        oauth: {
          issuer: provider.issuer,
          audience: 'http://127.0.0.1:9/mcp',
          introspection: { clientId: 'resource-server', clientSecretEnv: 'E2E_SECRET_NOBODY_SET' },
        },
      },
      store: 'memory',
    });
    const gateway = await createGateway(config, { logger: silentLogger });
    closeAfter(() => gateway.close());
    expect(() => gateway.http).toThrow(/identity\.oauth\.introspection\.clientSecretEnv.*E2E_SECRET_NOBODY_SET/);
  });

  it("the SDK's OAuth client discovers the metadata and gets a token from the provider unaided", async () => {
    const served = await oauthGateway();
    const credentials = provider.clients['agent-a'];
    if (credentials === undefined) throw new Error('the provider has no agent-a');
    const authProvider = new ClientCredentialsProvider({
      ...credentials,
      scope: 'notes:write',
      expectedIssuer: provider.issuer,
    });
    const client = new Client({ name: 'oauth-agent', version: '0' });
    await client.connect(new StreamableHTTPClientTransport(served.url, { authProvider }));
    closeAfter(() => client.close());
    const result = await client.callTool({ name: 'echo', arguments: { text: 'unaided' } });
    expect(textOf(result)).toBe('unaided');
  });
});

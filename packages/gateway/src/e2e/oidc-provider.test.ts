/**
 * The OpenID provider fixture itself: JWT access tokens verify against its
 * published JWKS (iss, aud, typ), opaque ones introspect active until revoked,
 * a key rotation changes the kid, and two clients are two principals.
 */
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startProvider, type ProviderClientCredentials, type TestProvider } from './oidc-provider.js';

const RESOURCE = 'http://127.0.0.1:9/mcp';

function basic(client: ProviderClientCredentials): string {
  return `Basic ${Buffer.from(`${client.clientId}:${client.clientSecret}`).toString('base64')}`;
}

async function introspect(provider: TestProvider, token: string): Promise<Record<string, unknown>> {
  const response = await fetch(provider.introspectionEndpoint, {
    method: 'POST',
    headers: { authorization: basic(provider.introspectionClient) },
    body: new URLSearchParams({ token }),
  });
  expect(response.status).toBe(200);
  return (await response.json()) as Record<string, unknown>;
}

async function verify(provider: TestProvider, token: string) {
  const jwks = createRemoteJWKSet(new URL(provider.jwksUri));
  return jwtVerify(token, jwks, { issuer: provider.issuer, audience: RESOURCE, typ: 'at+jwt' });
}

describe('the OpenID provider fixture', () => {
  let provider: TestProvider;
  beforeAll(async () => {
    provider = await startProvider({ opaqueResources: ['http://127.0.0.1:9/configured'] });
  });
  afterAll(() => provider.close());

  it('publishes discovery with its exact issuer, jwks_uri and introspection_endpoint', async () => {
    const response = await fetch(`${provider.issuer}/.well-known/openid-configuration`);
    const discovery = (await response.json()) as Record<string, unknown>;
    expect(provider.issuer).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(discovery).toMatchObject({
      issuer: provider.issuer,
      jwks_uri: provider.jwksUri,
      introspection_endpoint: provider.introspectionEndpoint,
      revocation_endpoint: provider.revocationEndpoint,
      token_endpoint: provider.tokenEndpoint,
    });
  });

  it('issues RS256 at+jwt access tokens for the resource that verify against its JWKS', async () => {
    const token = await provider.token({ resource: RESOURCE, scope: 'notes:read mcp:use' });
    const { payload, protectedHeader } = await verify(provider, token);
    expect(protectedHeader).toMatchObject({ alg: 'RS256', typ: 'at+jwt', kid: provider.currentKid });
    expect(payload).toMatchObject({
      iss: provider.issuer,
      aud: RESOURCE,
      sub: 'agent-a',
      client_id: 'agent-a',
      scope: 'notes:read mcp:use',
    });
    expect(payload.exp! - payload.iat!).toBe(300);
  });

  it('issues opaque tokens that introspect active for the resource server until revoked', async () => {
    const token = await provider.opaqueToken({ client: 'agent-b', resource: RESOURCE, scope: 'notes:write' });
    expect(token.split('.')).toHaveLength(1);
    expect(await introspect(provider, token)).toMatchObject({
      active: true,
      iss: provider.issuer,
      aud: RESOURCE,
      client_id: 'agent-b',
      scope: 'notes:write',
      token_type: 'Bearer',
    });
    await provider.revoke(token);
    expect(await introspect(provider, token)).toEqual({ active: false });
  });

  it('gives opaque tokens to configured resources when a client asks the token endpoint itself', async () => {
    for (const resource of ['http://127.0.0.1:9/configured', 'http://127.0.0.1:9/notes/opaque']) {
      const response = await fetch(provider.tokenEndpoint, {
        method: 'POST',
        headers: { authorization: basic(provider.clients['agent-a']!) },
        body: new URLSearchParams({ grant_type: 'client_credentials', resource }),
      });
      const { access_token } = (await response.json()) as { access_token: string };
      expect(access_token.split('.')).toHaveLength(1);
      expect(await introspect(provider, access_token)).toMatchObject({ active: true, aud: resource });
    }
  });

  it('tells two clients apart', async () => {
    const [a, b] = await Promise.all([
      provider.token({ client: 'agent-a', resource: RESOURCE }),
      provider.token({ client: 'agent-b', resource: RESOURCE }),
    ]);
    const [{ payload: pa }, { payload: pb }] = await Promise.all([verify(provider, a), verify(provider, b)]);
    expect([pa.sub, pa['client_id']]).toEqual(['agent-a', 'agent-a']);
    expect([pb.sub, pb['client_id']]).toEqual(['agent-b', 'agent-b']);
  });

  it('refuses a scope the client may not ask for and leaves out scopes it does not know', async () => {
    await expect(provider.token({ client: 'agent-reader', resource: RESOURCE, scope: 'notes:write' })).rejects.toThrow(
      /invalid_scope/,
    );
    const token = await provider.token({ client: 'agent-reader', resource: RESOURCE, scope: 'notes:read admin' });
    expect((await verify(provider, token)).payload['scope']).toBe('notes:read');
  });
});

describe('key rotation and token lifetime', () => {
  it('signs with a new kid after rotateKeys, publishing the previous key until dropped', async () => {
    const provider = await startProvider({ accessTokenTtlSeconds: 120 });
    try {
      const before = await provider.token({ resource: RESOURCE });
      const opaque = await provider.opaqueToken({ resource: RESOURCE });
      await provider.rotateKeys();
      const after = await provider.token({ resource: RESOURCE });
      expect(decodeProtectedHeader(after).kid).toBe(provider.currentKid);
      expect(decodeProtectedHeader(after).kid).not.toBe(decodeProtectedHeader(before).kid);
      const { payload } = await verify(provider, after);
      expect(payload.exp! - payload.iat!).toBe(120);
      await verify(provider, before);
      expect(await introspect(provider, opaque)).toMatchObject({ active: true });

      await provider.rotateKeys({ keepPrevious: false });
      await expect(verify(provider, before)).rejects.toThrow();
      await expect(verify(provider, after)).rejects.toThrow();
      await verify(provider, await provider.token({ resource: RESOURCE }));
    } finally {
      await provider.close();
    }
  });
});

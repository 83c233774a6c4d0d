/**
 * The resource server against an issuer served over real HTTP (metadata,
 * keys, introspection), with tokens signed by `jose`: every attack on a
 * token is refused with the right status and challenge, an issuer that
 * does not answer is a 503 (logged once), and a real MCP client calls
 * through `listen` with a valid token.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { McpServer } from '@modelcontextprotocol/server';
import { exportJWK, generateKeyPair, SignJWT, type JWK, type JWTPayload } from 'jose';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { composeServer } from '../pipeline/compose.js';
import { ConfigurationError } from '../contract/errors.js';
import { listen } from '../http/listen.js';
import { silentLogger, type Logger } from '../telemetry/logger.js';
import { createHttpHandler, extendServer } from '../sdk-v2/index.js';
import { oauthResource, type OAuthResourceOptions } from './index.js';

type KeyPair = Awaited<ReturnType<typeof generateKeyPair>>;

interface TestIssuer {
  readonly url: string;
  /** Keys published at the JWKS endpoint, by kid. */
  readonly published: Map<string, JWK>;
  /** Opaque tokens the introspection endpoint knows, and what it says of each. */
  readonly opaque: Map<string, Record<string, unknown>>;
  readonly counts: { jwks: number; introspection: number; metadata: number };
  /** While `true`, every endpoint answers 500. */
  down: boolean;
  close(): Promise<void>;
}

const INTROSPECTION_CLIENT = { clientId: 'mcp-resource', clientSecret: 'resource-secret-0123456789' };

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

async function bodyOf(req: IncomingMessage): Promise<string> {
  let text = '';
  for await (const chunk of req) text += String(chunk);
  return text;
}

async function startIssuer(): Promise<TestIssuer> {
  const issuer: Omit<TestIssuer, 'url' | 'close'> = {
    published: new Map(),
    opaque: new Map(),
    counts: { jwks: 0, introspection: 0, metadata: 0 },
    down: false,
  };
  let url = '';
  const server = createServer((req, res) => {
    void (async () => {
      if (issuer.down) {
        json(res, 500, { error: 'down' });
        return;
      }
      if (req.url === '/.well-known/openid-configuration') {
        issuer.counts.metadata += 1;
        json(res, 200, { issuer: url, jwks_uri: `${url}/jwks`, introspection_endpoint: `${url}/introspect` });
        return;
      }
      if (req.url === '/jwks') {
        issuer.counts.jwks += 1;
        json(res, 200, { keys: [...issuer.published.values()] });
        return;
      }
      if (req.url === '/introspect' && req.method === 'POST') {
        issuer.counts.introspection += 1;
        const basic = Buffer.from(`${INTROSPECTION_CLIENT.clientId}:${INTROSPECTION_CLIENT.clientSecret}`).toString(
          'base64',
        );
        if (req.headers.authorization !== `Basic ${basic}`) {
          json(res, 401, { error: 'invalid_client' });
          return;
        }
        const token = new URLSearchParams(await bodyOf(req)).get('token') ?? '';
        json(res, 200, issuer.opaque.get(token) ?? { active: false });
        return;
      }
      json(res, 404, {});
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`;
  return {
    ...issuer,
    get down() {
      return issuer.down;
    },
    set down(value: boolean) {
      issuer.down = value;
    },
    url,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
}

const AUDIENCE = 'https://mcp.example.com/mcp';
let issuer: TestIssuer;
let key: KeyPair;

async function publish(kid: string): Promise<KeyPair> {
  const pair = await generateKeyPair('RS256', { extractable: true });
  issuer.published.set(kid, { ...(await exportJWK(pair.publicKey)), kid, alg: 'RS256', use: 'sig' });
  return pair;
}

beforeAll(async () => {
  issuer = await startIssuer();
  key = await publish('k1');
});
afterAll(() => issuer.close());

const now = () => Math.floor(Date.now() / 1000);

function sign(claims: JWTPayload, options: { key?: KeyPair; kid?: string; alg?: string } = {}): Promise<string> {
  return new SignJWT({ iss: issuer.url, aud: AUDIENCE, sub: 'ada', exp: now() + 300, scope: 'notes:read', ...claims })
    .setProtectedHeader({ alg: options.alg ?? 'RS256', kid: options.kid ?? 'k1', typ: 'at+jwt' })
    .sign((options.key ?? key).privateKey);
}

function resource(options: Partial<OAuthResourceOptions> = {}, logger: Logger = silentLogger) {
  return oauthResource({ issuer: issuer.url, audience: AUDIENCE, ...options }, { logger });
}

function withToken(token: string | undefined): Request {
  return new Request('http://127.0.0.1/mcp', {
    method: 'POST',
    headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
  });
}

async function refusal(answer: unknown): Promise<{ status: number; challenge: string | null; body: unknown }> {
  if (!(answer instanceof Response)) throw new Error(`expected a refusal, got ${JSON.stringify(answer)}`);
  return { status: answer.status, challenge: answer.headers.get('www-authenticate'), body: await answer.json() };
}

const METADATA = 'resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp"';

describe('JWT access tokens (AUTH-4, AUTH-5)', () => {
  it('a valid token names the caller by issuer and subject, with its scopes and roles', async () => {
    const token = await sign({ scope: 'notes:read notes:write', realm_access: { roles: ['editor'] } });
    const info = await resource({ claims: { roles: 'realm_access.roles' } }).authenticate(withToken(token));
    expect(info).toMatchObject({
      token,
      scopes: ['notes:read', 'notes:write'],
      extra: { iss: issuer.url, sub: 'ada', roles: ['editor'] },
    });
  });

  it('reads scopes from scp, or from the configured claim, and the principal from the configured claim', async () => {
    const scp = await resource().authenticate(withToken(await sign({ scope: undefined, scp: ['a', 'b'] })));
    expect(scp).toMatchObject({ scopes: ['a', 'b'] });
    const custom = await resource({ claims: { scopes: 'perms', principal: 'email' } }).authenticate(
      withToken(await sign({ perms: 'x y', email: 'ada@example.com' })),
    );
    expect(custom).toMatchObject({ scopes: ['x', 'y'], extra: { sub: 'ada@example.com' } });
    // A client-credentials token without `sub` names its client; a configured claim has no such fallback.
    const client = await resource().authenticate(withToken(await sign({ sub: undefined, client_id: 'robot' })));
    expect(client).toMatchObject({ clientId: 'robot', extra: { sub: 'robot' } });
    const strict = resource({ claims: { principal: 'sub' } });
    expect(await strict.authenticate(withToken(await sign({ sub: undefined, client_id: 'robot' })))).toBeInstanceOf(
      Response,
    );
  });

  it('answers 401 with the metadata URL and no error code when no token is sent', async () => {
    const answer = await refusal(await resource().authenticate(withToken(undefined)));
    expect(answer.status).toBe(401);
    expect(answer.challenge).toBe(`Bearer ${METADATA}`);
  });

  const attacks: [string, () => Promise<string>, RegExp][] = [
    ['expired', () => sign({ exp: now() - 120 }), /expired/],
    ['not yet valid', () => sign({ nbf: now() + 120 }), /not yet valid/],
    ['from another issuer', () => sign({ iss: 'https://evil.example' }), /iss/],
    ['for another resource', () => sign({ aud: 'https://other.example.com/mcp' }), /aud/],
    ['without exp', () => sign({ exp: undefined }), /exp|malformed/],
    [
      'alg none',
      async () => {
        const [, payload] = (await sign({})).split('.');
        return `${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${payload ?? ''}.`;
      },
      /algorithm|malformed/,
    ],
    [
      'HS256 signed with the public key',
      async () => {
        const publicPem = Buffer.from(JSON.stringify(issuer.published.get('k1')));
        return new SignJWT({ iss: issuer.url, aud: AUDIENCE, sub: 'ada', exp: now() + 300 })
          .setProtectedHeader({ alg: 'HS256', kid: 'k1' })
          .sign(publicPem);
      },
      /algorithm/,
    ],
    [
      'a tampered payload',
      async () => {
        const [header, , signature] = (await sign({ scope: 'notes:read' })).split('.');
        const forged = Buffer.from(
          JSON.stringify({ iss: issuer.url, aud: AUDIENCE, sub: 'root', exp: now() + 300, scope: 'admin' }),
        ).toString('base64url');
        return `${header ?? ''}.${forged}.${signature ?? ''}`;
      },
      /signature/,
    ],
    [
      'signed by a key the issuer never published',
      async () => sign({}, { key: await generateKeyPair('RS256'), kid: 'forged' }),
      /unknown/,
    ],
    ['without a subject or a client', () => sign({ sub: undefined }), /sub/],
    ['not a JWT, with no introspection configured', () => Promise.resolve('opaque-token-value'), /not a JWT/],
  ];

  it.each(attacks)('refuses a token %s: 401 invalid_token with the metadata URL', async (_name, make, reason) => {
    const answer = await refusal(await resource().authenticate(withToken(await make())));
    expect(answer.status).toBe(401);
    expect(answer.challenge).toMatch(/^Bearer error="invalid_token", error_description="[^"]+", resource_metadata="/);
    expect(answer.challenge).toMatch(reason);
  });

  it('tolerates the configured clock skew, and no more', async () => {
    const server = resource({ clockToleranceSeconds: 60 });
    expect(await server.authenticate(withToken(await sign({ exp: now() - 30 })))).not.toBeInstanceOf(Response);
    expect((await refusal(await server.authenticate(withToken(await sign({ exp: now() - 90 }))))).status).toBe(401);
  });

  it('takes up a rotated key on its first use', async () => {
    const server = resource({ keyRefreshCooldownSeconds: 1 });
    await server.authenticate(withToken(await sign({})));
    const before = issuer.counts.jwks;
    const rotated = await publish('k2');
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect(await server.authenticate(withToken(await sign({}, { key: rotated, kid: 'k2' })))).toMatchObject({
      extra: { sub: 'ada' },
    });
    expect(issuer.counts.jwks).toBe(before + 1);
  });

  it('refetches the keys at most once per cooldown, however many unknown kids arrive', async () => {
    const forger = await generateKeyPair('RS256');
    const server = resource();
    await server.authenticate(withToken(await sign({})));
    const before = issuer.counts.jwks;
    for (let index = 0; index < 5; index += 1) {
      const forged = await sign({}, { key: forger, kid: `forged-${String(index)}` });
      expect((await refusal(await server.authenticate(withToken(forged)))).status).toBe(401);
    }
    expect(issuer.counts.jwks).toBe(before);
  });
});

describe('the issuer as a dependency (AUTH-7)', () => {
  afterEach(() => {
    issuer.down = false;
  });

  it('answers 503 with Retry-After while the issuer is down, logs the outage once, and recovers', async () => {
    const warnings: string[] = [];
    const server = resource({}, { warn: (message) => warnings.push(message) });
    issuer.down = true;
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const answer = await server.authenticate(withToken(await sign({})));
      expect(answer).toBeInstanceOf(Response);
      expect((answer as Response).status).toBe(503);
      expect((answer as Response).headers.get('retry-after')).toBe('5');
    }
    expect(warnings).toHaveLength(1);
    issuer.down = false;
    // A given jwksUri needs no discovery: the keys answer again at once.
    const direct = resource({ jwksUri: `${issuer.url}/jwks` });
    expect(await direct.authenticate(withToken(await sign({})))).toMatchObject({ extra: { sub: 'ada' } });
  });

  it('refuses metadata that names another issuer', async () => {
    const warnings: string[] = [];
    const server = oauthResource(
      { issuer: `${issuer.url}/other`, audience: AUDIENCE },
      { logger: { warn: (message) => warnings.push(message) } },
    );
    expect(((await server.authenticate(withToken(await sign({})))) as Response).status).toBe(503);
    expect(warnings).toHaveLength(1);
  });
});

describe('opaque tokens by introspection (AUTH-6)', () => {
  const active = (extra: Record<string, unknown> = {}) => ({
    active: true,
    iss: issuer.url,
    aud: AUDIENCE,
    sub: 'bea',
    scope: 'notes:read',
    exp: now() + 300,
    ...extra,
  });

  it('accepts an active token for this resource, and refuses a revoked one at once when not cached', async () => {
    issuer.opaque.set('opaque-1', active());
    const server = resource({ introspection: { ...INTROSPECTION_CLIENT, cacheSeconds: 0 } });
    expect(await server.authenticate(withToken('opaque-1'))).toMatchObject({ extra: { sub: 'bea' } });
    issuer.opaque.set('opaque-1', { active: false });
    const answer = await refusal(await server.authenticate(withToken('opaque-1')));
    expect(answer.status).toBe(401);
    expect(answer.challenge).toMatch(/not active/);
  });

  it('reuses an active answer for at most cacheSeconds and never past exp', async () => {
    issuer.opaque.set('opaque-2', active({ exp: now() + 1 }));
    const server = resource({ introspection: { ...INTROSPECTION_CLIENT, cacheSeconds: 600 } });
    const before = issuer.counts.introspection;
    await server.authenticate(withToken('opaque-2'));
    await server.authenticate(withToken('opaque-2'));
    expect(issuer.counts.introspection).toBe(before + 1);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    issuer.opaque.set('opaque-2', { active: false });
    expect((await refusal(await server.authenticate(withToken('opaque-2')))).status).toBe(401);
  });

  it.each([
    ['for another resource', { aud: 'https://other.example.com/mcp' }, /another resource/],
    ['without an audience', { aud: undefined }, /another resource/],
    ['from another issuer', { iss: 'https://evil.example' }, /another issuer/],
    ['expired', { exp: now() - 3600 }, /expired/],
  ])('refuses an active token %s', async (_name, extra, reason) => {
    issuer.opaque.set('opaque-3', active(extra));
    const server = resource({ introspection: { ...INTROSPECTION_CLIENT, cacheSeconds: 0 } });
    const answer = await refusal(await server.authenticate(withToken('opaque-3')));
    expect(answer.status).toBe(401);
    expect(answer.challenge).toMatch(reason);
  });

  it('answers 503 when its own introspection credentials are refused (a fault to fix, not the caller’s)', async () => {
    issuer.opaque.set('opaque-4', active());
    const server = resource({ introspection: { clientId: 'mcp-resource', clientSecret: 'wrong-secret' } });
    expect(((await server.authenticate(withToken('opaque-4'))) as Response).status).toBe(503);
  });
});

describe('where the token is read from (AUTH-8)', () => {
  it('reads the Authorization header only, and never logs a token', async () => {
    const logged: unknown[] = [];
    const logger: Logger = { warn: (...entry) => logged.push(entry), debug: (...entry) => logged.push(entry) };
    const token = await sign({});
    const server = resource({}, logger);
    const inQuery = new Request(`http://127.0.0.1/mcp?access_token=${token}`, { method: 'POST' });
    expect((await refusal(await server.authenticate(inQuery))).challenge).toBe(`Bearer ${METADATA}`);
    const inBody = new Request('http://127.0.0.1/mcp', { method: 'POST', body: `access_token=${token}` });
    expect((await refusal(await server.authenticate(inBody))).status).toBe(401);
    issuer.down = true;
    try {
      await resource({}, logger).authenticate(withToken(token));
    } finally {
      issuer.down = false;
    }
    expect(logged.length).toBeGreaterThan(0);
    expect(JSON.stringify(logged)).not.toContain(token.split('.')[2]);
  });
});

describe('scopes every request needs (AUTH-3)', () => {
  it('answers 403 insufficient_scope naming the scopes', async () => {
    const server = resource({ requiredScopes: ['mcp:use', 'notes:read'] });
    const answer = await refusal(await server.authenticate(withToken(await sign({ scope: 'notes:read' }))));
    expect(answer.status).toBe(403);
    expect(answer.challenge).toBe(`Bearer error="insufficient_scope", scope="mcp:use notes:read", ${METADATA}`);
    expect(await server.authenticate(withToken(await sign({ scope: 'notes:read mcp:use' })))).not.toBeInstanceOf(
      Response,
    );
  });
});

describe('options (AUTH-1)', () => {
  it.each([
    [{ algorithms: ['HS256'] }, 'algorithms'],
    [{ algorithms: ['none'] }, 'algorithms'],
    [{ algorithms: [] }, 'algorithms'],
    [{ issuer: 'http://idp.example.com' }, 'issuer'],
    [{ issuer: 'not a url' }, 'issuer'],
    [{ audience: 'mcp' }, 'audience'],
    [{ clockToleranceSeconds: 3600 }, 'clockToleranceSeconds'],
    [{ requiredScopes: ['has space'] }, 'requiredScopes'],
    [{ claims: { roles: 'a..b' } }, 'claims.roles'],
    [{ introspection: { clientId: '', clientSecret: 'x' } }, 'introspection.clientId'],
  ] as [Partial<OAuthResourceOptions>, string][])('refuses %o naming %s', (options, field) => {
    let thrown: unknown;
    try {
      resource(options);
    } catch (error) {
      thrown = error;
    }
    expect(ConfigurationError.isInstance(thrown) && thrown.code).toBe('INVALID_OPTION');
    expect(String(thrown)).toContain(`oauthResource: ${field} must be`);
  });
});

describe('over HTTP with a real MCP client (AUTH-2)', () => {
  it('serves the metadata at both well-known paths, challenges without a token, and calls through with one', async () => {
    const oauth = resource({ scopesSupported: ['notes:read'], resourceName: 'Notes' });
    const composed = composeServer([]);
    const handler = createHttpHandler(
      () => {
        const mcp = new McpServer({ name: 'notes', version: '1.0.0' });
        extendServer(mcp, composed).registerTool('whoami', {}, (_args, ctx) => ({
          content: [{ type: 'text', text: ctx.principal }],
        }));
        return mcp;
      },
      { authenticate: oauth.authenticate, wellKnown: oauth.wellKnown, logger: silentLogger },
    );
    const serving = await listen(handler, { port: 0, logger: silentLogger });
    try {
      for (const path of ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource']) {
        const metadata = await fetch(new URL(path, serving.url));
        expect(await metadata.json()).toEqual({
          resource: AUDIENCE,
          authorization_servers: [issuer.url],
          bearer_methods_supported: ['header'],
          scopes_supported: ['notes:read'],
          resource_name: 'Notes',
        });
      }
      const anonymous = await fetch(serving.url, { method: 'POST', body: '{}' });
      expect(anonymous.status).toBe(401);
      expect(anonymous.headers.get('www-authenticate')).toBe(`Bearer ${METADATA}`);

      const token = await sign({});
      const client = new Client({ name: 'agent', version: '0' });
      await client.connect(
        new StreamableHTTPClientTransport(serving.url, {
          requestInit: { headers: { authorization: `Bearer ${token}` } },
        }),
      );
      const result = await client.callTool({ name: 'whoami', arguments: {} });
      expect(result.content).toEqual([{ type: 'text', text: `oauth:${issuer.url}#ada` }]);
      await client.close();
    } finally {
      await serving.close();
    }
  });
});

/**
 * Caller identity end to end (core SPEC, IDENT-*): real SDK clients over
 * Streamable HTTP to core's handlers on SDK v1, v2 legacy and v2
 * 2026-07-28, each caller named by what the handler was told to trust.
 */
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServer as McpServerV1 } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  McpServer as McpServerV2,
  requireBearerAuth,
  type AuthInfo,
  type OAuthTokenVerifier,
} from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import { composeServer } from './compose.js';
import type { ServerExtension, ComposedServer } from '../contract/extension.js';
import type { ExtendedClient } from '../contract/host.js';
import { silentLogger } from '../telemetry/logger.js';
import { MemoryStore } from '../store/memory-store.js';
import {
  createHttpHandler as createHttpHandlerV1,
  extendClient as extendClientV1,
  extendServer as extendServerV1,
} from '../sdk-v1/index.js';
import type { HttpIdentityOptions } from '../http/http-identity.js';
import {
  createHttpHandler as createHttpHandlerV2,
  extendClient as extendClientV2,
  extendServer as extendServerV2,
} from '../sdk-v2/index.js';
import type { TestLine } from '../testing/pair.js';
import type { ToolResult } from '../contract/types.js';

const KEEPER = 'io.github.mcp-ext/keeper';
const ENDPOINT = 'http://mcp.test/mcp';

/** A per-caller extension: its method and its tool both answer with the principal they were called as. */
const keeper: ServerExtension = {
  side: 'server',
  name: '@test/keeper',
  ids: [KEEPER],
  settings: { version: '1.0' },
  keepsCallerState: true,
  methods: {
    whoami: (_params, ctx) => ({
      principal: ctx.principal,
      source: ctx.identity?.source ?? null,
      scopes: [...(ctx.authInfo?.scopes ?? [])],
    }),
  },
};

const TOKENS: Readonly<Record<string, AuthInfo>> = {
  'alice-token': {
    token: 'alice-token',
    clientId: 'tracker-web',
    scopes: ['tickets:read'],
    expiresAt: 4_102_444_800,
    extra: { iss: 'https://auth.test', sub: 'alice' },
  },
  'bob-token': {
    token: 'bob-token',
    clientId: 'tracker-web',
    scopes: [],
    expiresAt: 4_102_444_800,
    extra: { iss: 'https://auth.test', sub: 'bob' },
  },
};

const verifier: OAuthTokenVerifier = {
  verifyAccessToken(token) {
    const info = TOKENS[token];
    if (info === undefined) return Promise.reject(new Error('unknown token'));
    return Promise.resolve(info);
  },
};

type Fetch = (request: Request) => Promise<Response>;

interface Endpoint {
  readonly fetch: Fetch;
  readonly statuses: number[];
  close(): Promise<void>;
}

function serveV2(composed: ComposedServer, identity: HttpIdentityOptions<AuthInfo>): Endpoint {
  const store = new MemoryStore();
  const handler = createHttpHandlerV2(
    () => {
      const mcp = new McpServerV2({ name: 'caller-test', version: '0' });
      extendServerV2(mcp, composed, { store }).registerTool('whoami', {}, (_args, ctx) => ({
        content: [{ type: 'text', text: ctx.principal }],
      }));
      return mcp;
    },
    { ...identity, logger: silentLogger },
  );
  const statuses: number[] = [];
  return {
    statuses,
    fetch: async (request) => {
      const response = await handler.fetch(request);
      statuses.push(response.status);
      return response;
    },
    close: () => handler.close(),
  };
}

function serveV1(composed: ComposedServer, identity: HttpIdentityOptions<AuthInfo>): Endpoint {
  const store = new MemoryStore();
  const handler = createHttpHandlerV1(
    () => {
      const mcp = new McpServerV1({ name: 'caller-test', version: '0' });
      extendServerV1(mcp, composed, { store }).registerTool('whoami', {}, (_args, ctx) => ({
        content: [{ type: 'text', text: ctx.principal }],
      }));
      return mcp;
    },
    { ...identity, logger: silentLogger },
  );
  return { statuses: [], fetch: (request) => handler.fetch(request), close: () => handler.close() };
}

const open: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((close) => close()));
});

async function connect(
  line: TestLine,
  endpoint: Endpoint,
  headers: Record<string, string> = {},
): Promise<ExtendedClient> {
  const fetch = (url: string | URL, init?: RequestInit): Promise<Response> => {
    const request = new Request(url, init);
    for (const [name, value] of Object.entries(headers)) request.headers.set(name, value);
    return endpoint.fetch(request);
  };
  if (line === 'v1') {
    const client = new ClientV1({ name: 'c', version: '0' });
    const extended = extendClientV1(client, []);
    await client.connect(new TransportV1(new URL(ENDPOINT), { fetch }));
    open.push(() => client.close());
    return extended;
  }
  const mode = line === 'v2-modern' ? { pin: '2026-07-28' } : ('legacy' as const);
  const client = new ClientV2({ name: 'c', version: '0' }, { versionNegotiation: { mode } });
  const extended = extendClientV2(client, []);
  await client.connect(new TransportV2(new URL(ENDPOINT), { fetch }));
  open.push(() => client.close());
  return extended;
}

function serve(
  line: TestLine,
  identity: HttpIdentityOptions<AuthInfo>,
  extensions: readonly ServerExtension[] = [keeper],
): Endpoint {
  const composed = composeServer(extensions, { logger: silentLogger });
  const endpoint = line === 'v1' ? serveV1(composed, identity) : serveV2(composed, identity);
  open.push(() => endpoint.close());
  return endpoint;
}

function textOf(result: ToolResult): string {
  const first = result.content[0];
  return first?.type === 'text' && typeof first.text === 'string' ? first.text : '';
}

const LINES: readonly TestLine[] = ['v1', 'v2-legacy', 'v2-modern'];

describe.each(LINES)('caller identity over HTTP on %s', (line) => {
  it('names each caller by its verified bearer token; the scopes come along (IDENT-1)', async () => {
    const endpoint = serve(line, { authenticate: requireBearerAuth({ verifier }) });
    const alice = await connect(line, endpoint, { authorization: 'Bearer alice-token' });
    const bob = await connect(line, endpoint, { authorization: 'Bearer bob-token' });
    expect(await alice.request(`${KEEPER}/whoami`)).toMatchObject({
      principal: 'oauth:https://auth.test#alice',
      source: 'oauth',
      scopes: ['tickets:read'],
    });
    expect(await bob.request(`${KEEPER}/whoami`)).toMatchObject({
      principal: 'oauth:https://auth.test#bob',
      source: 'oauth',
      scopes: [],
    });
    expect(textOf(await alice.callTool('whoami'))).toBe('oauth:https://auth.test#alice');
  });

  it('refuses a request without a valid token with the SDK bearer challenge (401)', async () => {
    const endpoint = serve(line, { authenticate: requireBearerAuth({ verifier }) });
    await expect(connect(line, endpoint, { authorization: 'Bearer forged' })).rejects.toThrow();
    const response = await endpoint.fetch(
      new Request(ENDPOINT, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }),
    );
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(/^Bearer/);
  });

  it('names callers through identify, never through _meta or arguments (IDENT-4)', async () => {
    const keys: Record<string, string> = { k1: 'robot-1', k2: 'robot-2' };
    const endpoint = serve(line, { identify: (request) => keys[request.headers.get('x-api-key') ?? ''] });
    const one = await connect(line, endpoint, { 'x-api-key': 'k1' });
    expect(await one.request(`${KEEPER}/whoami`, { _meta: { principal: 'robot-2' } })).toMatchObject({
      principal: 'id:robot-1',
      source: 'custom',
    });
    await expect(connect(line, endpoint, { 'x-api-key': 'nope' })).rejects.toThrow();
  });

  it("serves every unidentified caller as the one shared principal when the author chose anonymous: 'shared'", async () => {
    const endpoint = serve(line, { anonymous: 'shared' });
    const one = await connect(line, endpoint);
    const two = await connect(line, endpoint);
    expect(await one.request(`${KEEPER}/whoami`)).toMatchObject({ principal: 'anonymous', source: 'anonymous' });
    expect(await two.request(`${KEEPER}/whoami`)).toMatchObject({ principal: 'anonymous', source: 'anonymous' });
  });

  it('refuses to start with per-caller extensions and no stated way to identify callers (IDENT-7)', () => {
    let refusal: unknown;
    try {
      serve(line, {});
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toMatchObject({ code: 'CALLERS_NOT_IDENTIFIED' });
    expect(String(refusal)).toContain("anonymous: 'shared'");
    expect(serve(line, {}, [])).toBeDefined();
  });
});

describe.each(['v1', 'v2-legacy'] as const)('legacy-era sessions on %s', (line) => {
  it('serve only the caller that opened them (IDENT-8)', async () => {
    const endpoint = serve(line, { authenticate: requireBearerAuth({ verifier }) });
    const seen: { sessionId?: string } = {};
    const spy: Endpoint = {
      statuses: [],
      close: () => Promise.resolve(),
      fetch: async (request) => {
        const response = await endpoint.fetch(request);
        seen.sessionId ??= response.headers.get('mcp-session-id') ?? undefined;
        return response;
      },
    };
    await connect(line, spy, { authorization: 'Bearer alice-token' });
    const sessionId = seen.sessionId;
    expect(sessionId).toBeDefined();
    const body = JSON.stringify({ jsonrpc: '2.0', id: 9, method: `${KEEPER}/whoami`, params: {} });
    const headers = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-session-id': sessionId ?? '',
      'mcp-protocol-version': '2025-11-25',
    };
    const hijack = await endpoint.fetch(
      new Request(ENDPOINT, { method: 'POST', headers: { ...headers, authorization: 'Bearer bob-token' }, body }),
    );
    expect(hijack.status).toBe(404);
    const owner = await endpoint.fetch(
      new Request(ENDPOINT, { method: 'POST', headers: { ...headers, authorization: 'Bearer alice-token' }, body }),
    );
    expect(owner.status).toBe(200);
  });
});

describe('unidentified callers where an extension keeps per-caller state (IDENT-5)', () => {
  it('are refused on every method and tool call, whatever transport the author wired', async () => {
    // The SDK's own handler, with nothing in front of it: the core's last line of defence.
    const { createMcpHandler } = await import('@modelcontextprotocol/server');
    const composed = composeServer([keeper], { logger: silentLogger });
    const handler = createMcpHandler(() => {
      const mcp = new McpServerV2({ name: 'raw', version: '0' });
      extendServerV2(mcp, composed).registerTool('whoami', {}, (_args, ctx) => ({
        content: [{ type: 'text', text: ctx.principal }],
      }));
      return mcp;
    });
    open.push(() => handler.close());
    const endpoint: Endpoint = {
      statuses: [],
      fetch: (request) => handler.fetch(request),
      close: () => Promise.resolve(),
    };
    const client = await connect('v2-modern', endpoint);
    await expect(client.request(`${KEEPER}/whoami`)).rejects.toMatchObject({
      data: { code: 'CALLER_UNIDENTIFIED', category: 'auth_required' },
    });
    const refused = await client.callTool('whoami');
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(/cannot tell its callers apart/);
  });
});

describe('unknown methods on 2026-07-28 (CORE-28)', () => {
  it('are answered HTTP 404 with -32601 even when composed extensions serve methods', async () => {
    const endpoint = serve('v2-modern', { anonymous: 'shared' });
    const client = await connect('v2-modern', endpoint);
    endpoint.statuses.length = 0;
    await expect(client.request('io.github.mcp-ext/keeper/nope')).rejects.toMatchObject({ code: -32601 });
    await expect(client.request('no/such-method')).rejects.toMatchObject({ code: -32601 });
    expect(endpoint.statuses).toEqual([404, 404]);
    expect(await client.request(`${KEEPER}/whoami`)).toMatchObject({ principal: 'anonymous' });
  });
});

import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { MemoryStore, type ExtendedServer, type ServerExtension } from '@ext/core';
import { silentLogger } from '@ext/core/kit';
import { createHttpHandler as createV1HttpHandler, extendServer as extendV1Server } from '@ext/core/sdk-v1';
import { createHttpHandler, extendServer } from '@ext/core/sdk-v2';
import { TEST_LINES, type TestLine } from '@ext/core/testing';
import { errorsServer } from '@ext/errors/server';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServer as V1McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { McpServer } from '@modelcontextprotocol/server';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { checkAccessUrl } from './access-url.js';
import { referenceResult } from './index.js';
import { isTextMediaType } from './logic.js';
import {
  createReferenceOrigin,
  dataReferencesServer,
  DEFAULT_RESOURCE_MAX_BYTES,
  referencesOf,
  type ReferenceOrigin,
} from './server.js';
import { sign } from './signing.js';

const SECRET = 'resources-secret-0123456789abcdef0123';
/** The cap of `resources/read` in these tests. */
const CAP = 64 * 1024;
const CSV = 'id,title\n1,Ünïcödé ✓\n2,plain\n';
const BINARY = randomBytes(3000);
const LATIN1 = Buffer.from('caf\u00e9', 'latin1');
const APP_NOTES = 'notes the application serves itself';

/** The payloads the `export` tool hands out by reference. */
const EXPORTS = {
  csv: { mimeType: 'text/csv', bytes: Buffer.from(CSV, 'utf8') },
  bin: { mimeType: 'application/octet-stream', bytes: BINARY },
  latin1: { mimeType: 'text/plain; charset=iso-8859-1', bytes: LATIN1 },
  big: { mimeType: 'text/plain', bytes: Buffer.alloc(CAP + 1, 'x') },
} as const;

// ---------------------------------------------------------------------------
// Pure parts
// ---------------------------------------------------------------------------

describe('reading references as resources: the pure parts', () => {
  const key = Buffer.from(SECRET);
  const base = 'http://127.0.0.1:4000/refs';
  const url = (id: string, expires: number, sig = sign(key, 'download', id, expires)): string =>
    `${base}/${id}?expires=${String(expires)}&sig=${sig}`;

  it('DREF-23: only URLs under the base URL are the origin’s; their signature and expiry are checked as a download’s', () => {
    const now = 1_000_000_000_000;
    const expires = now / 1000 + 60;
    expect(checkAccessUrl([key], base, url('ref-a', expires), now)).toEqual({
      kind: 'valid',
      refId: 'ref-a',
      expiresSeconds: expires,
    });
    expect(checkAccessUrl([key], base, 'app://notes', now)).toEqual({ kind: 'foreign' });
    expect(checkAccessUrl([key], base, 'http://127.0.0.1:4001/refs/ref-a', now)).toEqual({ kind: 'foreign' });
    expect(checkAccessUrl([key], base, 'not a url', now)).toEqual({ kind: 'foreign' });
    expect(checkAccessUrl([key], undefined, url('ref-a', expires), now)).toEqual({ kind: 'foreign' });
    expect(checkAccessUrl([key], base, `${base}/uploads/up-a?expires=1&sig=x`, now)).toEqual({
      kind: 'denied',
      reason: 'not_a_reference',
    });
    expect(checkAccessUrl([key], base, url('ref-b', expires, sign(key, 'download', 'ref-a', expires)), now)).toEqual({
      kind: 'denied',
      reason: 'signature',
    });
    expect(checkAccessUrl([key], base, url('ref-a', expires, sign(key, 'upload', 'ref-a', expires)), now)).toEqual({
      kind: 'denied',
      reason: 'signature',
    });
    expect(checkAccessUrl([key], base, url('ref-a', now / 1000 - 1), now)).toEqual({
      kind: 'denied',
      reason: 'expired',
    });
  });

  it('DREF-25: UTF-8 text media types are text, anything else a blob', () => {
    for (const type of ['text/csv', 'text/plain; charset=UTF-8', 'application/json', 'application/vnd.api+json'])
      expect(isTextMediaType(type), type).toBe(true);
    for (const type of ['application/octet-stream', 'image/png', 'text/plain; charset=iso-8859-1', 'application/pdf'])
      expect(isTextMediaType(type), type).toBe(false);
  });

  it('DREF-26: the cap is an option checked at construction, 4 MiB by default', async () => {
    const origin = createReferenceOrigin({ secret: SECRET, store: new MemoryStore(), serverName: 's' });
    expect(DEFAULT_RESOURCE_MAX_BYTES).toBe(4 * 1024 * 1024);
    expect(() => dataReferencesServer({ origin, resources: { maxBytes: -1 } })).toThrow(/resources\.maxBytes/);
    expect(dataReferencesServer({ origin }).resources).toBeDefined();
    expect(dataReferencesServer({ origin, resources: false }).resources).toBeUndefined();
    await origin.close();
  });
});

// ---------------------------------------------------------------------------
// Plain clients over Streamable HTTP
// ---------------------------------------------------------------------------

/** A fetch-shaped MCP endpoint, served on a loopback port. */
interface FetchHandler {
  fetch(request: Request): Promise<Response>;
  close(): Promise<void>;
}

async function bridge(handler: FetchHandler, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const hasBody = req.method !== 'GET' && req.method !== 'HEAD' && req.method !== 'DELETE';
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers))
    if (typeof value === 'string') headers.set(name, value);
    else if (value !== undefined) for (const item of value) headers.append(name, item);
  const request = new Request(`http://${req.headers.host ?? 'localhost'}${req.url ?? '/'}`, {
    method: req.method,
    headers,
    body: hasBody ? Readable.toWeb(req) : undefined,
    duplex: 'half',
  });
  const response = await handler.fetch(request);
  res.writeHead(response.status, Object.fromEntries(response.headers));
  if (response.body === null) res.end();
  else Readable.fromWeb(response.body).pipe(res);
}

async function serve(handler: FetchHandler): Promise<{ url: URL; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    bridge(handler, req, res).catch(() => res.destroy());
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: new URL(`http://127.0.0.1:${String(port)}/mcp`),
    async close() {
      await handler.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
      });
    },
  };
}

/** What the tests ask of a plain SDK client, either line. */
interface PlainClient {
  callTool(name: string, args: Record<string, unknown>): Promise<{ content: Record<string, unknown>[] }>;
  readResource(uri: string): Promise<{ contents: Record<string, unknown>[] }>;
  listResources(): Promise<{ resources: { uri: string }[] }>;
  capabilities(): Record<string, unknown> | undefined;
  close(): Promise<void>;
}

/** The caller is named by a header the server trusts (`identify`), as a proxy in front of it would. */
const identify = (request: Request): string | undefined => request.headers.get('x-caller') ?? undefined;

async function plainClient(line: TestLine, url: URL, caller: string): Promise<PlainClient> {
  const requestInit = { headers: { 'x-caller': caller } };
  if (line === 'v1') {
    const client = new V1Client({ name: 'plain-v1', version: '0.0.0' });
    await client.connect(new V1Transport(url, { requestInit }));
    return {
      callTool: async (name, args) =>
        (await client.callTool({ name, arguments: args })) as { content: Record<string, unknown>[] },
      readResource: (uri) => client.readResource({ uri }),
      listResources: () => client.listResources(),
      capabilities: () => client.getServerCapabilities(),
      close: () => client.close(),
    };
  }
  const client = new Client(
    { name: 'plain-v2', version: '0.0.0' },
    { versionNegotiation: { mode: line === 'v2-modern' ? { pin: '2026-07-28' } : 'legacy' } },
  );
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit }));
  return {
    callTool: async (name, args) => await client.callTool({ name, arguments: args }),
    readResource: (uri) => client.readResource({ uri }),
    listResources: () => client.listResources(),
    capabilities: () => client.getServerCapabilities(),
    close: () => client.close(),
  };
}

function registerExport(server: ExtendedServer): void {
  server.registerTool(
    'export',
    {
      description: 'Exports a payload by reference',
      inputSchema: z.object({ kind: z.enum(['csv', 'bin', 'latin1', 'big']) }),
    },
    async ({ kind }, ctx) => {
      const { mimeType, bytes } = EXPORTS[kind];
      const reference = await referencesOf(ctx).create({ chunks: [bytes] }, { mimeType, name: `export.${kind}` });
      return referenceResult(reference, { text: `Exported ${kind}.` });
    },
  );
}

const notesResource = (uri: URL) => ({ contents: [{ uri: uri.href, mimeType: 'text/plain', text: APP_NOTES }] });

/**
 * The server of `line` behind its HTTP handler. With `appResource` the
 * application serves a resource of its own: on v1 registered before
 * `extendServer`, on v2 after, so both orders are covered.
 */
function endpoint(line: TestLine, extensions: readonly ServerExtension[], appResource: boolean): FetchHandler {
  const options = { store: new MemoryStore(), logger: silentLogger };
  if (line === 'v1') {
    return createV1HttpHandler(
      () => {
        const server = new V1McpServer({ name: 'exporter', version: '0.0.0' });
        if (appResource) server.registerResource('notes', 'app://notes', { mimeType: 'text/plain' }, notesResource);
        registerExport(extendV1Server(server, extensions, options));
        return server;
      },
      { identify, logger: silentLogger },
    );
  }
  return createHttpHandler(
    () => {
      const server = new McpServer({ name: 'exporter', version: '0.0.0' });
      registerExport(extendServer(server, extensions, options));
      if (appResource) server.registerResource('notes', 'app://notes', { mimeType: 'text/plain' }, notesResource);
      return server;
    },
    { identify, logger: silentLogger },
  );
}

interface Refusal {
  readonly code: unknown;
  readonly data: Record<string, unknown>;
}

async function refusalOf(promise: Promise<unknown>): Promise<Refusal> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown as { code?: unknown; data?: unknown },
  );
  expect(error, 'resources/read was expected to fail').toBeDefined();
  return { code: error?.code, data: (error?.data ?? {}) as Record<string, unknown> };
}

let dir: string;
const opened: { close(): Promise<void> }[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dref-resources-'));
});

afterEach(async () => {
  await Promise.all(opened.splice(0).map((item) => item.close()));
  await rm(dir, { recursive: true, force: true });
});

describe.each(TEST_LINES)('references read through resources/read by a plain client on %s', (line) => {
  let clock = Date.now();

  async function start(
    resources: { maxBytes: number } | false = { maxBytes: CAP },
    appResource = true,
  ): Promise<{ url: URL; origin: ReferenceOrigin }> {
    clock = Date.now();
    const origin = createReferenceOrigin({
      secret: SECRET,
      store: new MemoryStore(),
      serverName: 'exporter',
      spoolDirectory: dir,
      logger: silentLogger,
      now: () => clock,
    });
    opened.push(origin);
    await origin.listen();
    const served = await serve(
      endpoint(line, [errorsServer(), dataReferencesServer({ origin, resources })], appResource),
    );
    opened.push(served);
    return { url: served.url, origin };
  }

  async function connect(url: URL, caller = 'alice'): Promise<PlainClient> {
    const client = await plainClient(line, url, caller);
    opened.push(client);
    return client;
  }

  async function linkOf(client: PlainClient, kind: keyof typeof EXPORTS): Promise<string> {
    const result = await client.callTool('export', { kind });
    const link = result.content.find((block) => block.type === 'resource_link');
    expect(link).toBeDefined();
    return String(link?.uri);
  }

  it('DREF-23: the server advertises resources only with the extension reading references', async () => {
    const { url } = await start(undefined, false);
    expect((await connect(url)).capabilities()?.resources).toBeDefined();
    const off = await start(false, false);
    expect((await connect(off.url)).capabilities()?.resources).toBeUndefined();
  });

  it('DREF-23 DREF-25: the resource_link of a text reference reads as text, exactly as exported', async () => {
    const { url, origin } = await start();
    const client = await connect(url);
    const uri = await linkOf(client, 'csv');
    expect(uri.startsWith(`${origin.baseUrl}/`)).toBe(true);
    expect((await client.readResource(uri)).contents).toEqual([{ uri, mimeType: 'text/csv', text: CSV }]);
  });

  it('DREF-25: binary bytes, and text in another charset, read as base64 blobs', async () => {
    const { url } = await start();
    const client = await connect(url);
    const binary = await linkOf(client, 'bin');
    expect((await client.readResource(binary)).contents).toEqual([
      { uri: binary, mimeType: 'application/octet-stream', blob: BINARY.toString('base64') },
    ]);
    const latin1 = await linkOf(client, 'latin1');
    expect((await client.readResource(latin1)).contents).toEqual([
      { uri: latin1, mimeType: 'text/plain; charset=iso-8859-1', blob: LATIN1.toString('base64') },
    ]);
  });

  it('DREF-24: a changed signature is refused with ACCESS_DENIED, as a JSON-RPC -32602 carrying the structured error', async () => {
    const { url } = await start();
    const client = await connect(url);
    const uri = new URL(await linkOf(client, 'csv'));
    const sig = uri.searchParams.get('sig') ?? '';
    uri.searchParams.set('sig', `${sig.startsWith('A') ? 'B' : 'A'}${sig.slice(1)}`);
    const refusal = await refusalOf(client.readResource(uri.href));
    expect(refusal.code).toBe(-32602);
    expect(refusal.data).toMatchObject({ code: 'ACCESS_DENIED', category: 'permanent' });
    // The same answer for an id that does not exist (DREF-6).
    uri.pathname = uri.pathname.replace(/[^/]+$/, 'ref-never-issued');
    expect((await refusalOf(client.readResource(uri.href))).data).toMatchObject({ code: 'ACCESS_DENIED' });
  });

  it('DREF-24: an expired URL is refused with REFERENCE_EXPIRED', async () => {
    const { url } = await start();
    const client = await connect(url);
    const uri = await linkOf(client, 'csv');
    clock += 2 * 3600 * 1000;
    const refusal = await refusalOf(client.readResource(uri));
    expect(refusal.code).toBe(-32602);
    expect(refusal.data).toMatchObject({ code: 'REFERENCE_EXPIRED', category: 'permanent', user_actionable: true });
  });

  it("DREF-24: another caller's reference is not found, though its URL is validly signed", async () => {
    const { url } = await start();
    const uri = await linkOf(await connect(url, 'alice'), 'csv');
    const refusal = await refusalOf((await connect(url, 'bob')).readResource(uri));
    expect(refusal.code).toBe(-32602);
    expect(refusal.data).toMatchObject({ code: 'REFERENCE_NOT_FOUND', category: 'permanent' });
  });

  it('DREF-26: a reference over the cap is refused with PAYLOAD_TOO_LARGE naming the cap and the way to the bytes', async () => {
    const { url } = await start();
    const client = await connect(url);
    const uri = await linkOf(client, 'big');
    const refusal = await refusalOf(client.readResource(uri));
    expect(refusal.code).toBe(-32602);
    expect(refusal.data).toMatchObject({
      code: 'PAYLOAD_TOO_LARGE',
      category: 'permanent',
      details: { size_bytes: CAP + 1, max_size_bytes: CAP, access_url: uri },
    });
    expect(String(refusal.data.suggestion)).toMatch(/HTTP.*Range.*import_from_ref/);
  });

  it("DREF-27: the application's own resource still reads and lists; references are not listed", async () => {
    const { url } = await start();
    const client = await connect(url);
    await linkOf(client, 'csv');
    expect((await client.readResource('app://notes')).contents).toEqual([
      { uri: 'app://notes', mimeType: 'text/plain', text: APP_NOTES },
    ]);
    expect((await client.listResources()).resources.map((resource) => resource.uri)).toEqual(['app://notes']);
    // A URI neither the extension nor the application serves gets the application's own answer.
    const missing = await refusalOf(client.readResource('app://missing'));
    expect(missing.code).toBe(-32602);
    expect(missing.data.code).toBeUndefined();
  });
});

/**
 * Property: whatever path, method, headers and body reach the demo's HTTP
 * servers (the MCP endpoint, the server card, the console, the health
 * paths, and the reference origin's downloads and uploads), the answer is
 * a 2xx, 3xx or 4xx, never a 5xx nor a dropped connection, and the process
 * keeps serving. Requests go out raw (Node's `http`, a fresh connection
 * each), so paths are sent exactly as generated, `..` and all.
 */
import { request as httpRequest } from 'node:http';
import { silentLogger } from '@ext/core/kit';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttpServer, type RunningHttpServer } from '../server/node-http.js';

interface RawRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Uint8Array | undefined;
}

/** Sends one request and resolves to its status once the headers arrive (the body is not awaited: an SSE stream may stay open). */
function send(base: URL, raw: RawRequest): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: base.hostname,
        port: base.port,
        method: raw.method,
        path: raw.path,
        headers: raw.headers,
        agent: false,
        timeout: 10_000,
      },
      (res) => {
        resolve(res.statusCode ?? 0);
        res.destroy();
      },
    );
    req.on('timeout', () => {
      req.destroy(new Error(`no answer to ${raw.method} ${raw.path.slice(0, 80)} within 10 s`));
    });
    req.on('error', reject);
    req.end(raw.body);
  });
}

const SPECIAL_SEGMENTS = [
  'constructor',
  '__proto__',
  'prototype',
  'toString',
  'hasOwnProperty',
  'valueOf',
  '..',
  '.',
  '%2e%2e',
  '%2E%2E%2F',
  '%00',
  '%ff',
  '%',
  '%zz',
  'app.js.map',
  '',
];

const segment = fc.oneof(
  { arbitrary: fc.constantFrom(...SPECIAL_SEGMENTS), weight: 4 },
  fc.webSegment(),
  fc.string({ unit: fc.constantFrom(..."abcXYZ019-._~%!$&'()*+,;=:@".split('')), maxLength: 24 }),
  fc.integer({ min: 1, max: 20_000 }).map((length) => 'a'.repeat(length)),
);

const query = fc.oneof(
  fc.constant(''),
  fc.webQueryParameters().map((text) => `?${text}`),
  fc.constantFrom('?exp=1&sig=x', '?exp=99999999999&sig=', '?__proto__[x]=1', '?constructor=1&exp=-1'),
);

function pathUnder(prefixes: readonly string[]) {
  return fc
    .tuple(fc.constantFrom(...prefixes), fc.array(segment, { maxLength: 4 }), query)
    .map(([prefix, segments, search]) => `${prefix}${segments.join('/')}${search}`);
}

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'OPTIONS', 'PATCH', 'TRACE'];

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'fuzz', version: '0' } },
};

const body = fc.oneof(
  fc.constant(undefined),
  fc.constant(new Uint8Array()),
  fc.constant(Buffer.from(JSON.stringify(INITIALIZE))),
  fc
    .constantFrom(
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
      { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'get_ticket', arguments: { id: '__proto__' } } },
      { jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'constructor', arguments: {} } },
      {
        jsonrpc: '2.0',
        id: 5,
        method: 'tools/call',
        params: {
          name: 'list_tickets',
          arguments: {},
          _meta: {
            constructor: {},
            'io.github.mcp-ext/content-negotiation': { features: ['constructor', 'toString=1'] },
          },
        },
      },
      [{ jsonrpc: '2.0', method: 'notifications/initialized' }],
      {
        jsonrpc: '2.0',
        id: 6,
        method: 'server/discover',
        params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } },
      },
    )
    .map((message) => Buffer.from(JSON.stringify(message))),
  fc.json().map((text) => Buffer.from(text)),
  fc.uint8Array({ maxLength: 512 }),
  fc.constant(Buffer.from('{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"x":"\xff"}}', 'latin1')),
);

/** Header values Node's client accepts (no CR, LF or NUL), including some that look like attacks. */
const text = fc.string({
  unit: fc.integer({ min: 0x20, max: 0x7e }).map((code) => String.fromCharCode(code)),
  maxLength: 64,
});

function headersFor(port: string, token: string, session: () => string | undefined) {
  const optional = <T>(arbitrary: fc.Arbitrary<T>) => fc.option(arbitrary, { nil: undefined });
  /** Mostly `usual` (so requests get past the checks in front and reach the handlers), sometimes anything. */
  const mostly = (usual: string, others: fc.Arbitrary<string>) =>
    fc.oneof({ arbitrary: fc.constant(usual), weight: 3 }, others);
  return fc
    .record({
      'content-type': optional(
        mostly(
          'application/json',
          fc.oneof(
            fc.constantFrom(
              'application/json',
              'application/json; charset=utf-8',
              'text/plain',
              'application/x-www-form-urlencoded',
              'image/png',
              'multipart/form-data; boundary=x',
            ),
            text,
          ),
        ),
      ),
      accept: optional(
        mostly(
          'application/json, text/event-stream',
          fc.oneof(fc.constantFrom('text/event-stream', 'application/json', '*/*', 'text/html'), text),
        ),
      ),
      'mcp-session-id': optional(mostly('live', fc.oneof(fc.uuid(), text))),
      'mcp-protocol-version': optional(
        fc.oneof(fc.constantFrom('2025-11-25', '2025-06-18', '2026-07-28', '1999-01-01'), text),
      ),
      origin: optional(
        fc.constantFrom(
          `http://localhost:${port}`,
          `http://127.0.0.1:${port}`,
          'http://evil.example',
          'null',
          'file://',
        ),
      ),
      host: optional(
        fc.constantFrom(
          `127.0.0.1:${port}`,
          `localhost:${port}`,
          'localhost',
          `LOCALHOST:${port}`,
          `[::1]:${port}`,
          `evil.example:${port}`,
        ),
      ),
      authorization: fc.oneof(
        { arbitrary: fc.constant(`Bearer ${token}`), weight: 4 },
        optional(fc.oneof(fc.constantFrom('Bearer ', 'Bearer forged', `Basic ${token}`, 'bearer'), text)),
      ),
      range: optional(
        fc.oneof(
          fc.constantFrom(
            'bytes=0-0',
            'bytes=-1',
            'bytes=5-1',
            'bytes=0-',
            'bytes=99999999999999999999-',
            'bytes=0-1,2-3',
          ),
          text,
        ),
      ),
    })
    .map((record) => {
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(record)) {
        if (value === undefined) continue;
        headers[name] = name === 'mcp-session-id' && value === 'live' ? (session() ?? 'none') : value;
      }
      return headers;
    });
}

describe.each(['v2', 'v1'] as const)('the demo HTTP servers (SDK %s) under fuzzed requests', (sdk) => {
  let running: RunningHttpServer;
  let session: string | undefined;
  let token: string;
  /** A real download URL and a real upload URL, so fuzzed requests also reach past the signature check. */
  const signed: string[] = [];

  beforeAll(async () => {
    running = await startHttpServer({ port: 0, logger: silentLogger, sdk });
    token = running.tokens!.alice;
    const opened = await fetch(running.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${token}`,
      },
      body: JSON.stringify(INITIALIZE),
    });
    await opened.text();
    session = opened.headers.get('mcp-session-id') ?? undefined;
    const origin = running.origin!;
    const reference = await origin.createReference(
      { chunks: [Buffer.from('id,status\nT-1,open\n')] },
      { mimeType: 'text/csv', principal: 'fuzz' },
    );
    const download = new URL(reference.access_url!);
    signed.push(download.pathname + download.search);
    for (let index = 0; index < 5; index++) {
      const ticket = await origin.createUploadTicket({ mimeType: 'image/png', principal: 'fuzz' });
      signed.push(new URL(ticket.upload_url).pathname + new URL(ticket.upload_url).search);
    }
  });

  afterAll(async () => {
    await running.close();
  });

  async function stillServes(): Promise<void> {
    const ready = await fetch(new URL('/readyz', running.url));
    expect(ready.status).toBe(200);
    const initialize = await fetch(running.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${token}`,
      },
      body: JSON.stringify(INITIALIZE),
    });
    expect(initialize.status).toBe(200);
    await initialize.text();
  }

  it('answers every request to the MCP server with a 2xx, 3xx or 4xx, and keeps serving', async () => {
    const port = running.url.port;
    const paths = pathUnder([
      '/mcp',
      '/mcp/',
      '/mcp/server-card',
      '/.well-known/mcp/server-card.json',
      '/console/',
      '/console',
      '/readyz',
      '/healthz',
      '/',
      '//',
      '/refs/',
    ]);
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...METHODS),
        paths,
        headersFor(port, token, () => session),
        body,
        async (method, path, headers, payload) => {
          const status = await send(running.url, {
            method,
            path,
            headers,
            body: method === 'GET' || method === 'HEAD' ? undefined : payload,
          });
          expect(status, `${method} ${path.slice(0, 120)} ${JSON.stringify(headers)}`).toBeGreaterThanOrEqual(200);
          expect(status, `${method} ${path.slice(0, 120)} ${JSON.stringify(headers)}`).toBeLessThan(500);
        },
      ),
      { numRuns: 400 },
    );
    await stillServes();
  });

  it('answers every request to the reference origin with a 2xx, 3xx or 4xx, and keeps serving', async () => {
    const base = new URL(running.origin!.baseUrl);
    const paths = fc.oneof(
      pathUnder([`${base.pathname}/`, `${base.pathname}/uploads/`, '/', '/refsx/']),
      fc.constantFrom(...signed),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...METHODS),
        paths,
        headersFor(base.port, token, () => session),
        body,
        async (method, path, headers, payload) => {
          const status = await send(base, {
            method,
            path,
            headers,
            body: method === 'GET' || method === 'HEAD' ? undefined : payload,
          });
          expect(status, `${method} ${path.slice(0, 120)} ${JSON.stringify(headers)}`).toBeGreaterThanOrEqual(200);
          expect(status, `${method} ${path.slice(0, 120)} ${JSON.stringify(headers)}`).toBeLessThan(500);
        },
      ),
      { numRuns: 200 },
    );
    // The origin still serves its reference (the download URL is signed[0]).
    const download = await fetch(new URL(signed[0]!, base));
    expect(download.status).toBe(200);
    expect(await download.text()).toBe('id,status\nT-1,open\n');
    await stillServes();
  });
});

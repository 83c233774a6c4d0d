import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { request as httpRequest } from 'node:http';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { ToolResult } from '@ext/core';
import { CONTENT_NEGOTIATION_ID } from '@ext/content-negotiation';
import { ERRORS_ID } from '@ext/errors';
import { getStructuredError } from '@ext/errors/client';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DEFAULT_PORT, resolvePort, resolveRefsPort } from './cli-args.js';
import { connect, type Era, type Target } from '../client/connect.js';
import { TRACKER_EXTENSIONS, TRACKER_TOOLS } from '../e2e/test-support.js';
import { startHttpServer, type RunningHttpServer } from './node-http.js';

const ERAS: readonly Era[] = ['modern', 'legacy'];

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
});

/** A raw POST with full control over Host and Origin (fetch would not let us set Host). */
function rawPost(
  url: URL,
  headers: Record<string, string>,
  body: string,
  path = url.pathname,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path,
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => {
          resolve({ status: res.statusCode ?? 0, body: text });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('resolvePort', () => {
  it('reads --port, then --port=, then PORT, else 3333', () => {
    expect(resolvePort([], {})).toBe(DEFAULT_PORT);
    expect(resolvePort([], { PORT: '4000' })).toBe(4000);
    expect(resolvePort(['--port', '5000'], { PORT: '4000' })).toBe(5000);
    expect(resolvePort(['--port=0'], {})).toBe(0);
  });

  it('refuses a malformed port naming the value', () => {
    expect(() => resolvePort(['--port', 'http'], {})).toThrow(/"http"/);
    expect(() => resolvePort([], { PORT: '70000' })).toThrow(RangeError);
    expect(() => resolvePort(['--port', '-1'], {})).toThrow(RangeError);
  });
});

describe('resolveRefsPort (TRACKER_REFS_PORT)', () => {
  it('reads the variable like PORT; unset or empty: a free port', () => {
    expect(resolveRefsPort({})).toBeUndefined();
    expect(resolveRefsPort({ TRACKER_REFS_PORT: '' })).toBeUndefined();
    expect(resolveRefsPort({ TRACKER_REFS_PORT: '4100' })).toBe(4100);
    expect(resolveRefsPort({ TRACKER_REFS_PORT: '0' })).toBe(0);
  });

  it('refuses a malformed value naming the variable', () => {
    for (const raw of ['http', '-1', '70000', '41.5', ' 4100']) {
      expect(() => resolveRefsPort({ TRACKER_REFS_PORT: raw })).toThrow(
        /TRACKER_REFS_PORT must be an integer from 0 to 65535/,
      );
    }
  });
});

/** A port nothing listens on right now. */
async function freePort(): Promise<number> {
  const probe = createNetServer();
  probe.listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** Runs tracker-http until its stderr matches `until` (or it exits); then stops it. */
async function runTrackerHttp(
  env: Record<string, string>,
  until: RegExp,
): Promise<{ stderr: string; code: number | null; match: RegExpExecArray | null }> {
  const child = spawn(
    process.execPath,
    [fileURLToPath(new URL('../../dist/http.js', import.meta.url)), '--port', '0'],
    {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, TRACKER_DB: ':memory:', REDIS_URL: '', ...env },
    },
  );
  let stderr = '';
  child.stderr.setEncoding('utf8');
  try {
    return await new Promise((resolve) => {
      child.stderr.on('data', (chunk: string) => {
        stderr += chunk;
        const match = until.exec(stderr);
        if (match !== null) resolve({ stderr, code: null, match });
      });
      child.once('exit', (code) => {
        resolve({ stderr, code, match: until.exec(stderr) });
      });
    });
  } finally {
    if (child.exitCode === null) {
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
    }
  }
}

describe('tracker-http and TRACKER_REFS_PORT', () => {
  it('serves the reference origin on the port the variable names', async () => {
    const port = await freePort();
    const { match, stderr } = await runTrackerHttp(
      { TRACKER_REFS_PORT: String(port) },
      /data references served at (http:\/\/127\.0\.0\.1:(\d+)\/refs)/,
    );
    expect(match?.[2], stderr).toBe(String(port));
  });

  it('refuses to start with a malformed value, naming the variable', async () => {
    const { code, stderr } = await runTrackerHttp({ TRACKER_REFS_PORT: 'eighty' }, /TRACKER_REFS_PORT must be/);
    expect(stderr).toContain('TRACKER_REFS_PORT must be an integer from 0 to 65535, got "eighty"');
    expect(code === null || code === 1).toBe(true);
  });
});

describe('the tracker over Streamable HTTP', () => {
  let running: RunningHttpServer;

  beforeAll(async () => {
    running = await startHttpServer({ port: 0 });
  });

  afterAll(async () => {
    await running.close();
  });

  it('listens on 127.0.0.1 at /mcp on the port it was given', () => {
    expect(running.url.hostname).toBe('127.0.0.1');
    expect(running.url.pathname).toBe('/mcp');
    expect(Number(running.url.port)).toBeGreaterThan(0);
  });

  for (const era of ERAS) {
    describe(`on the ${era} era`, () => {
      it('shows negotiation on the wire: both sides advertise io.github.mcp-ext/errors', async () => {
        const connection = await connect(running.as(), { era });
        try {
          expect(connection.extended?.era).toBe(era);
          const handshake = connection.wire.exchange(era === 'modern' ? 'server/discover' : 'initialize');
          const advertised =
            era === 'modern'
              ? (handshake?.request.params?._meta as Record<string, { extensions?: unknown }>)[
                  'io.modelcontextprotocol/clientCapabilities'
                ]?.extensions
              : (handshake?.request.params?.capabilities as { extensions?: unknown }).extensions;
          expect(advertised).toEqual({ [ERRORS_ID]: { version: '1.0' } });
          const served =
            (handshake?.response?.result?.capabilities as { extensions?: Record<string, unknown> }).extensions ?? {};
          expect(Object.keys(served).sort()).toEqual(TRACKER_EXTENSIONS);
          expect(served[ERRORS_ID]).toEqual({ version: '1.0' });
          expect(served[CONTENT_NEGOTIATION_ID]).toEqual({ version: '1.0' });
          expect(connection.extended?.negotiated(ERRORS_ID)?.id).toBe(ERRORS_ID);
        } finally {
          await connection.close();
        }
      });

      it('serves the four tools end to end', async () => {
        const connection = await connect(running.as(), { era });
        const client = connection.extended!;
        try {
          expect((await client.listTools()).map((tool) => tool.name).sort()).toEqual(TRACKER_TOOLS);
          const created = await client.callTool('create_ticket', { title: `On ${era}`, assignee: 'bob' });
          const ticket = created.structuredContent?.ticket as { id: string; status: string };
          expect(ticket.status).toBe('open');
          expect((await client.callTool('get_ticket', { id: ticket.id })).structuredContent?.ticket).toEqual(ticket);
          const closed = await client.callTool('close_ticket', { id: ticket.id });
          expect((closed.structuredContent?.ticket as { status: string }).status).toBe('closed');
          const listed = await client.callTool('list_tickets', { status: 'closed' });
          expect((listed.structuredContent?.tickets as { id: string }[]).map((entry) => entry.id)).toContain(ticket.id);
          const again = await client.callTool('close_ticket', { id: ticket.id });
          expect(getStructuredError(again)).toMatchObject({ code: 'TICKET_ALREADY_CLOSED', category: 'permanent' });
        } finally {
          await connection.close();
        }
      });

      it('returns a structured permanent RESOURCE_NOT_FOUND for an unknown ticket', async () => {
        const connection = await connect(running.as(), { era });
        try {
          const result = await connection.extended!.callTool('get_ticket', { id: 'T-99999' });
          expect(result.isError).toBe(true);
          expect(result._meta?.[ERRORS_ID]).toEqual({
            code: 'RESOURCE_NOT_FOUND',
            message: 'Ticket T-99999 does not exist.',
            category: 'permanent',
            user_actionable: true,
            suggestion: 'Call list_tickets to see the ids of existing tickets.',
            details: { id: 'T-99999' },
          });
          expect(result.content[0]).toEqual({
            type: 'text',
            text: 'Ticket T-99999 does not exist.\nCall list_tickets to see the ids of existing tickets.',
          });
        } finally {
          await connection.close();
        }
      });

      it('returns invalid_input naming the field for a bad value', async () => {
        const connection = await connect(running.as(), { era });
        try {
          const result = await connection.extended!.callTool('create_ticket', { title: '   ' });
          expect(getStructuredError(result)).toMatchObject({
            category: 'invalid_input',
            details: { field: 'title', pointer: '/title' },
          });
          const badId = await connection.extended!.callTool('get_ticket', { id: 'ticket one' });
          expect(getStructuredError(badId)).toMatchObject({ category: 'invalid_input', details: { field: 'id' } });
        } finally {
          await connection.close();
        }
      });

      it('degrades to a plain MCP error result for a client without the extension', async () => {
        const connection = await connect(running.as(), { era, withErrors: false });
        try {
          const result = (await connection.client.callTool({
            name: 'get_ticket',
            arguments: { id: 'T-99999' },
          })) as ToolResult;
          expect(result.isError).toBe(true);
          expect(result._meta?.[ERRORS_ID]).toBeUndefined();
          expect(result.content).toEqual([
            {
              type: 'text',
              text: 'Ticket T-99999 does not exist.\nCall list_tickets to see the ids of existing tickets.',
            },
          ]);
        } finally {
          await connection.close();
        }
      });
    });
  }

  it('shares one store across eras and requests', async () => {
    const modern = await connect(running.as(), { era: 'modern' });
    const legacy = await connect(running.as(), { era: 'legacy' });
    try {
      const created = await modern.extended!.callTool('create_ticket', { title: 'Seen by both' });
      const id = (created.structuredContent?.ticket as { id: string }).id;
      const fetched = await legacy.extended!.callTool('get_ticket', { id });
      expect(fetched.structuredContent?.ticket).toEqual(created.structuredContent?.ticket);
    } finally {
      await Promise.all([modern.close(), legacy.close()]);
    }
  });

  // DNS rebinding: a page of another site reaching this server through the browser, under a name
  // or origin of its own. Each form is answered 403 before identity or the pipeline see it.
  it.each([
    [
      'a foreign Host and Origin',
      (port: string) => ({ host: `rebind.evil.example:${port}`, origin: `http://rebind.evil.example:${port}` }),
    ],
    ['a foreign Host', (port: string) => ({ host: `evil.example:${port}` })],
    ['a foreign Origin', () => ({ origin: 'http://evil.example' })],
    ['Origin: null', () => ({ origin: 'null' })],
    ['a local page on another port', (port: string) => ({ origin: `http://localhost:${String(Number(port) + 1)}` })],
    ['an IPv6 form of loopback', (port: string) => ({ host: `[::ffff:127.0.0.1]:${port}` })],
    ['a numeric form of loopback', (port: string) => ({ host: `2130706433:${port}` })],
    ['a short form of loopback', (port: string) => ({ host: `127.1:${port}` })],
  ])('refuses %s with 403, even with a valid token', async (_form, headers) => {
    const refused = await rawPost(
      running.url,
      { ...headers(running.url.port), authorization: `Bearer ${running.tokens!.alice}` },
      INITIALIZE,
    );
    expect(refused.status).toBe(403);
    expect((JSON.parse(refused.body) as { error: { message: string } }).error.message).toMatch(/^Forbidden/);
  });

  it('serves its own page origins', async () => {
    const local = await rawPost(
      running.url,
      { origin: `http://localhost:${running.url.port}`, authorization: `Bearer ${running.tokens!.alice}` },
      INITIALIZE,
    );
    expect(local.status).toBe(200);
  });

  it("refuses a caller without a valid token with the SDK's 401 challenge", async () => {
    for (const headers of [
      {} as Record<string, string>,
      { authorization: 'Bearer forged-token-of-no-one' },
      { authorization: `Basic ${running.tokens!.alice}` },
    ]) {
      const refused = await rawPost(running.url, headers, INITIALIZE);
      expect(refused.status).toBe(401);
      expect(refused.body).toMatch(/invalid_token|Unauthorized|invalid_request/);
    }
  });

  it('keeps accepting the demo tokens after days of uptime (each verification holds an hour from itself)', async () => {
    const started = Date.now();
    vi.useFakeTimers({ toFake: ['Date'], now: started });
    try {
      for (const days of [1.01, 3, 30]) {
        vi.setSystemTime(started + days * 24 * 60 * 60 * 1000);
        const served = await rawPost(running.url, { authorization: `Bearer ${running.tokens!.bob}` }, INITIALIZE);
        expect({ days, status: served.status }).toEqual({ days, status: 200 });
      }
    } finally {
      vi.useRealTimers();
    }
  });

  it('says who a bearer token belongs to at /console/whoami, and refuses a token it does not know', async () => {
    const ask = async (headers: Record<string, string>) => {
      const response = await fetch(new URL('/console/whoami', running.url), { headers });
      return {
        status: response.status,
        body: await response.json(),
        cache: response.headers.get('cache-control'),
      };
    };
    expect(await ask({ authorization: `Bearer ${running.tokens!.bob}` })).toEqual({
      status: 200,
      body: { user: 'bob' },
      cache: 'no-store',
    });
    for (const headers of [
      {} as Record<string, string>,
      { authorization: 'Bearer forged-token-of-no-one' },
      { authorization: `Basic ${running.tokens!.bob}` },
    ]) {
      expect((await ask(headers)).status).toBe(401);
    }
  });

  it('answers 4xx, never 5xx, to targets and methods a fetch Request cannot carry', async () => {
    const raw = (method: string, path: string): Promise<number> =>
      new Promise((resolve, reject) => {
        const req = httpRequest(
          { host: running.url.hostname, port: running.url.port, method, path, agent: false },
          (res) => {
            resolve(res.statusCode ?? 0);
            res.resume();
          },
        );
        req.on('error', reject);
        req.end();
      });
    // `//user@host` would be another authority with credentials, which fetch refuses to build.
    expect(await raw('GET', '//a@a?exp=1')).toBe(404);
    expect(await raw('GET', `http://evil.example/console/`)).toBe(200);
    expect(await raw('TRACE', '/mcp')).toBe(405);
    expect(await raw('GET', '/readyz')).toBe(200);
  });

  it('answers 404 outside /mcp', async () => {
    const missing = await rawPost(running.url, {}, INITIALIZE, '/other');
    expect(missing.status).toBe(404);
  });

  it('serves the server card beside /mcp and at the well-known path, with the manifest, an ETag and 304 on a match', async () => {
    const card = await fetch(running.cardUrl);
    expect(card.status).toBe(200);
    const body = (await card.json()) as {
      name: string;
      remotes?: { url: string }[];
      _meta: Record<string, { tools: { name: string }[] }>;
    };
    expect(body.name).toBe('tracker');
    expect(body.remotes?.[0]?.url).toBe(running.url.href);
    expect(body._meta['io.github.mcp-ext/manifest']?.tools.map((tool) => tool.name).sort()).toEqual(TRACKER_TOOLS);
    const etag = card.headers.get('etag') ?? '';
    expect(etag).not.toBe('');
    const wellKnown = await fetch(new URL('/.well-known/mcp/server-card.json', running.url), {
      headers: { 'if-none-match': etag },
    });
    expect(wellKnown.status).toBe(304);
  });
});

describe('binding beyond loopback', () => {
  it('refuses to serve anonymous callers on a network address, before anything listens', async () => {
    await expect(startHttpServer({ port: 0, host: '0.0.0.0', anonymous: true })).rejects.toMatchObject({
      code: 'UNIDENTIFIED_ON_NETWORK',
    });
  });
});

describe('shutdown', () => {
  it('close() ends open SSE streams and frees the port', async () => {
    const running = await startHttpServer({ port: 0 });
    // A legacy-era client keeps a GET event stream open for server notifications.
    const connection = await connect(running.as(), { era: 'legacy' });
    await connection.extended!.callTool('list_tickets', {});
    await running.close();
    expect(running.server.listening).toBe(false);
    await connection.close();
  });

  it('tracker-http exits 0 on SIGTERM after serving', async () => {
    const child = spawn(
      process.execPath,
      [fileURLToPath(new URL('../../dist/http.js', import.meta.url)), '--port', '0'],
      {
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    try {
      let stderr = '';
      child.stderr.setEncoding('utf8');
      const target = await new Promise<Target>((resolve, reject) => {
        child.stderr.on('data', (chunk: string) => {
          stderr += chunk;
          const url = /(http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(stderr)?.[1];
          const token = /^ {2}alice +(\S+)/m.exec(stderr)?.[1];
          if (url !== undefined && token !== undefined) resolve({ kind: 'http', url: new URL(url), token });
        });
        child.once('exit', (code) => {
          reject(new Error(`tracker-http exited early (${String(code)}): ${stderr}`));
        });
      });
      const connection = await connect(target, { era: 'modern' });
      expect(
        (await connection.extended!.callTool('create_ticket', { title: 'Before shutdown' })).isError,
      ).toBeUndefined();
      await connection.close();
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      const [code] = (await exited) as [number | null];
      expect(code).toBe(0);
      expect(stderr).toContain('SIGTERM received, shutting down');
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });
});

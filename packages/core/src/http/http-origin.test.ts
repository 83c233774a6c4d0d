import { request as httpRequest } from 'node:http';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigurationError } from '../contract/errors.js';
import { isLoopbackAddress, refuseForeignSource, resolveRequestSource } from './http-origin.js';
import { listen, type Listening, type ServableHandler } from './listen.js';
import { silentLogger } from '../telemetry/logger.js';

const running: Listening[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((serving) => serving.close()));
});

/** A handler that counts what reaches it: a refused request must never. */
function countingHandler(identifiesCallers = false) {
  const seen = { count: 0 };
  const handler: ServableHandler = {
    identifiesCallers,
    fetch: () => {
      seen.count += 1;
      return Promise.resolve(Response.json({ served: true }));
    },
    close: () => Promise.resolve(),
  };
  return { handler, seen };
}

/** A POST with exactly these headers (fetch would not let a client choose `Host`). */
function post(url: URL, headers: Record<string, string | string[]>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers } });
    req.once('error', reject);
    req.once('response', (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.once('end', () => {
        resolve({ status: res.statusCode ?? 0, body });
      });
    });
    req.end('{}');
  });
}

/** What `run` throws at once (`listen` checks its options before it returns a promise). */
function thrownBy(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  return undefined;
}

async function serve(options: Parameters<typeof listen>[1] = {}, identifies = false) {
  const { handler, seen } = countingHandler(identifies);
  const serving = await listen(handler, { port: 0, logger: silentLogger, ...options });
  running.push(serving);
  return { url: serving.url, seen, port: serving.url.port };
}

describe('listen refuses requests from foreign Host names and pages (SERVE-6)', () => {
  it('serves the loopback names at its port, with or without their own Origin', async () => {
    const { url, seen, port } = await serve();
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `LOCALHOST:${port}`]) {
      expect((await post(url, { host })).status).toBe(200);
      expect((await post(url, { host, origin: `http://${host}` })).status).toBe(200);
    }
    expect((await post(url, { host: `127.0.0.1:${port}`, origin: `http://localhost:${port}` })).status).toBe(200);
    expect(seen.count).toBe(7);
  });

  it('answers 403 with a JSON-RPC error, before the handler, for each rebinding form', async () => {
    const { url, seen, port } = await serve();
    const own = `127.0.0.1:${port}`;
    const refused: Record<string, string | string[]>[] = [
      { host: `rebind.evil.example:${port}`, origin: `http://rebind.evil.example:${port}` },
      { host: `rebind.evil.example:${port}` },
      { host: own, origin: 'http://evil.example' },
      { host: own, origin: `http://evil.example:${port}` },
      { host: own, origin: 'null' },
      { host: own, origin: `http://localhost:${port}/path` },
      { host: own, origin: `http://localhost:${String(Number(port) + 1)}` },
      { host: own, origin: [`http://localhost:${port}`, 'http://evil.example'] },
      { host: `localhost:${String(Number(port) + 1)}` },
      { host: 'localhost' },
      { host: `[::ffff:127.0.0.1]:${port}` },
      { host: `[0:0:0:0:0:0:0:1]:${port}` },
      { host: `2130706433:${port}` },
      { host: `0x7f000001:${port}` },
      { host: `0x7f.0.0.1:${port}` },
      { host: `017700000001:${port}` },
      { host: `127.1:${port}` },
      { host: `127.0.0.2:${port}` },
      { host: `localhost.:${port}` },
    ];
    for (const headers of refused) {
      const answer = await post(url, headers);
      expect({ headers, status: answer.status }).toEqual({ headers, status: 403 });
      expect(JSON.parse(answer.body)).toMatchObject({ jsonrpc: '2.0', error: { code: -32000 }, id: null });
    }
    expect(seen.count).toBe(0);
  });

  it('serves [::1] at its port when bound to the IPv6 loopback', async (context) => {
    const { handler } = countingHandler();
    const serving = await listen(handler, { port: 0, host: '::1', logger: silentLogger }).catch(() => undefined);
    if (serving === undefined) {
      context.skip('this machine has no IPv6 loopback');
      return;
    }
    running.push(serving);
    const port = serving.url.port;
    expect((await post(serving.url, { host: `[::1]:${port}`, origin: `http://[::1]:${port}` })).status).toBe(200);
    expect((await post(serving.url, { host: `[::1]:${port}`, origin: 'http://[::2]' })).status).toBe(403);
    expect((await post(serving.url, { host: `[::1]:1` })).status).toBe(403);
  });

  it('serves the names and page origins the options allow, and only those', async () => {
    const { url, port } = await serve({
      allowedHosts: ['mcp.example.com', 'proxy.example.com:443'],
      allowedOrigins: ['https://app.example.com'],
    });
    expect((await post(url, { host: 'mcp.example.com' })).status).toBe(200);
    expect((await post(url, { host: 'MCP.example.com:8443', origin: 'https://mcp.example.com:8443' })).status).toBe(
      200,
    );
    expect((await post(url, { host: 'proxy.example.com:443', origin: 'https://app.example.com' })).status).toBe(200);
    expect((await post(url, { host: 'proxy.example.com' })).status).toBe(403);
    expect((await post(url, { host: `127.0.0.1:${port}` })).status).toBe(403);
    expect((await post(url, { host: 'mcp.example.com', origin: 'https://evil.example' })).status).toBe(403);
  });

  it('refuses allow-list entries that could never match, naming the option', () => {
    const { handler } = countingHandler();
    for (const options of [
      { allowedHosts: ['http://mcp.example.com'] },
      { allowedHosts: ['mcp.example.com/mcp'] },
      { allowedOrigins: ['https://app.example.com/'] },
      { allowedOrigins: ['app.example.com'] },
      { allowedHosts: 'localhost' as unknown as string[] },
    ]) {
      const error = thrownBy(() => listen(handler, { port: 0, ...options }));
      expect(ConfigurationError.isInstance(error) && error.code).toBe('INVALID_OPTION');
      expect(String(error)).toMatch(Object.keys(options)[0] ?? '');
    }
  });
});

describe('listen beyond loopback needs identified callers (SERVE-7)', () => {
  it('refuses 0.0.0.0 and :: for a handler that does not identify its callers', () => {
    const { handler } = countingHandler(false);
    for (const host of ['0.0.0.0', '::', '192.0.2.10']) {
      const error = thrownBy(() => listen(handler, { port: 0, host }));
      expect(ConfigurationError.isInstance(error) && error.code).toBe('UNIDENTIFIED_ON_NETWORK');
    }
  });

  it('listens on 0.0.0.0 when the handler identifies every caller', async () => {
    const { url, port } = await serve({ host: '0.0.0.0' }, true);
    expect(url.hostname).toBe('0.0.0.0');
    // A connection arriving on loopback still gets the loopback names only.
    const local = new URL(url);
    local.hostname = '127.0.0.1';
    expect((await post(local, { host: `localhost:${port}` })).status).toBe(200);
    expect((await post(local, { host: `rebind.evil.example:${port}` })).status).toBe(403);
  });
});

describe('refuseForeignSource (SERVE-6, pure)', () => {
  const lan = { address: '192.0.2.10', port: 8080 };
  const loopback = { address: '127.0.0.1', port: 3000 };

  it('on a network address serves any Host, and a present Origin only when it is that Host', () => {
    expect(refuseForeignSource({ host: 'mcp.example.com', origin: undefined }, lan, {})).toBeUndefined();
    expect(
      refuseForeignSource({ host: 'mcp.example.com', origin: 'https://mcp.example.com' }, lan, {}),
    ).toBeUndefined();
    expect(refuseForeignSource({ host: 'mcp.example.com', origin: 'https://evil.example' }, lan, {})?.status).toBe(403);
    expect(refuseForeignSource({ host: undefined, origin: 'https://evil.example' }, lan, {})?.status).toBe(403);
  });

  it('serves the bare loopback names on port 80, as a browser sends them', () => {
    const port80 = { address: '127.0.0.1', port: 80 };
    expect(refuseForeignSource({ host: 'localhost', origin: 'http://localhost' }, port80, {})).toBeUndefined();
    expect(refuseForeignSource({ host: 'localhost', origin: undefined }, loopback, {})?.status).toBe(403);
  });

  it('knows the loopback addresses', () => {
    for (const address of ['127.0.0.1', '127.8.9.10', '::1', '[::1]', '::ffff:127.0.0.1', 'localhost'])
      expect(isLoopbackAddress(address)).toBe(true);
    for (const address of ['0.0.0.0', '::', '10.0.0.1', '128.0.0.1', '::ffff:10.0.0.1', 'example.com', ''])
      expect(isLoopbackAddress(address)).toBe(false);
  });

  it('on loopback, a Host header is served exactly when it is a loopback name at the port (property)', () => {
    const allowed = new Set(['localhost:3000', '127.0.0.1:3000', '[::1]:3000']);
    const hostish = fc.oneof(
      fc.string({ maxLength: 30 }),
      fc
        .tuple(fc.constantFrom('localhost', '127.0.0.1', '[::1]', '127.1', 'LocalHost', 'evil'), fc.nat(70_000))
        .map(([name, port]) => `${name}:${String(port)}`),
      fc.constantFrom(...allowed),
    );
    fc.assert(
      fc.property(hostish, (host) => {
        const served = refuseForeignSource({ host, origin: undefined }, loopback, {}) === undefined;
        expect(served).toBe(allowed.has(host.toLowerCase()));
      }),
      { numRuns: 3000 },
    );
  });

  it('a checked option list is what was given, lowercased', () => {
    expect(resolveRequestSource({ allowedHosts: ['MCP.Example.com:443'] }, 'test').allowedHosts).toEqual([
      'mcp.example.com:443',
    ]);
  });
});

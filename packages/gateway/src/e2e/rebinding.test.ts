/**
 * DNS rebinding against the gateway as the README serves it for local use
 * (`identity: { anonymous: true }` on 127.0.0.1): each foreign `Host` and
 * `Origin` form is answered 403 before identity, the pipeline or the
 * upstream see it, and a real headless Chromium page (on another local
 * port, or on a rebound name resolving to 127.0.0.1) cannot make a call.
 */
import { existsSync } from 'node:fs';
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { silentLogger } from '@ext/core/kit';
import { listen, type Listening } from '@ext/core/sdk-v2/server';
import { chromium } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { createGateway } from '../gateway.js';
import { serveV2, type V2Upstream } from '../upstream/testing/servers.js';
import { closeAfter, closeAfterEach, gatewayConfig } from './support.js';

closeAfterEach();

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const PRIVATE_NETWORK_GUARDS = [
  'BlockInsecurePrivateNetworkRequests',
  'PrivateNetworkAccessSendPreflights',
  'PrivateNetworkAccessRespectPreflightResults',
  'LocalNetworkAccessChecks',
].join(',');

/** A tools/call the upstream would run, were the request served. */
const CALL = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'page', version: '0' } },
});

interface LocalGateway {
  readonly listening: Listening;
  readonly upstream: V2Upstream;
  /** Requests that passed the source checks and reached the gateway's handler. */
  readonly handled: { count: number };
}

/** The README's local config, served the way the CLI serves it (core's `listen` with `config.listen`). */
async function localGateway(): Promise<LocalGateway> {
  const upstream = await serveV2();
  closeAfter(() => upstream.close());
  const config = gatewayConfig({
    upstreams: { notes: { url: upstream.url, timeoutMs: 5000 } },
    policy: { echo: { confirm: true } },
    identity: { anonymous: true },
    store: 'memory',
    listen: { port: 0 },
  });
  const gateway = await createGateway(config, { logger: silentLogger });
  const handled = { count: 0 };
  const listening = await listen(
    {
      identifiesCallers: gateway.http.identifiesCallers,
      fetch: (request, options?: Parameters<typeof gateway.http.fetch>[1]) => {
        handled.count += 1;
        return gateway.http.fetch(request, options);
      },
      close: () => gateway.http.close(),
    },
    { ...config.listen, logger: silentLogger },
  );
  closeAfter(async () => {
    await listening.close();
    await gateway.close();
  });
  return { listening, upstream, handled };
}

function post(url: URL, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    });
    req.once('error', reject);
    req.once('response', (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.end(CALL);
  });
}

describe('the gateway refuses DNS rebinding (GW-21)', () => {
  it.each([
    [
      'a rebound name with its own Origin',
      (port: string) => ({ host: `rebind.evil.example:${port}`, origin: `http://rebind.evil.example:${port}` }),
    ],
    ['a foreign Host', (port: string) => ({ host: `rebind.evil.example:${port}` })],
    ['a foreign Origin', (port: string) => ({ host: `127.0.0.1:${port}`, origin: 'http://evil.example' })],
    ['Origin: null', (port: string) => ({ host: `127.0.0.1:${port}`, origin: 'null' })],
    ['an IPv6 form of loopback', (port: string) => ({ host: `[::ffff:7f00:1]:${port}` })],
    ['a numeric form of loopback', (port: string) => ({ host: `2130706433:${port}` })],
  ])('answers %s with 403; nothing reaches the pipeline or the upstream', async (_form, headers) => {
    const { listening, upstream, handled } = await localGateway();
    const before = upstream.authorizations.length;
    expect(await post(listening.url, headers(listening.url.port))).toBe(403);
    expect(handled.count).toBe(0);
    expect(upstream.authorizations.length).toBe(before);
    // Its own name and origin are served.
    const own = `127.0.0.1:${listening.url.port}`;
    expect(await post(listening.url, { host: own, origin: `http://${own}` })).toBe(200);
    expect(handled.count).toBe(1);
  });

  it('refuses to start a shared anonymous caller on a network address, naming the field', () => {
    expect(() =>
      gatewayConfig({
        upstreams: { notes: { url: 'http://127.0.0.1:9/mcp' } },
        identity: { anonymous: true },
        listen: { host: '0.0.0.0' },
      }),
    ).toThrow(/identity\.anonymous/);
  });
});

// `pnpm test` installs Debian's chromium where it may, and lists this file among the skipped ones where it cannot.
describe.skipIf(!existsSync(CHROMIUM))(
  `a web page in headless Chromium${existsSync(CHROMIUM) ? '' : ` (skipped: no Chromium at ${CHROMIUM})`}`,
  () => {
    /** A page that POSTs an MCP request to `target` both ways a page can: CORS, and no-cors (a "simple" request). */
    const attack = (target: string) => `<!doctype html><script>
      window.outcome = (async () => {
        const body = ${JSON.stringify(CALL)};
        const cors = await fetch(${JSON.stringify(target)}, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body })
          .then(async (r) => 'status ' + r.status + ' ' + (await r.text()), (e) => 'failed ' + e.message);
        const simple = await fetch(${JSON.stringify(target)}, { method: 'POST', mode: 'no-cors', headers: { 'content-type': 'text/plain' }, body })
          .then((r) => 'opaque ' + r.type, (e) => 'failed ' + e.message);
        return { cors, simple };
      })();
    </script>`;

    async function browse(pageUrl: string, html: string, hostRules?: string) {
      const browser = await chromium.launch({
        executablePath: CHROMIUM,
        args: [
          '--no-sandbox',
          // The browser's own guard for private addresses is not in every browser; the gateway must not rely on it.
          `--disable-features=${PRIVATE_NETWORK_GUARDS}`,
          ...(hostRules === undefined ? [] : [`--host-resolver-rules=${hostRules}`]),
        ],
      });
      closeAfter(() => browser.close());
      const page = await browser.newPage();
      // The attacker's document; the requests its script makes go to the network.
      await page.route(pageUrl, (route) => route.fulfill({ contentType: 'text/html', body: html }));
      await page.goto(pageUrl);
      return page.evaluate<{ cors: string; simple: string }>('window.outcome');
    }

    it('a page on another local port cannot call the gateway', async () => {
      const { listening, handled } = await localGateway();
      const seen = { count: 0 };
      listening.server.on('request', () => (seen.count += 1));
      const other = createServer((_req, res) => res.end());
      await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
      closeAfter(() => new Promise((resolve) => other.close(resolve)));
      const { port } = other.address() as AddressInfo;
      const outcome = await browse(`http://127.0.0.1:${String(port)}/`, attack(listening.url.href));
      expect(outcome.cors).toMatch(/^failed|^status 403/);
      expect(seen.count).toBeGreaterThan(0);
      expect(handled.count).toBe(0);
    });

    it('a page whose name was rebound to 127.0.0.1 cannot call the gateway, though it is same-origin', async () => {
      const { listening, handled } = await localGateway();
      const seen: string[] = [];
      listening.server.on('request', (req: { headers: { host?: string } }) => seen.push(req.headers.host ?? ''));
      const port = listening.url.port;
      const rebound = `http://rebind.evil.example:${port}`;
      const outcome = await browse(`${rebound}/`, attack(`${rebound}/mcp`), 'MAP rebind.evil.example 127.0.0.1');
      // Same origin: the page could read the answer, and the answer is the refusal.
      expect(outcome.cors).toMatch(/^status 403 .*Forbidden/);
      expect(seen).toContain(`rebind.evil.example:${port}`);
      expect(handled.count).toBe(0);
    });
  },
);

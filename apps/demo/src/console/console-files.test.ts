/**
 * The console's files as served (no browser: `console.test.ts` drives the
 * page in Chromium): only the listed files, names inherited from
 * `Object.prototype` included among the unknown ones, with the security
 * headers on every answer, the source map only when asked for, and a file
 * missing from the build a 404 rather than the end of the process.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger } from '@ext/core/kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONSOLE_SECURITY_HEADERS, serveConsole, sourceMapsFrom, type ConsoleFiles } from './console-files.js';
import { startHttpServer, type RunningHttpServer } from '../server/node-http.js';

const INHERITED = [
  'constructor',
  'toString',
  '__proto__',
  'hasOwnProperty',
  'valueOf',
  'isPrototypeOf',
  '__defineGetter__',
];

async function serve(files: ConsoleFiles): Promise<{ server: Server; base: string }> {
  const server = createServer((req, res) => {
    if (!serveConsole(new URL(req.url ?? '/', 'http://console.test').pathname, files, res)) {
      res.writeHead(418);
      res.end();
    }
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, base: `http://127.0.0.1:${String((server.address() as AddressInfo).port)}` };
}

function expectSecurityHeaders(response: Response): void {
  const csp = response.headers.get('content-security-policy') ?? '';
  for (const directive of [
    "script-src 'self'",
    "style-src 'self'",
    "connect-src 'self'",
    "frame-ancestors 'none'",
    "object-src 'none'",
    "base-uri 'none'",
  ]) {
    expect(csp).toContain(directive);
  }
  expect(response.headers.get('x-frame-options')).toBe('DENY');
  expect(response.headers.get('x-content-type-options')).toBe('nosniff');
}

describe('the console files of the running tracker', () => {
  let running: RunningHttpServer;

  beforeAll(async () => {
    running = await startHttpServer({ port: 0, logger: silentLogger });
  });

  afterAll(async () => {
    await running.close();
  });

  it('answers 404 for names Object.prototype carries, and keeps serving', async () => {
    for (const name of INHERITED) {
      const response = await fetch(new URL(`/console/${name}`, running.url));
      expect(response.status, name).toBe(404);
      expectSecurityHeaders(response);
      await response.text();
    }
    const page = await fetch(new URL('/console/', running.url));
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Tracker console');
  });

  it('sends the security headers with the page, its script and style, and the redirect', async () => {
    for (const path of ['/console/', '/console/index.html', '/console/app.js', '/console/style.css']) {
      const response = await fetch(new URL(path, running.url));
      expect(response.status, path).toBe(200);
      expectSecurityHeaders(response);
      await response.arrayBuffer();
    }
    const redirect = await fetch(new URL('/console', running.url), { redirect: 'manual' });
    expect(redirect.status).toBe(308);
    expectSecurityHeaders(redirect);
  });

  it('does not serve the source map unless asked', async () => {
    const response = await fetch(new URL('/console/app.js.map', running.url));
    expect(response.status).toBe(404);
    await response.text();
  });
});

describe('serveConsole', () => {
  let dir: string;

  beforeAll(() => {
    // A build with the page and a source map but no script: the script is a file that vanished.
    dir = `${mkdtempSync(join(tmpdir(), 'console-files-'))}/`;
    writeFileSync(join(dir, 'index.html'), '<!doctype html><title>t</title>');
    writeFileSync(join(dir, 'app.js.map'), '{"version":3}');
  });

  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers 404 for a listed file missing from the build, and the process carries on', async () => {
    const { server, base } = await serve({ dir });
    try {
      const missing = await fetch(`${base}/console/app.js`);
      expect(missing.status).toBe(404);
      await missing.text();
      expect((await fetch(`${base}/console/`)).status).toBe(200);
    } finally {
      server.close();
    }
  });

  it('serves the source map when sourceMaps is set (TRACKER_CONSOLE_SOURCEMAP=1)', async () => {
    const { server, base } = await serve({ dir, sourceMaps: true });
    try {
      const map = await fetch(`${base}/console/app.js.map`);
      expect(map.status).toBe(200);
      expect(await map.json()).toEqual({ version: 3 });
    } finally {
      server.close();
    }
    expect(sourceMapsFrom({ TRACKER_CONSOLE_SOURCEMAP: '1' })).toBe(true);
    expect(sourceMapsFrom({ TRACKER_CONSOLE_SOURCEMAP: 'true' })).toBe(true);
    expect(sourceMapsFrom({ TRACKER_CONSOLE_SOURCEMAP: '0' })).toBe(false);
    expect(sourceMapsFrom({})).toBe(false);
  });

  it('says how to build the console when it is not built', async () => {
    const { server, base } = await serve({ dir: undefined });
    try {
      const response = await fetch(`${base}/console/`);
      expect(response.status).toBe(404);
      expect(await response.text()).toContain('pnpm --filter @ext/demo build');
      expect(Object.keys(CONSOLE_SECURITY_HEADERS)).toContain('content-security-policy');
    } finally {
      server.close();
    }
  });
});

/**
 * A server-only install: a fresh project with nothing but the packed
 * `@ext/core` and `@modelcontextprotocol/server` (no client package) imports
 * `@ext/core/sdk-v2/server`, serves an extended server with `listen` on a
 * free port and answers a real HTTP request. The `@ext/core/sdk-v2` index,
 * which holds the client adapter too, needs the client package.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { importOutcomes, npmInstall, writeProject } from './npm.js';
import type { PackedPackage } from './pack.js';
import { run, tempDir } from './run.js';
import { installedVersion } from './workspace.js';

const APP_DIR = dirname(dirname(fileURLToPath(import.meta.url)));

const packed = inject('packed');

function packOf(name: string): PackedPackage {
  const found = packed.find((pkg) => pkg.name === name);
  if (found === undefined) throw new Error(`${name} was not packed`);
  return found;
}

/** Serves a server built the README's way on port 0, sends it one `initialize`, and prints what came back. */
const SERVER_SCRIPT = `
import { McpServer } from '@modelcontextprotocol/server';
import { composeServer } from '@ext/core';
import { createHttpHandler, extendServer, listen } from '@ext/core/sdk-v2/server';

const composed = composeServer([]);
const handler = createHttpHandler(() => {
  const mcp = new McpServer({ name: 'server-only', version: '1.0.0' });
  extendServer(mcp, composed).registerTool('ping', { description: 'Answers pong.' }, () => ({
    content: [{ type: 'text', text: 'pong' }],
  }));
  return mcp;
});
const serving = await listen(handler, { port: 0 });
const response = await fetch(serving.url, {
  method: 'POST',
  headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
  body: JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
  }),
});
const text = await response.text();
const missing = await fetch(new URL('/elsewhere', serving.url));
await serving.close();
const data = text.split('\\n').find((line) => line.startsWith('data: '));
console.log(JSON.stringify({
  url: serving.url.href,
  status: response.status,
  session: response.headers.get('mcp-session-id') !== null,
  result: data === undefined ? JSON.parse(text).result : JSON.parse(data.slice(6)).result,
  missing: missing.status,
}));
`;

describe('a server-only consumer: packed @ext/core and @modelcontextprotocol/server, no client package', () => {
  const project = tempDir('server-only');
  const dir = project.path;

  beforeAll(async () => {
    writeProject(dir, 'server-only-consumer', {
      dependencies: {
        '@ext/core': `file:${packOf('@ext/core').tarball}`,
        '@modelcontextprotocol/server': installedVersion(APP_DIR, '@modelcontextprotocol/server'),
      },
    });
    // As a user would: the SDK packages are optional peers of @ext/core, so npm installs none it was not asked for.
    await npmInstall(dir);
    writeFileSync(join(dir, 'server.mjs'), SERVER_SCRIPT);
  }, 600_000);

  afterAll(() => {
    project.remove();
  });

  it('has no client package installed', () => {
    expect(existsSync(join(dir, 'node_modules', '@modelcontextprotocol', 'server'))).toBe(true);
    expect(existsSync(join(dir, 'node_modules', '@modelcontextprotocol', 'client'))).toBe(false);
    expect(existsSync(join(dir, 'node_modules', '@modelcontextprotocol', 'sdk'))).toBe(false);
  });

  it('imports @ext/core/sdk-v2/server, serves with listen on a free port and answers an HTTP request', async () => {
    const { stdout } = await run(process.execPath, ['server.mjs'], { cwd: dir, timeoutMs: 60_000 });
    const seen = JSON.parse(stdout) as {
      url: string;
      status: number;
      session: boolean;
      result: { serverInfo?: { name?: string }; capabilities?: { tools?: unknown } };
      missing: number;
    };
    expect(seen.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    expect(seen.status).toBe(200);
    expect(seen.session).toBe(true);
    expect(seen.result.serverInfo?.name).toBe('server-only');
    expect(seen.result.capabilities?.tools).toBeDefined();
    expect(seen.missing).toBe(404);
  });

  it('loads the server entry and the SDK-free root; the index and the client entry need the client package', async () => {
    expect(
      await importOutcomes(dir, [
        '@ext/core',
        '@ext/core/sdk-v2/server',
        '@ext/core/sdk-v2',
        '@ext/core/sdk-v2/client',
      ]),
    ).toEqual({
      '@ext/core': 'ok',
      '@ext/core/sdk-v2/server': 'ok',
      '@ext/core/sdk-v2': 'ERR_MODULE_NOT_FOUND',
      '@ext/core/sdk-v2/client': 'ERR_MODULE_NOT_FOUND',
    });
  });
});

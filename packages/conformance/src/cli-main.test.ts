import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createHttpHandler, listen } from '@ext/core/sdk-v2/server';
import { afterAll, describe, expect, it } from 'vitest';
import { notesServer } from '../fixtures/server.mjs';
import { main } from './cli-main.js';

const server = fileURLToPath(new URL('../fixtures/server.mjs', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'conformance-cli-'));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(argv, {
    out: (text) => (out += `${text}\n`),
    err: (text) => (err += `${text}\n`),
  });
  return { code, out, err };
}

describe('the CLI', () => {
  it('exits 2 with the usage when given no server, two servers, or an unknown option', async () => {
    expect((await cli()).code).toBe(2);
    expect((await cli('--url', 'http://127.0.0.1:1/mcp', '--', 'node')).err).toMatch(/exactly one server/);
    const unknown = await cli('--frobnicate');
    expect(unknown.code).toBe(2);
    expect(unknown.err).toMatch(/Usage:/);
    expect((await cli('--timeout', 'soon', '--', 'node')).err).toMatch(/--timeout must be a positive integer/);
  });

  it('exits 2 when the server cannot be reached', async () => {
    const result = await cli('--url', 'http://127.0.0.1:9/mcp', '--timeout', '5000');
    expect(result.code).toBe(2);
    expect(result.err).toMatch(/Could not test the server/);
  });

  it('lists its checks with the requirement each one verifies', async () => {
    const result = await cli('--list');
    expect(result.code).toBe(0);
    expect(result.out).toMatch(/errors\/structured-on-failure\s+ERR-3 MUST/);
  });

  it('prints the table, writes the JSON report and exits 0 for a conforming stdio server', async () => {
    const json = join(dir, 'report.json');
    const result = await cli('--json', json, '--', process.execPath, server);
    expect(result.code).toBe(0);
    expect(result.out).toMatch(/extension\s+check\s+requirement\s+result\s+time/);
    const report = JSON.parse(readFileSync(json, 'utf8')) as { server_name: string; results: unknown[] };
    expect(report.server_name).toBe('notes');
    expect(report.results.length).toBeGreaterThan(5);
  });

  // Over HTTP in-process: the stdio run above already proves the CLI's stdio path.
  it('exits 1 for the broken server at --url, and 0 with its expected-failures file', async () => {
    const { createServer, close } = await notesServer({ broken: true });
    const listening = await listen(createHttpHandler(createServer, { identify: () => 'conformance-kit' }), { port: 0 });
    try {
      const url = String(listening.url);
      expect((await cli('--allow-effects', '--url', url)).code).toBe(1);
      const baseline = join(dir, 'baseline.yml');
      writeFileSync(baseline, readFileSync(fileURLToPath(new URL('../fixtures/broken-expected.yml', import.meta.url))));
      expect((await cli('--allow-effects', '--expected-failures', baseline, '--url', url)).code).toBe(0);
    } finally {
      await listening.close();
      await close();
    }
  });
});

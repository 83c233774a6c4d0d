import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { silentLogger } from '@ext/core/kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerConformanceFixtures } from '../conformance-fixtures/register.js';
import { nodeForConformance } from '../conformance-fixtures/node.js';
import { startHttpServer, type RunningHttpServer } from '../server/node-http.js';

/** The official suite's CLI, as installed for this package. */
function conformanceBin(): string {
  const require = createRequire(import.meta.url);
  const manifest = require.resolve('@modelcontextprotocol/conformance/package.json');
  return join(dirname(manifest), 'dist', 'index.js');
}

function runSuite(url: string, cwd: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(nodeForConformance(), [conformanceBin(), 'server', '--url', url, '--output-dir', cwd], {
      cwd,
      env: { ...process.env, NO_COLOR: '1' },
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => {
      resolve({ code, output });
    });
  });
}

/** The checks that did not succeed, as the suite wrote them to `dir`, for the failure message. */
function failedChecks(dir: string): string {
  const failed = readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('checks.json'))
    .flatMap((file) => JSON.parse(readFileSync(join(dir, file), 'utf8')) as { status: string }[])
    .filter((check) => check.status !== 'SUCCESS');
  return JSON.stringify(failed, null, 1).slice(0, 6000);
}

describe('the official MCP conformance suite (@modelcontextprotocol/conformance 0.1.16) against the composed stack', () => {
  let running: RunningHttpServer;
  let results: string;

  beforeAll(async () => {
    results = mkdtempSync(join(tmpdir(), 'tracker-conformance-'));
    running = await startHttpServer({
      port: 0,
      logger: silentLogger,
      anonymous: true,
      extend: registerConformanceFixtures,
    });
  });

  afterAll(async () => {
    await running.close();
    rmSync(results, { recursive: true, force: true });
  });

  it('passes every server scenario with no expected failures', async () => {
    const { code, output } = await runSuite(running.url.href, results);
    const total = /Total: (\d+) passed, (\d+) failed/.exec(output);
    expect(total, output.slice(-4000)).not.toBeNull();
    expect(Number(total?.[2]), failedChecks(results)).toBe(0);
    // 30 active scenarios, some with several checks each.
    expect(Number(total?.[1])).toBeGreaterThanOrEqual(40);
    expect(output).not.toMatch(/✗/);
    expect(code).toBe(0);
  }, 240_000);
});

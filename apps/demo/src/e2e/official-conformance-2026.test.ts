/**
 * The official MCP conformance suite's 2026-07-28 checks against the
 * composed tracker: every server scenario the revision lists, the official
 * Tasks extension's (`tasks-*`, SEP-2663) included, with the fixtures of
 * `conformance-fixtures/`; and in `server-stateless` (SEP-2575) the
 * unknown-method check (HTTP 404 with -32601, whatever is composed) and the
 * diagnostic tools.
 *
 * The suite's 2026 line needs Node 22 or newer (`nodeForConformance`).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { silentLogger } from '@ext/core/kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerConformanceFixtures } from '../conformance-fixtures/register.js';
import { nodeForConformance } from '../conformance-fixtures/node.js';
import { startHttpServer, type RunningHttpServer } from '../server/node-http.js';

const run = promisify(execFile);

/** The suite's CLI, and a Node it runs on. */
function suite(): { node: string; cli: string } {
  const cli = join(
    dirname(createRequire(import.meta.url).resolve('mcp-conformance-2026/package.json')),
    'dist',
    'index.js',
  );
  return { node: nodeForConformance(), cli };
}

interface Check {
  readonly id: string;
  readonly status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | 'SKIPPED';
  readonly errorMessage?: string;
}

/**
 * The server scenarios the 2026-07-28 revision lists (`list --requirements
 * 2026-07-28`): the scored ones and those run but never scored (the
 * official Tasks extension's `tasks-*`, and the pending ones).
 */
async function requiredServerScenarios(): Promise<string[]> {
  const { node, cli } = suite();
  const { stdout } = await run(node, [cli, 'list', '--requirements', '2026-07-28'], {
    env: { ...process.env, NO_COLOR: '1' },
  });
  const scored = stdout.slice(stdout.indexOf('Server scenarios'), stdout.indexOf('Client scenarios'));
  const names = [...scored.matchAll(/^\s+- (\S+)$/gm), ...stdout.matchAll(/^\s+- (\S+) \[server\]$/gm)];
  return names.map((match) => match[1]!);
}

describe('the official MCP conformance suite (0.2.0-alpha.12), 2026-07-28, against the composed stack', () => {
  let running: RunningHttpServer;
  let results: string;

  beforeAll(async () => {
    results = mkdtempSync(join(tmpdir(), 'tracker-conformance-2026-'));
    running = await startHttpServer({
      port: 0,
      logger: silentLogger,
      // The suite sends no credentials.
      anonymous: true,
      extend: registerConformanceFixtures,
    });
  });

  afterAll(async () => {
    await running.close();
    rmSync(results, { recursive: true, force: true });
  });

  async function checksOf(scenario: string): Promise<Check[]> {
    const { node, cli } = suite();
    // A folder per run, so a scenario run twice is read from its own run.
    const output = mkdtempSync(join(results, 'run-'));
    // An extension's scenarios are on no revision's timeline: the suite skips them when given a
    // `--spec-version`, and without one runs them on the revision the extension is defined for (2026-07-28).
    const revision = scenario.startsWith('tasks-') ? [] : ['--spec-version', '2026-07-28'];
    const args = [cli, 'server', '--url', running.url.href, '--scenario', scenario, ...revision, '-o', output];
    // The CLI exits non-zero when any check fails; the checks file says which.
    await run(node, args, { cwd: output, env: { ...process.env, NO_COLOR: '1' } }).catch(() => undefined);
    const folder = readdirSync(output).find((name) => name.startsWith(`server-${scenario}-`));
    expect(folder, `the suite wrote no results for ${scenario}`).toBeDefined();
    return JSON.parse(readFileSync(join(output, folder!, 'checks.json'), 'utf8')) as Check[];
  }

  it("passes every server scenario of the revision, the Tasks extension's included, with no expected failures", async () => {
    const scenarios = await requiredServerScenarios();
    // 37 scored; 10 of the Tasks extension; the 3 pending: json-schema-2020-12, http-header-validation,
    // http-custom-header-server-validation.
    expect(scenarios).toHaveLength(50);
    expect(scenarios).toEqual(
      expect.arrayContaining(['server-stateless', 'caching', 'json-schema-2020-12', 'tasks-lifecycle']),
    );
    expect(scenarios.filter((name) => name.startsWith('tasks-'))).toHaveLength(10);
    const failed: (Check & { scenario: string })[] = [];
    let passed = 0;
    for (const scenario of scenarios) {
      const checks = await checksOf(scenario);
      expect(checks.length, `${scenario} reported no checks`).toBeGreaterThan(0);
      passed += checks.filter((check) => check.status === 'SUCCESS').length;
      failed.push(...checks.filter((check) => check.status === 'FAILURE').map((check) => ({ ...check, scenario })));
    }
    expect(failed, JSON.stringify(failed, null, 2)).toEqual([]);
    expect(passed).toBeGreaterThanOrEqual(190);
  }, 420_000);

  it('answers unknown and removed methods with HTTP 404 and -32601, and logs only when a request asks (CORE-39)', async () => {
    const checks = await checksOf('server-stateless');
    const notFound = checks.filter((check) => check.id.startsWith('sep-2575-http-server-method-not-found-404'));
    // The unknown method, and initialize, ping, logging/setLevel, resources/(un)subscribe.
    expect(notFound.map((check) => [check.id, check.status])).toEqual(notFound.map((check) => [check.id, 'SUCCESS']));
    expect(notFound.map((check) => check.id)).toContain('sep-2575-http-server-method-not-found-404');
    expect(notFound.length).toBe(6);
    // The diagnostic tools are listed, so these ran rather than being reported untestable.
    const diagnostic = [
      'sep-2575-server-rejects-undeclared-capability',
      'sep-2575-missing-capability-http-400',
      'sep-2575-http-server-no-independent-requests-on-stream',
      'sep-2575-server-no-log-without-loglevel',
    ];
    const statuses = Object.fromEntries(checks.map((check) => [check.id, check.status]));
    expect(diagnostic.map((id) => statuses[id])).toEqual(diagnostic.map(() => 'SUCCESS'));
  }, 120_000);
});

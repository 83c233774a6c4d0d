// The gateway benchmark's harness against the built upstream and gateway processes (`pnpm -s build` first): it runs, and the gateways answer.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger, type ExtendedClient, type ToolResult } from '@ext/core';
import { extendClient } from '@ext/core/sdk-v2/client';
import { getCostInfo } from '@ext/cost/client';
import { getStructuredError } from '@ext/errors/client';
import { getReplayInfo, idempotentCall } from '@ext/idempotency/client';
import { getProvenance } from '@ext/provenance/client';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runGateway, startGatewayProcesses, type GatewayProcesses, type GatewayResult } from './gateway.js';
import { gatewayTargets, renderGateway } from './gateway-report.js';
import { extensionAwareHalves, PROVENANCE_SOURCE, WRITE_ARGS, WRITE_TOOL } from './gateway-setup.js';
import type { Measurement } from './measure.js';

const BUILT = new URL('../dist/', import.meta.url);

/** An extension-aware host on `url`, with `Authorization: Bearer <token>` when a token is given. */
async function awareClient(url: string, token?: string): Promise<ExtendedClient> {
  const client = new Client({ name: 'gateway-bench-test', version: '0.0.0' });
  const extended = extendClient(client, extensionAwareHalves(), { logger: silentLogger });
  const headers: Record<string, string> = token === undefined ? {} : { authorization: `Bearer ${token}` };
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return extended;
}

function text(result: ToolResult): unknown {
  return result.content[0]?.text;
}

beforeAll(() => {
  if (!existsSync(new URL('gateway-server.js', BUILT)))
    throw new Error('the gateway benchmark forks its built processes: run `pnpm -s build` in apps/bench first');
});

describe('the gateway benchmark harness', () => {
  it('measures every path at every level of calls in flight, each through a checked client', async () => {
    const lines: string[] = [];
    const result = await runGateway({
      run: { timeMs: 100, warmupMs: 20 },
      concurrency: [1, 3],
      rounds: 1,
      warmupCalls: 6,
      progress: (line) => lines.push(line),
      entries: BUILT,
    });
    expect(result.rows.map((row) => [row.path, row.inFlight])).toEqual([
      ['direct', 1],
      ['plain', 1],
      ['policy', 1],
      ['direct', 3],
      ['plain', 3],
      ['policy', 3],
    ]);
    for (const row of result.rows) expect(row.measurement.samples).toBeGreaterThan(0);
    expect(lines).toHaveLength(6);
    expect(renderGateway(result).targets).toHaveLength(2);
  });
});

describe('the gateways of the benchmark', () => {
  let dir: string;
  let processes: GatewayProcesses;
  const clients: ExtendedClient[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gateway-bench-test-'));
    processes = await startGatewayProcesses(dir, BUILT);
  });
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close()));
    await processes.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  async function client(url: string, token?: string): Promise<ExtendedClient> {
    const made = await awareClient(url, token);
    clients.push(made);
    return made;
  }

  it('with the full policy: cites the source, counts the cost, and replays a repeated key from its record', async () => {
    const caller = await client(processes.urls.policy, 'test-caller-one');
    const attempt = idempotentCall(caller, WRITE_TOOL, WRITE_ARGS);
    const first = await attempt();
    expect(text(first)).toBe(WRITE_ARGS.text);
    expect(getReplayInfo(first)).toMatchObject({ idempotency_key: attempt.key, was_replay: false });
    expect(getCostInfo(first)).toBeDefined();
    expect(getProvenance(first)?.sources.map((source) => source.source)).toEqual([PROVENANCE_SOURCE]);
    const again = await attempt();
    expect(text(again)).toBe(WRITE_ARGS.text);
    expect(getReplayInfo(again)).toMatchObject({ idempotency_key: attempt.key, was_replay: true });
  });

  it('with the full policy: refuses a caller the authentication in front did not grant the scope', async () => {
    const anonymous = await client(processes.urls.policy);
    const refused = await anonymous.callTool(WRITE_TOOL, WRITE_ARGS);
    expect(refused.isError).toBe(true);
    expect(getStructuredError(refused)?.code).toBe('SCOPE_INSUFFICIENT');
  });

  it('with no policy: passes the call through with no key recorded, no cost and no provenance', async () => {
    const host = await client(processes.urls.plain);
    const result = await idempotentCall(host, WRITE_TOOL, WRITE_ARGS)();
    expect(text(result)).toBe(WRITE_ARGS.text);
    expect(getReplayInfo(result)).toBeUndefined();
    expect(getCostInfo(result)).toBeUndefined();
    expect(getProvenance(result)).toBeUndefined();
  });
});

describe('the gateway targets', () => {
  function measurement(medianMs: number, opsPerSec: number): Measurement {
    return { name: 'case', medianMs, p99Ms: medianMs * 3, meanMs: medianMs, opsPerSec, samples: 100 };
  }

  function result(policyMedianMs: number, policyOpsPerSec: number): GatewayResult {
    return {
      rows: [
        { path: 'direct', inFlight: 1, measurement: measurement(0.75, 1200) },
        { path: 'plain', inFlight: 1, measurement: measurement(1.4, 700) },
        { path: 'policy', inFlight: 1, measurement: measurement(policyMedianMs, 600) },
        { path: 'direct', inFlight: 16, measurement: measurement(8, 2000) },
        { path: 'plain', inFlight: 16, measurement: measurement(12, 1300) },
        { path: 'policy', inFlight: 16, measurement: measurement(16, policyOpsPerSec) },
      ],
      concurrency: [1, 16],
      rounds: 3,
      warmupCalls: 2000,
    };
  }

  it('holds the full-policy gateway to 1 ms added at 1 in flight and half of direct calls/s at 16', () => {
    expect(gatewayTargets(result(1.75, 1000)).map((target) => [target.met, target.detail])).toEqual([
      [true, '+1.00 ms'],
      [true, '50%'],
    ]);
    expect(gatewayTargets(result(1.8, 980)).map((target) => [target.met, target.detail])).toEqual([
      [false, '+1.05 ms'],
      [false, '49%'],
    ]);
  });

  it('writes each path with its deltas against direct calls, and each target with its outcome', () => {
    const { markdown } = renderGateway(result(1.75, 1000));
    expect(markdown).toContain(
      '| (b) through the gateway, no policy | 1.40 ms | 4.20 ms | +650 µs | 1,300 | 65% | 12.0 ms | 36.0 ms |',
    );
    expect(markdown).toContain('| (a) direct to the upstream | 750 µs | 2.25 ms | baseline | 2,000 | baseline |');
    expect(markdown).toContain('- **Met**: gateway with the full policy, 16 in flight: keeps at least 50% of direct');
  });
});

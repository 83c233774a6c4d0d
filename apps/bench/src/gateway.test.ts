// The gateway benchmark's harness against the built upstream, gateway and relay processes (`pnpm -s build` first): it runs, and the gateways and relays answer.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
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
import { startChild, type Message } from './child.js';
import { runGateway, startGatewayProcesses, type GatewayProcesses, type GatewayResult } from './gateway.js';
import type { RelayReady } from './gateway-relay.js';
import { gatewayTargets, renderGateway } from './gateway-report.js';
import {
  extensionAwareHalves,
  MODERN_PROTOCOL_VERSION,
  PROVENANCE_SOURCE,
  WRITE_ARGS,
  WRITE_TOOL,
  type GatewayPath,
} from './gateway-setup.js';
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

/** A host that knows no extension on `url`, in the benchmark's era. */
async function plainClient(url: string): Promise<Client> {
  const client = new Client(
    { name: 'gateway-bench-test', version: '0.0.0' },
    { versionNegotiation: { mode: { pin: MODERN_PROTOCOL_VERSION } } },
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

/** A port on 127.0.0.1 that nothing listens on (it did a moment ago). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
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
    const paths: GatewayPath[] = ['direct', 'plain', 'policy', 'relay', 'sdk-relay'];
    expect(result.rows.map((row) => [row.path, row.inFlight])).toEqual([
      ...paths.map((path) => [path, 1]),
      ...paths.map((path) => [path, 3]),
    ]);
    for (const row of result.rows) expect(row.measurement.samples).toBeGreaterThan(0);
    expect(lines).toHaveLength(10);
    expect(renderGateway(result).targets).toHaveLength(2);
  });
});

describe('the gateways of the benchmark', () => {
  let dir: string;
  let processes: GatewayProcesses;
  const clients: (ExtendedClient | Client)[] = [];

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

  it.each(['relay', 'sdk-relay'] as const)(
    'the %s passes the write of a plain host through and its text back',
    async (path) => {
      const host = await plainClient(processes.urls[path]);
      clients.push(host);
      const result = (await host.callTool({ name: WRITE_TOOL, arguments: WRITE_ARGS })) as ToolResult;
      expect(result.isError).not.toBe(true);
      expect(text(result)).toBe(WRITE_ARGS.text);
    },
  );

  it('the raw relay passes a GET and a DELETE without body through with the status of the upstream', async () => {
    for (const method of ['GET', 'DELETE']) {
      const direct = await fetch(processes.urls.direct, { method });
      const relayed = await fetch(processes.urls.relay, { method });
      expect([relayed.status, await relayed.text()]).toEqual([direct.status, await direct.text()]);
    }
  });
});

describe('the raw relay of the benchmark', () => {
  it('answers 502 when the upstream cannot be reached', async () => {
    const upstream = `http://127.0.0.1:${String(await closedPort())}/mcp`;
    const relay = await startChild<Message, RelayReady>(new URL('gateway-relay.js', BUILT), ['relay', upstream]);
    try {
      const answer = await fetch(relay.ready.url, { method: 'POST', body: '{}' });
      expect(answer.status).toBe(502);
    } finally {
      await relay.stop();
    }
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
        { path: 'relay', inFlight: 1, measurement: measurement(0.9, 1100) },
        { path: 'sdk-relay', inFlight: 1, measurement: measurement(1.25, 800) },
        { path: 'direct', inFlight: 16, measurement: measurement(8, 2000) },
        { path: 'plain', inFlight: 16, measurement: measurement(12, 1300) },
        { path: 'policy', inFlight: 16, measurement: measurement(16, policyOpsPerSec) },
        { path: 'relay', inFlight: 16, measurement: measurement(9, 1700) },
        { path: 'sdk-relay', inFlight: 16, measurement: measurement(11, 1400) },
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

  it('writes the two relays as reference rows after the gateways, and what they measured after the targets', () => {
    const { markdown, targets } = renderGateway(result(1.75, 1000));
    expect(markdown).toContain(
      '| (d) raw HTTP relay, no MCP (reference) | 900 µs | 2.70 ms | +150 µs | 1,700 | 85% | 9.00 ms | 27.0 ms |',
    );
    expect(markdown.indexOf('| (e) bare SDK relay, no extensions (reference) | 1.25 ms |')).toBeGreaterThan(
      markdown.indexOf('| (c) through the gateway, full policy |'),
    );
    expect(markdown.trimEnd()).toMatch(
      /\n\nFor reference, the bare SDK relay adds \+500 µs median at 1 in flight and keeps 70% of direct calls\/s at 16 in flight; the raw HTTP relay adds \+150 µs and keeps 85%\.$/,
    );
    expect(targets.map((target) => target.detail)).toEqual(['+1.00 ms', '50%']);
  });
});

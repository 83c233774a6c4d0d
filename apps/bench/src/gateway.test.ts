// The gateway benchmark's harness against the built upstream, gateway and relay processes (`pnpm -s build` first): it runs, and the gateways, relays and `mcp-proxy` answer.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger } from '@ext/core/kit';
import { type ExtendedClient, type ToolResult } from '@ext/core';
import { extendClient } from '@ext/core/sdk-v2/client';
import { getCostInfo } from '@ext/cost/client';
import { getStructuredError } from '@ext/errors/client';
import { getReplayInfo, idempotentCall } from '@ext/idempotency/client';
import { getProvenance } from '@ext/provenance/client';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChild, type Message } from './child.js';
import { runGateway, startGatewayProcesses, urlOf, type GatewayProcesses } from './gateway.js';
import type { RelayReady } from './gateway-relay.js';
import { renderGateway } from './gateway-report.js';
import {
  ECHO,
  extensionAwareHalves,
  MODERN_PROTOCOL_VERSION,
  PROVENANCE_SOURCE,
  WRITE_ARGS,
  WRITE_TOOL,
  type GatewayPath,
} from './gateway-setup.js';

const BUILT = new URL('../dist/', import.meta.url);

/** Starting nine processes (two of them start the stdio upstream) takes a while on a loaded machine. */
const STARTING_MS = 240_000;

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
  it(
    'measures every path at every level of calls in flight, each through a checked client, and says why one is not',
    async () => {
      const lines: string[] = [];
      const result = await runGateway({
        run: { timeMs: 100, warmupMs: 20 },
        concurrency: [1, 3],
        rounds: 1,
        warmupCalls: 6,
        progress: (line) => lines.push(line),
        entries: BUILT,
        contextForge: () => Promise.resolve('it is not installed in this test'),
      });
      const paths: GatewayPath[] = [
        'direct',
        'plain',
        'policy',
        'relay',
        'sdk-relay',
        'proxy',
        'stdio-plain',
        'stdio-policy',
      ];
      expect(result.rows.map((row) => [row.path, row.inFlight])).toEqual([
        ...paths.map((path) => [path, 1]),
        ...paths.map((path) => [path, 3]),
      ]);
      for (const row of result.rows) expect(row.measurement.samples).toBeGreaterThan(0);
      expect(lines).toEqual(
        expect.arrayContaining(['gateway contextforge: not measured (it is not installed in this test)']),
      );
      const { markdown, targets } = renderGateway(result);
      expect(targets).toHaveLength(6);
      expect(markdown).toContain('ContextForge is not measured: it is not installed in this test.');
    },
    STARTING_MS,
  );
});

describe('the gateways of the benchmark', () => {
  let dir: string;
  let processes: GatewayProcesses | undefined;
  const started = (): GatewayProcesses => {
    if (processes === undefined) throw new Error('the processes did not start');
    return processes;
  };
  const clients: (ExtendedClient | Client)[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gateway-bench-test-'));
    processes = await startGatewayProcesses(dir, { entries: BUILT });
  }, STARTING_MS);
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close()));
    await processes?.stop();
    rmSync(dir, { recursive: true, force: true });
  }, STARTING_MS);

  async function client(url: string, token?: string): Promise<ExtendedClient> {
    const made = await awareClient(url, token);
    clients.push(made);
    return made;
  }

  it('with the full policy: cites the source, counts the cost, and replays a repeated key from its record', async () => {
    const caller = await client(urlOf(started(), 'policy'), 'test-caller-one');
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
    const anonymous = await client(urlOf(started(), 'policy'));
    const refused = await anonymous.callTool(WRITE_TOOL, WRITE_ARGS);
    expect(refused.isError).toBe(true);
    expect(getStructuredError(refused)?.code).toBe('SCOPE_INSUFFICIENT');
  });

  it('with no policy: passes the call through with no key recorded, no cost and no provenance', async () => {
    const host = await client(urlOf(started(), 'plain'));
    const result = await idempotentCall(host, WRITE_TOOL, WRITE_ARGS)();
    expect(text(result)).toBe(WRITE_ARGS.text);
    expect(getReplayInfo(result)).toBeUndefined();
    expect(getCostInfo(result)).toBeUndefined();
    expect(getProvenance(result)).toBeUndefined();
  });

  it.each(['relay', 'sdk-relay'] as const)(
    'the %s passes the write of a plain host through and its text back',
    async (path) => {
      const host = await plainClient(urlOf(started(), path));
      clients.push(host);
      const result = (await host.callTool({ name: WRITE_TOOL, arguments: WRITE_ARGS })) as ToolResult;
      expect(result.isError).not.toBe(true);
      expect(text(result)).toBe(WRITE_ARGS.text);
    },
  );

  it.each(['proxy', 'stdio-plain'] as const)(
    '%s passes the echo of a plain host to the stdio upstream and its answer back',
    async (path) => {
      const host = await plainClient(urlOf(started(), path));
      clients.push(host);
      const result = (await host.callTool({ name: ECHO.name, arguments: { ...ECHO.args } })) as ToolResult;
      expect(result.isError).not.toBe(true);
      expect(text(result)).toBe(ECHO.answer);
    },
  );

  it('with the full policy in front of the stdio upstream: cites the source and replays a repeated key', async () => {
    const caller = await client(urlOf(started(), 'stdio-policy'), 'test-caller-two');
    const attempt = idempotentCall(caller, ECHO.name, { ...ECHO.args });
    const first = await attempt();
    expect(text(first)).toBe(ECHO.answer);
    expect(getProvenance(first)?.sources.map((source) => source.source)).toEqual([PROVENANCE_SOURCE]);
    expect(getReplayInfo(await attempt())).toMatchObject({ idempotency_key: attempt.key, was_replay: true });
  });

  it('the raw relay passes a GET and a DELETE without body through with the status of the upstream', async () => {
    for (const method of ['GET', 'DELETE']) {
      const direct = await fetch(urlOf(started(), 'direct'), { method });
      const relayed = await fetch(urlOf(started(), 'relay'), { method });
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

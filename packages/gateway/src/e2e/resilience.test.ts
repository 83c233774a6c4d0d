/**
 * The gateway in front of a real upstream process that is down at start, or
 * dies mid-call and comes back on the same port: an HTTP upstream down at
 * start is served without its tools until it answers (connected clients are
 * told then); a call the upstream may have received is sent again only when
 * it is safe to repeat (read-only, or under an idempotency key), unless the
 * policy says `retry: false`. The upstream logs every call it receives.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { errorsClient } from '@ext/errors/client';
import { idempotencyClient, idempotencyMeta } from '@ext/idempotency/client';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { compiledUpstream, receivedCalls, startUpstream, stopAll } from '../upstream/testing/processes.js';
import {
  closeAfter,
  closeAfterEach,
  connectClient,
  ERAS,
  eraOptions,
  gatewayConfig,
  memoryUpstream,
  plainClient,
  serveGateway,
  textOf,
  watchToolList,
} from './support.js';

closeAfterEach();
const program = compiledUpstream();

let scratch: string;
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'gateway-e2e-resilience-'));
});
afterEach(stopAll);
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

let logs = 0;
function newLog(): string {
  logs += 1;
  return join(scratch, `calls-${String(logs)}.log`);
}

/** A port nothing listens on any more (an upstream process started there, then killed). */
async function freedPort(log: string): Promise<number> {
  const upstream = await startUpstream(program.path, { log });
  await upstream.kill();
  return upstream.port;
}

describe.each(ERAS)('an HTTP upstream down when the gateway starts (%s client)', (era) => {
  it('is served without its tools, which appear, and clients are told, once it answers', async () => {
    const log = newLog();
    const port = await freedPort(log);
    const config = gatewayConfig({
      upstreams: {
        api: { url: `http://127.0.0.1:${String(port)}/mcp`, protocol: '2026-07-28' },
        memory: memoryUpstream(join(scratch, `memory-${String(logs)}.jsonl`)),
      },
      identity: { anonymous: true },
      store: 'memory',
    });
    // Not fatal: the gateway serves what it has.
    const served = await serveGateway(config);
    const watch = watchToolList();
    const sdk = new Client(
      { name: 'watcher', version: '0.0.0' },
      { ...eraOptions(era), listChanged: watch.listChanged },
    );
    await sdk.connect(new StreamableHTTPClientTransport(served.url));
    closeAfter(() => sdk.close());
    const names = (await sdk.listTools()).tools.map((tool) => tool.name);
    expect(names).toContain('memory__read_graph');
    expect(names.filter((name) => name.startsWith('api__'))).toEqual([]);
    await (era === 'legacy' ? served.streamOpen : served.listenOpen);

    await startUpstream(program.path, { log, port });
    expect(await watch.changed).toEqual(expect.arrayContaining(['api__lookup', 'api__append', 'memory__read_graph']));
    const answer = await sdk.callTool({ name: 'api__lookup', arguments: { key: 'late' } });
    expect(textOf(answer)).toBe('found late');
    expect(await receivedCalls(log)).toEqual(['lookup late']);
  });
});

describe('calls in flight when their upstream dies and comes back on the same port', () => {
  it('are sent again when read-only or keyed, never when a plain write or the policy says retry: false', async () => {
    const log = newLog();
    const held = await startUpstream(program.path, { log, hold: true });
    // Retries that outlast the restart: a call wrongly sent again reaches the new process and shows in its log.
    const upstream = {
      url: held.url,
      protocol: '2026-07-28',
      timeoutMs: 30_000,
      retry: { attempts: 10, maxDelayMs: 1000 },
      breaker: { failures: 50 },
    };
    const config = gatewayConfig({
      // The same process twice: `strict` says its read-only lookup must not be repeated.
      upstreams: { api: upstream, strict: upstream },
      policy: { strict__lookup: { retry: false } },
      identity: { anonymous: true },
      store: 'memory',
    });
    const served = await serveGateway(config);
    // Our idempotency client half sends a key with every write; a plain client sends none.
    const { client } = await connectClient(served.url, {
      era: 'modern',
      extensions: [errorsClient(), idempotencyClient()],
    });
    const plainSdk = await plainClient(served.url, 'modern');

    const calls = Promise.all([
      plainSdk.callTool({ name: 'api__append', arguments: { text: 'plain' } }),
      client.callTool('api__append', { text: 'keyed' }, { meta: idempotencyMeta('order-0001') }),
      plainSdk.callTool({ name: 'api__lookup', arguments: { key: 'read' } }),
      plainSdk.callTool({ name: 'strict__lookup', arguments: { key: 'strict' } }),
    ]);
    await expect.poll(async () => (await receivedCalls(log)).length, { timeout: 30_000 }).toBe(4);
    await held.kill();
    await startUpstream(program.path, { log, port: held.port });
    const [plain, keyed, read, strict] = await calls;

    // A transient error, which a plain client reads as text.
    expect(plain.isError).toBe(true);
    expect(textOf(plain)).toMatch(/^Upstream "api" is unavailable: .*\nRetry after \d+ seconds\.$/);
    expect(strict.isError).toBe(true);
    expect(textOf(strict)).toMatch(/^Upstream "strict" is unavailable: .*\nRetry after \d+ seconds\.$/);
    expect(textOf(keyed)).toBe('appended keyed');
    expect(textOf(read)).toBe('found read');
    const received = await receivedCalls(log);
    const count = (line: string) => received.filter((entry) => entry === line).length;
    expect({
      plain: count('append plain'),
      keyed: count('append keyed'),
      read: count('lookup read'),
      strict: count('lookup strict'),
    }).toEqual({ plain: 1, keyed: 2, read: 2, strict: 1 });
  });
});

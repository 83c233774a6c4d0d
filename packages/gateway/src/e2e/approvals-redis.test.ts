/**
 * Calls held for an operator on two gateway instances sharing one real Redis
 * (GW-31): instance A is the CLI in a child process, so it can be killed
 * with SIGKILL; instance B runs in the test. A call held on A completes when
 * the request is approved on B; a call held on A when A is killed runs once
 * after A restarts and B approves; a task whose instance was killed is taken
 * up by the other and completes once approved. The upstream counts what it
 * executes.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { silentLogger } from '@ext/core/kit';
import { listen } from '@ext/core/sdk-v2/server';
import { rawClient, redisServerUnavailable, startRedisServer } from '@ext/core/testing';
import { errorsClient } from '@ext/errors/client';
import { pollTask, TASKS_ID } from '@ext/tasks/client';
import { McpServer, createMcpHandler } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import {
  closeAfter,
  closeAfterEach,
  compiledCli,
  connectClient,
  gatewayConfig,
  serveGateway,
  tempDir,
} from './support.js';

closeAfterEach();
const cli = compiledCli();

const AGENT_KEY = 'agent-key-0123456789abcdef';
const OPS_KEY = 'ops-key-0123456789abcdef';

async function countingUpstream(): Promise<{ readonly url: string; executions(): string[] }> {
  const executed: string[] = [];
  const build = () => {
    const server = new McpServer({ name: 'counter', version: '1.0.0' });
    server.registerTool(
      'write',
      { description: 'Writes a record.', inputSchema: z.object({ record: z.string() }) },
      ({ record }) => {
        executed.push(record);
        return { content: [{ type: 'text', text: `wrote ${record}` }] };
      },
    );
    return server;
  };
  const listening = await listen(createMcpHandler(build, { legacy: 'reject' }), { port: 0, logger: silentLogger });
  closeAfter(() => listening.close());
  return { url: String(listening.url), executions: () => [...executed] };
}

function document(upstreamUrl: string, redisUrl: string): Record<string, unknown> {
  return {
    upstreams: { counter: { url: upstreamUrl, protocol: '2026-07-28' } },
    policy: { write: { confirm: { approver: 'operator' } } },
    approvals: { holdSeconds: 30 },
    store: { redis: redisUrl, commandTimeoutMs: 10_000 },
    identity: {
      apiKeys: { [AGENT_KEY]: 'agent', [OPS_KEY]: { principal: 'ops', scopes: ['approvals:decide'] } },
    },
    listen: { port: 0 },
  };
}

interface Instance {
  readonly url: URL;
  readonly child: ChildProcess;
}

/** Starts the CLI on `configFile`; resolves once it says where it serves. */
async function startCli(configFile: string): Promise<Instance> {
  const child = spawn(process.execPath, [cli.path, '--config', configFile], { stdio: ['ignore', 'ignore', 'pipe'] });
  closeAfter(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await new Promise((resolve) => child.once('exit', resolve));
    }
  });
  const url = await new Promise<URL>((resolve, reject) => {
    let said = '';
    child.stderr.on('data', (chunk: Buffer) => {
      said += chunk.toString('utf8');
      const found = /serving (http:\/\/\S+)/.exec(said);
      if (found?.[1] !== undefined) resolve(new URL(found[1]));
    });
    child.once('exit', () => {
      reject(new Error(`the gateway exited before serving: ${said}`));
    });
  });
  return { url, child };
}

async function kill(instance: Instance): Promise<void> {
  const exited = new Promise((resolve) => instance.child.once('exit', resolve));
  instance.child.kill('SIGKILL');
  await exited;
}

/** The id of the one pending request, once there is one (read on instance `url`'s API). */
async function pendingOn(url: URL): Promise<string> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const response = await fetch(new URL('/approvals/api/requests?state=pending', url), {
      headers: { authorization: `Bearer ${OPS_KEY}` },
    });
    const { requests } = (await response.json()) as { requests: { id: string }[] };
    if (requests[0] !== undefined) return requests[0].id;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('no pending request');
}

async function approveOn(url: URL, id: string): Promise<void> {
  const response = await fetch(new URL(`/approvals/api/requests/${id}/decision`, url), {
    method: 'POST',
    headers: { authorization: `Bearer ${OPS_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ approve: true, reason: 'from the other instance' }),
  });
  expect(response.status).toBe(200);
}

const AGENT = { authorization: `Bearer ${AGENT_KEY}` };

function agentOf(url: URL) {
  return connectClient(url, { era: 'legacy', extensions: [errorsClient()], headers: AGENT });
}

const missing = redisServerUnavailable();

describe.skipIf(missing !== undefined)(
  `approvals on two gateway instances sharing one Redis${missing === undefined ? '' : ` (skipped: ${missing})`}`,
  () => {
    it('a held call completes when approved on the other instance; one held when its instance is killed runs once after the restart', async () => {
      const redis = await startRedisServer();
      closeAfter(() => redis.close());
      const upstream = await countingUpstream();
      const configFile = join(await tempDir('approvals-redis'), 'gateway.json');
      await writeFile(configFile, JSON.stringify(document(upstream.url, redis.url)));
      const b = await serveGateway(gatewayConfig(document(upstream.url, redis.url)), { store: 'config' });
      let a = await startCli(configFile);

      const held = (await agentOf(a.url)).sdk.callTool({ name: 'write', arguments: { record: 'one' } });
      await approveOn(b.url, await pendingOn(b.url));
      expect((await held).isError).toBeFalsy();
      expect(upstream.executions()).toEqual(['one']);

      // Its connection dies with the instance; whatever the SDK client makes of that, the call is retried below.
      void (await agentOf(a.url)).sdk.callTool({ name: 'write', arguments: { record: 'two' } }).catch(() => undefined);
      const id = await pendingOn(b.url);
      await kill(a);
      a = await startCli(configFile);
      await approveOn(b.url, id);
      const retry = await (await agentOf(a.url)).sdk.callTool({ name: 'write', arguments: { record: 'two' } });
      expect(retry.isError).toBeFalsy();
      expect(upstream.executions()).toEqual(['one', 'two']);
    });

    it('a task whose instance was killed while it waited is taken up by the other and completes once', async () => {
      const redis = await startRedisServer();
      closeAfter(() => redis.close());
      const upstream = await countingUpstream();
      const configFile = join(await tempDir('approvals-redis'), 'gateway.json');
      await writeFile(configFile, JSON.stringify(document(upstream.url, redis.url)));
      const b = await serveGateway(gatewayConfig(document(upstream.url, redis.url)), { store: 'config' });
      const a = await startCli(configFile);

      const client = rawClient(a.url.href, { headers: AGENT, capabilities: { extensions: { [TASKS_ID]: {} } } });
      const created = await client.request('tools/call', { name: 'write', arguments: { record: 'task' } });
      expect(created).toMatchObject({ resultType: 'task', status: 'working' });
      const id = await pendingOn(b.url);
      await kill(a);
      await approveOn(b.url, id);
      const onB = rawClient(b.url.href, { headers: AGENT, capabilities: { extensions: { [TASKS_ID]: {} } } });
      const done = await pollTask(onB, String(created.taskId));
      expect(done.status).toBe('completed');
      expect(upstream.executions()).toEqual(['task']);
    }, 40_000);
  },
);

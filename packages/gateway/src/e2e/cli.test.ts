/**
 * The `mcp-ext-gateway` command as a user runs it: compiled from
 * `src/cli.ts` with tsup (into a folder of this test's own, so the
 * package's `dist/`, which other packages import, is left alone), started
 * with `node` and a YAML config. It serves HTTP and stdio, names the field
 * of a bad config and exits 1, and prints its usage and exits 2 without
 * `--config`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { serveV2 } from '../upstream/testing/servers.js';
import { closeAfter, closeAfterEach, compiledCli, memoryUpstream, tempDir, textOf, watchToolList } from './support.js';

closeAfterEach();

const cli = compiledCli();

interface Exited {
  readonly code: number | null;
  readonly stderr: string;
}

/** Runs the CLI with `args` to its end. */
async function runToEnd(args: readonly string[]): Promise<Exited> {
  const child = spawn(process.execPath, [cli.path, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, stderr };
}

/** A YAML config file in a folder of its own; returns its path. */
async function yamlConfig(document: Record<string, unknown>): Promise<string> {
  const file = join(await tempDir('cli'), 'gateway.yaml');
  await writeFile(file, stringify(document));
  return file;
}

/** Starts the CLI serving HTTP; resolves with the URL it prints once it serves. */
async function serveHttp(config: string): Promise<{ child: ChildProcess; url: URL }> {
  const child = spawn(process.execPath, [cli.path, '--config', config], { stdio: ['ignore', 'ignore', 'pipe'] });
  closeAfter(async () => {
    if (child.exitCode === null) {
      child.kill('SIGKILL');
      await once(child, 'exit');
    }
  });
  let stderr = '';
  const url = await new Promise<URL>((resolve, reject) => {
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
      const served = /serving (http:\/\/\S+)/.exec(stderr);
      if (served?.[1] !== undefined) resolve(new URL(served[1]));
    });
    child.once('exit', (code) => {
      reject(new Error(`the CLI exited with ${String(code)} before serving:\n${stderr}`));
    });
  });
  return { child, url };
}

describe('mcp-ext-gateway', () => {
  it('serves HTTP from a YAML config: a client lists and calls the tools; SIGTERM ends it with 0', async () => {
    const dir = await tempDir('memory');
    const config = await yamlConfig({
      name: 'cli-gateway',
      upstreams: { memory: memoryUpstream(join(dir, 'memory.jsonl')) },
      store: { sqlite: 'gateway.db' },
      listen: { port: 0 },
      identity: { anonymous: true },
    });
    const { child, url } = await serveHttp(config);
    expect(url.pathname).toBe('/mcp');

    const sdk = new Client({ name: 'cli-test', version: '0.0.0' });
    await sdk.connect(new StreamableHTTPClientTransport(url));
    closeAfter(() => sdk.close());
    expect(sdk.getServerVersion()?.name).toBe('cli-gateway');
    const { tools } = await sdk.listTools();
    expect(tools.map((tool) => tool.name)).toContain('read_graph');
    const graph = await sdk.callTool({ name: 'read_graph', arguments: {} });
    expect(graph.structuredContent).toEqual({ entities: [], relations: [] });

    child.kill('SIGTERM');
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(code).toBe(0);
  });

  it('--stdio serves an SDK stdio client, and tells it when an upstream’s tools change', async () => {
    const upstream = await serveV2();
    closeAfter(() => upstream.close());
    const config = await yamlConfig({
      upstreams: { api: { url: upstream.url, protocol: '2026-07-28' } },
      store: 'memory',
    });
    const watch = watchToolList();
    const sdk = new Client({ name: 'cli-stdio-test', version: '0.0.0' }, { listChanged: watch.listChanged });
    await sdk.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [cli.path, '--config', config, '--stdio'],
        stderr: 'pipe',
      }),
    );
    closeAfter(() => sdk.close());

    expect((await sdk.listTools()).tools.map((tool) => tool.name)).toEqual(['echo', 'fail', 'slow']);
    const echoed = await sdk.callTool({ name: 'echo', arguments: { text: 'over stdio' } });
    expect(textOf(echoed)).toBe('over stdio');

    await upstream.whenListens(1);
    upstream.addTool('later');
    expect(await watch.changed).toContain('later');
    expect(textOf(await sdk.callTool({ name: 'later', arguments: {} }))).toBe('added later');
  });

  it('a bad config exits 1 naming the field', async () => {
    const config = await yamlConfig({
      upstreams: { memory: memoryUpstream('memory.jsonl') },
      listen: { port: 70_000 },
    });
    const { code, stderr } = await runToEnd(['--config', config]);
    expect(code).toBe(1);
    expect(stderr).toContain('listen.port');
    expect(stderr).toContain('70000');
  });

  it('without --config it exits 2 with its usage', async () => {
    const { code, stderr } = await runToEnd([]);
    expect(code).toBe(2);
    expect(stderr).toContain('--config is required');
    expect(stderr).toContain('usage: mcp-ext-gateway --config');
  });
});

/**
 * `mcp-ext-gateway` at start, as an operator runs it (compiled from
 * `src/cli.ts`, started with `node`): `--help` prints every command and
 * flag; a config it cannot serve exits 1 naming the file and the field, with
 * no upstream process left behind; with no `store`, each config keeps its
 * state in a file of its own beside it, whatever the working directory; over
 * `--stdio` the local caller holds the scopes `identity.stdio` grants, and the
 * tools needing scopes it lacks are named at start.
 */
import { execFileSync, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { readdir, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { serveV2 } from '../upstream/testing/servers.js';
import { closeAfter, closeAfterEach, compiledCli, entitiesOnDisk, memoryUpstream, tempDir, textOf } from './support.js';

closeAfterEach();

const cli = compiledCli();

/** Long enough for a loaded machine to start and stop the CLI; a CLI still running then has hung. */
const EXIT_DEADLINE_MS = 45_000;

interface Ended {
  /** The exit code, or `hung` when it was still running at the deadline (then it was killed). */
  readonly code: number | null | 'hung';
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the CLI with `args` until it exits, or kills it at the deadline. */
async function runToEnd(args: readonly string[]): Promise<Ended> {
  const child = spawn(process.execPath, [cli.path, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const timer = setTimeout(() => child.kill('SIGKILL'), EXIT_DEADLINE_MS);
  const [code, signal] = (await once(child, 'exit')) as [number | null, NodeJS.Signals | null];
  clearTimeout(timer);
  return { code: signal === 'SIGKILL' ? 'hung' : code, stdout, stderr };
}

/** The pids of every process on the machine whose command line mentions `marker`. */
function processesMentioning(marker: string): number[] {
  const table = execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' });
  return table
    .split('\n')
    .filter((line) => line.includes(marker))
    .map((line) => Number.parseInt(line.trim(), 10));
}

/** server-memory as a stdio upstream whose command line carries a marker of its own, to find its process. */
async function markedMemoryUpstream(): Promise<{
  readonly upstream: Record<string, unknown>;
  readonly marker: string;
}> {
  const marker = `gateway-upstream-${randomUUID()}`;
  const base = memoryUpstream(join(await tempDir('memory'), 'memory.jsonl'));
  // A CLI killed at the deadline leaves its upstream behind: end it too.
  closeAfter(() => {
    for (const pid of processesMentioning(marker)) process.kill(pid, 'SIGKILL');
    return Promise.resolve();
  });
  return { upstream: { ...base, args: [...(base.args ?? []), marker] }, marker };
}

/** A YAML config file named `name` in `dir`; returns its path. */
async function yamlConfig(dir: string, name: string, document: Record<string, unknown>): Promise<string> {
  const file = join(dir, name);
  await writeFile(file, stringify(document));
  return file;
}

/** An SDK client of the CLI serving `config` over stdio, started in `cwd`; `stderr()` is what the CLI logged so far. */
async function stdioClient(config: string, cwd: string): Promise<{ sdk: Client; stderr: () => string }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [cli.path, '--config', config, '--stdio'],
    cwd,
    stderr: 'pipe',
  });
  let logged = '';
  transport.stderr?.on('data', (chunk: Buffer) => (logged += chunk.toString('utf8')));
  const sdk = new Client({ name: 'cli-start-test', version: '0.0.0' });
  await sdk.connect(transport);
  closeAfter(() => sdk.close());
  return { sdk, stderr: () => logged };
}

/** Everything the CLI behind `sdk` logged, once it has exited. */
async function stderrAtExit(sdk: Client, stderr: () => string): Promise<string> {
  const transport = sdk.transport as StdioClientTransport | undefined;
  const ended =
    transport?.stderr === null || transport?.stderr === undefined ? undefined : once(transport.stderr, 'end');
  await sdk.close();
  await ended;
  return stderr();
}

describe('mcp-ext-gateway --help', () => {
  it('prints every command and flag on stdout and exits 0; an unknown flag exits 2 pointing to --help', async () => {
    const help = await runToEnd(['--help']);
    expect(help.code).toBe(0);
    for (const word of ['lock', 'tools accept', 'approvals list', 'approvals approve', '--config', '--stdio'])
      expect(help.stdout).toContain(word);
    for (const flag of ['--out', '--url', '--reason', '--state', '--help']) expect(help.stdout).toContain(flag);
    expect(help.stderr).toBe('');

    const unknown = await runToEnd(['--config', 'gateway.yaml', '--verbose']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown argument: --verbose');
    expect(unknown.stderr).toContain('mcp-ext-gateway --help');
    expect(unknown.stdout).toBe('');
  });
});

describe('a config the CLI cannot serve', () => {
  it('listen without identity: exits 1 naming the file and identity, and no upstream process is left', async () => {
    const { upstream, marker } = await markedMemoryUpstream();
    const config = await yamlConfig(await tempDir('cli-start'), 'gateway.yaml', {
      upstreams: { memory: upstream },
      store: 'memory',
      listen: { port: 0 },
    });
    const { code, stderr } = await runToEnd(['--config', config]);
    expect(code).toBe(1);
    expect(stderr).toContain(`${config}: identity`);
    expect(stderr).toContain('identity.apiKeys');
    expect(processesMentioning(marker)).toEqual([]);
  });

  it('a port already taken: exits 1 naming the file and listen, once its upstream process is stopped', async () => {
    const taken = createServer();
    taken.listen(0, '127.0.0.1');
    await once(taken, 'listening');
    closeAfter(() => new Promise((resolve) => taken.close(resolve)));
    const port = (taken.address() as { port: number }).port;
    const { upstream, marker } = await markedMemoryUpstream();
    const config = await yamlConfig(await tempDir('cli-start'), 'gateway.yaml', {
      upstreams: { memory: upstream },
      store: 'memory',
      listen: { port },
      identity: { anonymous: true },
    });
    const { code, stderr } = await runToEnd(['--config', config]);
    expect(code).toBe(1);
    expect(stderr).toContain(`${config}: listen`);
    expect(stderr).toContain('EADDRINUSE');
    expect(processesMentioning(marker)).toEqual([]);
  });
});

describe('the default store', () => {
  it('two configs in one folder, started from another, each keep a store of their own beside them', async () => {
    const upstream = await serveV2();
    closeAfter(() => upstream.close());
    const folder = await tempDir('configs');
    const elsewhere = await tempDir('cwd');
    const document = { upstreams: { api: { url: upstream.url, protocol: '2026-07-28' } } };
    const beta = join(folder, 'beta.json');
    await writeFile(beta, JSON.stringify(document));
    for (const config of [await yamlConfig(folder, 'alpha.yaml', document), beta]) {
      const { sdk } = await stdioClient(config, elsewhere);
      // Listing the tools pins each definition (GW-28): a write to the gateway's store.
      expect((await sdk.listTools()).tools.map((tool) => tool.name)).toContain('echo');
      await sdk.close();
    }
    expect((await readdir(folder)).filter((file) => file.endsWith('.db')).sort()).toEqual(['alpha.db', 'beta.db']);
    expect(await readdir(elsewhere)).toEqual([]);
  });
});

describe('scopes over --stdio', () => {
  const policy = {
    create_entities: { scopes: ['memory:write'] },
    // Listed only to a caller holding the scope: the local client's scopes reach `tools/list` too.
    read_graph: { allow: "'memory:write' in scopes" },
  };
  const entity = { name: 'ada', entityType: 'person', observations: [] };

  it('names at start the tools that need scopes the local caller lacks, and refuses them', async () => {
    const dir = await tempDir('stdio-scopes');
    const config = await yamlConfig(dir, 'gateway.yaml', {
      upstreams: { memory: memoryUpstream(join(dir, 'memory.jsonl')) },
      store: 'memory',
      policy,
    });
    const { sdk, stderr } = await stdioClient(config, dir);
    expect((await sdk.listTools()).tools.map((tool) => tool.name)).not.toContain('read_graph');
    const refused = await sdk.callTool({ name: 'create_entities', arguments: { entities: [entity] } });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toContain('needs the scope memory:write');
    const logged = await stderrAtExit(sdk, stderr);
    expect(logged).toContain('create_entities (memory:write)');
    expect(logged).toContain('identity.stdio.scopes');
    expect(await entitiesOnDisk(join(dir, 'memory.jsonl'))).toEqual([]);
  });

  it('identity.stdio.scopes grants them: the tool is listed, the call runs upstream, nothing is named at start', async () => {
    const dir = await tempDir('stdio-scopes');
    const config = await yamlConfig(dir, 'gateway.yaml', {
      upstreams: { memory: memoryUpstream(join(dir, 'memory.jsonl')) },
      store: 'memory',
      policy,
      identity: { stdio: { scopes: ['memory:write'] } },
    });
    const { sdk, stderr } = await stdioClient(config, dir);
    expect((await sdk.listTools()).tools.map((tool) => tool.name)).toContain('read_graph');
    const created = await sdk.callTool({ name: 'create_entities', arguments: { entities: [entity] } });
    expect(created.isError).not.toBe(true);
    expect(await entitiesOnDisk(join(dir, 'memory.jsonl'))).toEqual(['ada']);
    expect(await stderrAtExit(sdk, stderr)).not.toContain('create_entities');
  });
});

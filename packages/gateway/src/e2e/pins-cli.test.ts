/**
 * `mcp-ext-gateway lock` and `mcp-ext-gateway tools accept` as an operator
 * runs them: the CLI compiled from `src/cli.ts` with tsup (into a folder of
 * this test's own), run with `node` and a YAML config against real
 * upstreams (the v2 test server over HTTP, server-memory over stdio). And
 * the arguments they take, read by `parseCliArgs`.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createSqliteStore } from '@ext/store-sqlite';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { parseCliArgs } from '../cli-args.js';
import { definitionDigest, type ToolDefinition } from '../pins/definition.js';
import { readLockFile, writeLockFile } from '../pins/lock-file.js';
import { PinStore } from '../pins/pin-store.js';
import { serveV2, type V2Upstream } from '../upstream/testing/servers.js';
import { closeAfter, closeAfterEach, compiledCli, memoryUpstream, tempDir } from './support.js';

closeAfterEach();

const cli = compiledCli();

interface Exited {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the CLI with `args` (in `cwd`) to its end. */
async function run(args: readonly string[], cwd?: string): Promise<Exited> {
  const child = spawn(process.execPath, [cli.path, ...args], { stdio: ['ignore', 'pipe', 'pipe'], cwd });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, stdout, stderr };
}

/** A YAML config file in a folder of its own; returns its path. */
async function yamlConfig(document: Record<string, unknown>): Promise<string> {
  const file = join(await tempDir('pins-cli'), 'gateway.yaml');
  await writeFile(file, stringify(document));
  return file;
}

async function v2Upstream(): Promise<V2Upstream> {
  const upstream = await serveV2();
  closeAfter(async () => {
    upstream.releaseAll();
    await upstream.close();
  });
  return upstream;
}

/** The v2 test server's `echo` as it lists it (the test pins an older one). */
const ECHO_NOW: ToolDefinition = {
  name: 'echo',
  title: 'Echo',
  description: 'Says the text back.',
  inputSchema: {
    $schema: 'http://json-schema.org/draft-07/schema#',
    type: 'object',
    properties: { text: { type: 'string' } },
    required: ['text'],
  },
};

describe('mcp-ext-gateway lock', () => {
  it('writes every upstream tool beside the config, deterministically, and says what a new lock changes', async () => {
    const upstream = await v2Upstream();
    const dir = await tempDir('memory');
    const config = await yamlConfig({
      upstreams: {
        api: { url: upstream.url, protocol: '2026-07-28' },
        memory: memoryUpstream(join(dir, 'memory.jsonl')),
      },
      store: 'memory',
    });
    const locked = await run(['lock', '--config', config]);
    expect(locked.stderr).toBe('');
    expect(locked.code).toBe(0);
    const path = join(config, '..', 'gateway.lock.json');
    expect(locked.stdout).toContain(`in ${path}`);
    expect(locked.stdout).toContain('  + api/echo (new)');

    const lock = await readLockFile(path);
    const keys = Object.keys(lock.tools);
    expect(keys).toEqual(expect.arrayContaining(['api/echo', 'api/fail', 'api/slow', 'memory/read_graph']));
    expect(keys).toEqual([...keys].sort());
    const echo = lock.tools['api/echo'];
    // Pinned under its name at the upstream, without the upstream's `_meta`.
    expect(echo?.definition).toMatchObject({ name: 'echo', title: 'Echo', annotations: { readOnlyHint: true } });
    expect(echo?.definition).not.toHaveProperty('_meta');
    expect(echo?.digest).toBe(definitionDigest(echo!.definition));

    const text = await readFile(path, 'utf8');
    const again = await run(['lock', '--config', config]);
    expect(again.code).toBe(0);
    expect(again.stdout.trim().split('\n')).toHaveLength(1);
    expect(await readFile(path, 'utf8')).toBe(text);

    upstream.addTool('later');
    const grown = await run(['lock', '--config', config]);
    expect(grown.stdout).toContain('  + api/later (new)');
  });

  it('--out writes where it says, from the working folder', async () => {
    const upstream = await v2Upstream();
    const config = await yamlConfig({ upstreams: { api: { url: upstream.url } }, store: 'memory' });
    const cwd = await tempDir('cwd');
    const locked = await run(['lock', '-c', config, '--out', 'locks/api.lock.json'], cwd);
    expect(locked.stdout).toBe('');
    expect(locked.stderr).toContain('ENOENT');
    expect(locked.code).toBe(1);
    await mkdir(join(cwd, 'locks'));
    expect((await run(['lock', '-c', config, '--out=locks/api.lock.json'], cwd)).code).toBe(0);
    expect(Object.keys((await readLockFile(join(cwd, 'locks', 'api.lock.json'))).tools)).toEqual([
      'api/echo',
      'api/fail',
      'api/slow',
    ]);
  });

  it('an unreachable upstream exits 1 and writes nothing', async () => {
    const config = await yamlConfig({
      upstreams: { gone: { url: 'http://127.0.0.1:9/mcp', timeoutMs: 2_000 } },
      store: 'memory',
    });
    const locked = await run(['lock', '--config', config]);
    expect(locked.code).toBe(1);
    expect(locked.stderr).toContain('mcp-ext-gateway:');
    await expect(readFile(join(config, '..', 'gateway.lock.json'))).rejects.toThrow('ENOENT');
  });
});

describe('mcp-ext-gateway tools accept', () => {
  it('accepts the current definition into the store the config names, printing what changed', async () => {
    const upstream = await v2Upstream();
    const config = await yamlConfig({
      upstreams: { api: { url: upstream.url, protocol: '2026-07-28' } },
      store: { sqlite: 'gateway.db' },
    });
    const database = join(config, '..', 'gateway.db');
    const seed = createSqliteStore({ path: database });
    const approved: ToolDefinition = { ...ECHO_NOW, description: 'Echoes.', annotations: { readOnlyHint: false } };
    await new PinStore(seed).pinIfAbsent('api', 'echo', approved);
    await seed.close();

    const accepted = await run(['tools', 'accept', 'echo', '--config', config]);
    expect(accepted.stderr).toBe('');
    expect(accepted.code).toBe(0);
    expect(accepted.stdout).toContain('accepted echo (api/echo) in the store: sha256:');
    expect(accepted.stdout).toContain('  changed: description\n');
    expect(accepted.stdout).toContain('  changed: annotations.readOnlyHint\n');

    const store = createSqliteStore({ path: database });
    closeAfter(() => store.close());
    const pin = await new PinStore(store).pinned('api', 'echo');
    expect(pin?.definition.description).toBe('Says the text back.');
    expect(pin?.acceptedBy).toEqual(expect.any(String));
    expect(pin?.acceptedAt).toEqual(expect.any(String));

    const again = await run(['tools', 'accept', 'echo', '--config', config]);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('is pinned as it is now');
    expect(again.stdout).toContain('nothing to accept');
  });

  it('a tool that has no pin yet is pinned, and said to have had none', async () => {
    const upstream = await v2Upstream();
    const config = await yamlConfig({ upstreams: { api: { url: upstream.url } }, store: { sqlite: 'gateway.db' } });
    const accepted = await run(['tools', 'accept', 'fail', '--config', config]);
    expect(accepted.code).toBe(0);
    expect(accepted.stdout).toContain('accepted fail (api/fail)');
    expect(accepted.stdout).toContain('  changed: (it had no pin)');
  });

  it('a name the gateway does not offer exits 1, listing the names it does', async () => {
    const upstream = await v2Upstream();
    const config = await yamlConfig({ upstreams: { api: { url: upstream.url } }, store: 'memory' });
    const refused = await run(['tools', 'accept', 'nope', '--config', config]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('No tool named "nope" behind the gateway (its tools: echo, fail, slow)');
  });

  it('with pins.lockFile, lock writes it and accept rewrites it', async () => {
    const upstream = await v2Upstream();
    const config = await yamlConfig({
      upstreams: { api: { url: upstream.url, protocol: '2026-07-28' } },
      store: 'memory',
      pins: { lockFile: 'pins/gateway.lock.json', onToolChange: 'block' },
    });
    const path = join(config, '..', 'pins', 'gateway.lock.json');
    await mkdir(join(path, '..'));
    expect((await run(['lock', '--config', config])).code).toBe(0);
    const locked = await readLockFile(path);
    const definitions = Object.fromEntries(Object.entries(locked.tools).map(([key, entry]) => [key, entry.definition]));
    const echo = definitions['api/echo']!;
    await writeLockFile(path, { ...definitions, 'api/echo': { ...echo, description: 'Echoes.' } });

    const accepted = await run(['tools', 'accept', 'echo', '--config', config]);
    expect(accepted.code).toBe(0);
    expect(accepted.stdout).toContain(`accepted echo (api/echo) in ${path}`);
    expect(accepted.stdout).toContain('  changed: description');
    expect((await readLockFile(path)).tools).toEqual(locked.tools);
  });
});

describe('mcp-ext-gateway usage errors exit 2 with the usage', () => {
  it.each([
    [['tools'], 'unknown tools command: (none)'],
    [['tools', 'accept', '--config', 'g.yaml'], 'tools accept needs the name of a tool'],
  ])('%j', async (args, problem) => {
    const { code, stderr } = await run(args);
    expect(code).toBe(2);
    expect(stderr).toContain(problem);
    expect(stderr).toContain('mcp-ext-gateway tools accept <tool> --config <gateway.yaml>');
  });
});

describe('parseCliArgs', () => {
  it('serves by default, as before', () => {
    expect(parseCliArgs(['--config', 'g.yaml', '--stdio'])).toEqual({
      command: 'serve',
      config: 'g.yaml',
      stdio: true,
    });
    expect(parseCliArgs(['--config=g.yaml'])).toEqual({ command: 'serve', config: 'g.yaml', stdio: false });
    expect(parseCliArgs(['-c', 'g.yaml', 'extra'])).toContain('unknown argument: extra');
    expect(parseCliArgs(['--stdio'])).toContain('--config is required');
  });

  it('reads lock with or without --out', () => {
    expect(parseCliArgs(['lock', '--config', 'g.yaml'])).toEqual({ command: 'lock', config: 'g.yaml', out: undefined });
    expect(parseCliArgs(['lock', '-o', 'x.json', '-c', 'g.yaml'])).toEqual({
      command: 'lock',
      config: 'g.yaml',
      out: 'x.json',
    });
    expect(parseCliArgs(['lock', '--config', 'g.yaml', '--out='])).toContain('--out needs a file');
    expect(parseCliArgs(['lock', 'now', '--config', 'g.yaml'])).toContain('unknown argument: now');
    expect(parseCliArgs(['lock', '--config', 'g.yaml', '--stdio'])).toContain('unknown argument: --stdio');
    expect(parseCliArgs(['lock'])).toContain('--config is required');
  });

  it('reads tools accept with the tool before or after the options', () => {
    const expected = { command: 'tools accept', config: 'g.yaml', tool: 'fs__read_file' };
    expect(parseCliArgs(['tools', 'accept', 'fs__read_file', '--config', 'g.yaml'])).toEqual(expected);
    expect(parseCliArgs(['tools', 'accept', '-c', 'g.yaml', 'fs__read_file'])).toEqual(expected);
    expect(parseCliArgs(['tools', 'accept', 'a', 'b', '-c', 'g.yaml'])).toContain('unknown argument: b');
    expect(parseCliArgs(['tools', 'accept', 'a', '--out', 'x', '-c', 'g.yaml'])).toContain('unknown argument: --out');
    expect(parseCliArgs(['tools', 'list', '-c', 'g.yaml'])).toContain('unknown tools command: list (known: accept)');
  });
});

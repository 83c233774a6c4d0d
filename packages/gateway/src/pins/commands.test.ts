/**
 * The pin commands in process, against the v2 test server: where `lock`
 * writes, and `tools accept` into a lock file the config names (the CLI
 * end to end is in `e2e/pins-cli.test.ts`).
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { silentLogger } from '@ext/core/kit';
import { describe, expect, it } from 'vitest';
import type { LoadedConfig } from '../config/load.js';
import type { GatewayConfig } from '../config/schema.js';
import { closeAfter, closeAfterEach, tempDir } from '../e2e/support.js';
import { serveV2 } from '../upstream/testing/servers.js';
import { acceptTool, lockOutput, lockTools, operatorName, type CommandIo } from './commands.js';
import { readLockFile, writeLockFile } from './lock-file.js';
import type { PinsConfig } from './pins-config.js';

closeAfterEach();

/** A loaded config at `<dir>/gateway.yaml` for a fresh v2 test server, with `pins` as given. */
async function loaded(pins?: PinsConfig): Promise<LoadedConfig> {
  const upstream = await serveV2();
  closeAfter(() => upstream.close());
  const dir = await tempDir('pin-commands');
  const config = { upstreams: { api: { url: upstream.url } }, store: 'memory', pins } as GatewayConfig;
  return { path: join(dir, 'gateway.yaml'), config, manifests: [] };
}

function recording(): CommandIo & { readonly lines: string[] } {
  const lines: string[] = [];
  return { lines, print: (line) => lines.push(line), logger: silentLogger };
}

describe('lockTools', () => {
  it('writes to --out, else the config’s pins.lockFile (from the config’s folder), else beside the config', async () => {
    const config = await loaded({ lockFile: 'pins/api.lock.json' });
    const dir = join(config.path, '..');
    expect(lockOutput(config, undefined)).toBe(join(dir, 'pins', 'api.lock.json'));
    expect(lockOutput(config, '/elsewhere/x.json')).toBe('/elsewhere/x.json');
    expect(lockOutput({ ...config, config: { ...config.config, pins: undefined } }, undefined)).toBe(
      join(dir, 'gateway.lock.json'),
    );
  });

  it('replaces a lock file that cannot be used, saying so', async () => {
    const config = await loaded();
    const path = join(config.path, '..', 'gateway.lock.json');
    await writeFile(path, '{"version": 2, "tools": {}}');
    const io = recording();
    expect(await lockTools(config, undefined, io)).toBe(path);
    expect(io.lines[0]).toContain('replacing a lock file that cannot be used:');
    expect(io.lines[0]).toContain('version must be 1, got 2');
    expect(io.lines[1]).toBe(`locked 3 tool(s) of 1 upstream(s) in ${path}`);
    expect(Object.keys((await readLockFile(path)).tools)).toEqual(['api/echo', 'api/fail', 'api/slow']);
  });
});

describe('acceptTool with a lock file', () => {
  it('accepts the current definition into the lock file, printing what changed, keeping the other entries', async () => {
    const config = await loaded({ lockFile: 'pins/gateway.lock.json' });
    const path = join(config.path, '..', 'pins', 'gateway.lock.json');
    await mkdir(join(path, '..'));
    await lockTools(config, undefined, recording());
    const locked = await readLockFile(path);
    const definitions = Object.fromEntries(Object.entries(locked.tools).map(([key, entry]) => [key, entry.definition]));
    const { 'api/fail': _fail, ...withoutFail } = definitions;
    const echo = definitions['api/echo']!;
    await writeLockFile(path, { ...withoutFail, 'api/echo': { ...echo, description: 'Echoes.', title: undefined } });

    const io = recording();
    await acceptTool(config, 'echo', io);
    expect(io.lines).toEqual([
      `accepted echo (api/echo) in ${path}: ${locked.tools['api/echo']?.digest ?? ''}`,
      '  changed: title (added)',
      '  changed: description',
    ]);
    const after = await readLockFile(path);
    expect(after.tools['api/echo']).toEqual(locked.tools['api/echo']);
    expect(Object.keys(after.tools)).toEqual(['api/echo', 'api/slow']);

    const again = recording();
    await acceptTool(config, 'echo', again);
    expect(again.lines[0]).toContain('nothing to accept');
    expect(await readFile(path, 'utf8')).toContain('"api/echo"');
  });

  it('fails when the lock file the config names is missing', async () => {
    const config = await loaded({ lockFile: 'gateway.lock.json' });
    await expect(acceptTool(config, 'echo', recording())).rejects.toThrow('cannot be read (ENOENT)');
  });
});

describe('operatorName', () => {
  it('is the user the environment names, or "operator"', () => {
    expect(operatorName({ USER: 'alice' })).toBe('alice');
    expect(operatorName({ USERNAME: 'bob' })).toBe('bob');
    expect(operatorName({})).toBe('operator');
  });
});

/**
 * Reloading the served `mcp-ext-gateway` command (GW-49): saving its config
 * file changes what connected clients are offered, without a restart; a
 * config that fails is logged with its field and the one in force stays;
 * SIGHUP reloads too.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { serveV2 } from '../upstream/testing/servers.js';
import { closeAfter, closeAfterEach, compiledCli, tempDir } from './support.js';

closeAfterEach();

const cli = compiledCli();

/** The CLI serving `config`, with what it has written to stderr so far. */
async function served(config: string) {
  const child = spawn(process.execPath, [cli.path, '--config', config], { stdio: ['ignore', 'ignore', 'pipe'] });
  closeAfter(async () => {
    if (child.exitCode !== null) return;
    child.kill('SIGKILL');
    await once(child, 'exit');
  });
  const log = { text: '' };
  child.stderr.on('data', (chunk: Buffer) => (log.text += chunk.toString('utf8')));
  await expect.poll(() => /serving (http:\/\/\S+)/.exec(log.text)?.[1], { timeout: 30_000 }).toBeDefined();
  const url = new URL(/serving (http:\/\/\S+)/.exec(log.text)?.[1] ?? '');
  return { child, log, url };
}

/** Writes the file as editors do: a new file renamed over the old one. */
async function save(file: string, document: Record<string, unknown>): Promise<void> {
  await writeFile(`${file}.tmp`, stringify(document));
  await rename(`${file}.tmp`, file);
}

describe('mcp-ext-gateway reloads its config', () => {
  it('when the file is saved, and on SIGHUP; a config that fails changes nothing', async () => {
    const upstream = await serveV2();
    closeAfter(() => upstream.close());
    const file = join(await tempDir('cli-reload'), 'gateway.yaml');
    const config = (policy: Record<string, unknown>) => ({
      upstreams: { api: { url: upstream.url } },
      policy,
      listen: { port: 0 },
      identity: { anonymous: true },
      store: 'memory',
    });
    await save(file, config({}));
    const gateway = await served(file);
    const sdk = new Client({ name: 'cli-reload-test', version: '0.0.0' });
    await sdk.connect(new StreamableHTTPClientTransport(gateway.url));
    closeAfter(() => sdk.close());
    const names = async () => (await sdk.listTools()).tools.map((tool) => tool.name).sort();
    expect(await names()).toEqual(['echo', 'fail', 'slow']);

    await save(file, config({ fail: { hidden: true } }));
    await expect.poll(names, { timeout: 15_000 }).toEqual(['echo', 'slow']);
    expect(gateway.log.text.match(/reloaded /g)).toHaveLength(1);

    await save(file, config({ slow: { hidden: 'yes' } }));
    await expect
      .poll(() => gateway.log.text, { timeout: 15_000 })
      .toMatch(/kept the running config: .*policy\.slow\.hidden/);
    expect(await names()).toEqual(['echo', 'slow']);

    gateway.child.kill('SIGHUP');
    await expect.poll(() => gateway.log.text.match(/kept the running config/g)?.length, { timeout: 15_000 }).toBe(2);
    await save(file, config({}));
    await expect.poll(names, { timeout: 15_000 }).toEqual(['echo', 'fail', 'slow']);
    gateway.child.kill('SIGHUP');
    await expect.poll(() => gateway.log.text.match(/reloaded /g)?.length, { timeout: 15_000 }).toBe(3);
    expect(gateway.child.exitCode).toBeNull();
  });
});

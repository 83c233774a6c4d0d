import { silentLogger } from '@ext/core/kit';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { listen } from '@ext/core/sdk-v2/server';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { parseConfig } from './config/load.js';
import { createGateway } from './gateway.js';
import { resolveToolPolicy } from './policy/resolve.js';
import { binOf } from './upstream/testing/servers.js';

/** The YAML config the README opens with. */
function readmeConfig(): string {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
  const block = /```yaml\n([\s\S]*?)```/.exec(readme);
  if (block?.[1] === undefined) throw new Error('README.md has no yaml block');
  return block[1];
}

describe("the README's opening config", () => {
  it('is valid, and gates, dedupes and meters write_file as the README says', () => {
    const config = parseConfig(readmeConfig(), { source: 'README.md' });
    expect(Object.keys(config.upstreams)).toEqual(['files']);
    const policy = resolveToolPolicy({ config, tool: { name: 'write_file', annotations: { destructiveHint: true } } });
    expect(policy).toMatchObject({
      confirm: { risk: 'reversible', message: 'Write {path}?' },
      idempotent: true,
      cost: { unit: 'writes', quota: { limit: 20, windowSeconds: 60 } },
    });
    const read = resolveToolPolicy({ config, tool: { name: 'read_text_file', annotations: { readOnlyHint: true } } });
    expect(read).toMatchObject({ confirm: undefined, idempotent: false, cost: undefined });
  });

  it('serves the unmodified filesystem server: write_file offered as the policy says, at its risk', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'gateway-readme-'));
    const config = parseConfig(readmeConfig());
    const files = { command: process.execPath, args: [binOf('@modelcontextprotocol/server-filesystem'), folder] };
    const gateway = await createGateway({ ...config, upstreams: { files }, store: 'memory' }, { logger: silentLogger });
    const server = await listen(gateway.http, { port: 0 });
    const client = new Client({ name: 'readme', version: '1.0.0' });
    try {
      await client.connect(new StreamableHTTPClientTransport(server.url));
      const { tools } = await client.listTools();
      const write = tools.find((tool) => tool.name === 'write_file');
      expect(write?.annotations?.destructiveHint).toBe(false);
      expect(write?._meta?.['io.github.mcp-ext/confirmation']).toEqual({
        requires_confirmation: true,
        risk_level: 'reversible',
        confirmation_message: 'Write {path}?',
      });
      expect(tools.find((tool) => tool.name === 'read_text_file')?._meta?.['io.github.mcp-ext/confirmation']).toEqual({
        requires_confirmation: false,
        risk_level: 'safe',
      });
    } finally {
      await client.close();
      await server.close();
      await gateway.close();
      rmSync(folder, { recursive: true, force: true });
    }
  });
});

describe("the README's other configs", () => {
  it('are each a valid config, or part of one beside an upstream', () => {
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    const blocks = [...readme.matchAll(/```yaml\n([\s\S]*?)```/g)].map((match) => match[1] ?? '');
    expect(blocks.length).toBeGreaterThan(4);
    for (const [index, block] of blocks.entries()) {
      const part = parse(block) as Record<string, unknown>;
      const document = { upstreams: { files: { command: 'node' } }, ...part };
      expect(() =>
        parseConfig(JSON.stringify(document), { format: 'json', source: `README block ${String(index)}` }),
      ).not.toThrow();
    }
  });
});

import { ConfigurationError } from '@ext/core';
import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { resolveToolPolicy } from '../policy/resolve.js';
import { GatewayConfigError } from './errors.js';
import { defaultStorePath, loadConfig, parseConfig } from './load.js';
import { FULL_CONFIG, MANIFEST_FOLDER } from './test-configs.js';

async function rejection(promise: Promise<unknown>): Promise<GatewayConfigError> {
  try {
    await promise;
  } catch (error) {
    if (GatewayConfigError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a GatewayConfigError');
}

function failure(text: string, options: Parameters<typeof parseConfig>[1] = {}): GatewayConfigError {
  try {
    parseConfig(text, options);
  } catch (error) {
    if (GatewayConfigError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a GatewayConfigError');
}

describe('parseConfig', () => {
  it('reads a config using every field, as YAML and as JSON, to the same value', () => {
    expect(parseConfig(stringify(FULL_CONFIG))).toEqual(FULL_CONFIG);
    expect(parseConfig(JSON.stringify(FULL_CONFIG, null, 2), { format: 'json' })).toEqual(FULL_CONFIG);
    expect(parseConfig(JSON.stringify(FULL_CONFIG), { source: 'gateway.json' })).toEqual(FULL_CONFIG);
  });

  it('reads YAML anchors and merge keys, so policy entries can share parts', () => {
    const text = [
      'upstreams:',
      '  fs: { command: npx }',
      'policy:',
      '  write_*: &writes',
      '    confirm: true',
      '    scopes: [files:write]',
      '  delete_*:',
      '    <<: *writes',
      '    confirm: { risk: destructive }',
    ].join('\n');
    expect(parseConfig(text).policy).toEqual({
      'write_*': { confirm: true, scopes: ['files:write'] },
      'delete_*': { confirm: { risk: 'destructive' }, scopes: ['files:write'] },
    });
  });

  it('a policy key that matches no tool is not an error (tools are known only at run time)', () => {
    expect(
      parseConfig('upstreams: { fs: { command: npx } }\npolicy: { "no_such_*": { hidden: true } }').policy,
    ).toEqual({
      'no_such_*': { hidden: true },
    });
  });

  it('a YAML syntax error names its line', () => {
    const error = failure('upstreams:\n  fs:\n    command: [npx\n', { source: 'gateway.yaml' });
    expect(error.line).toBe(4);
    expect(error.field).toBe('');
    expect(error.message).toMatch(/^gateway\.yaml line 4: the document is not valid YAML: /);
  });

  it('a key given twice is an error at its line, in YAML and in JSON', () => {
    expect(failure('upstreams:\n  fs: { command: a }\n  fs: { command: b }\n').line).toBe(3);
    const json = failure('{\n  "upstreams": { "fs": { "command": "a" } },\n  "upstreams": {}\n}', { format: 'json' });
    expect(json.line).toBe(3);
    expect(json.field).toBe('upstreams');
    expect(json.message).toContain('upstreams appears twice in one object (lines 2 and 3)');
  });

  it('a JSON syntax error names its line', () => {
    const error = failure('{\n  "upstreams": {\n    "fs": { "command": "npx", }\n  }\n}', { source: 'gateway.json' });
    expect(error.line).toBe(3);
    expect(error.message).toMatch(/^gateway\.json line 3: the document is not valid JSON/);
  });

  it('several documents in one YAML file are an error', () => {
    expect(failure('upstreams: { fs: { command: a } }\n---\nname: x\n').message).toContain('multiple documents');
  });

  it('a field error names the field, its pointer and its line, and says what is allowed', () => {
    const error = failure('upstreams:\n  fs:\n    command: npx\n    timeoutMs: 0\n', { source: 'gateway.yaml' });
    expect(error).toBeInstanceOf(ConfigurationError);
    expect(error.code).toBe('INVALID_CONFIG');
    expect(error.field).toBe('upstreams.fs.timeoutMs');
    expect(error.pointer).toBe('/upstreams/fs/timeoutMs');
    expect(error.line).toBe(4);
    expect(error.source).toBe('gateway.yaml');
    expect(error.message).toBe(
      'gateway.yaml line 4: upstreams.fs.timeoutMs must be an integer from 1 to 2147483647, got 0',
    );
    expect(ConfigurationError.isInstance(error)).toBe(true);
  });

  it('an unknown field is named, with the fields allowed there', () => {
    const error = failure('upstreams:\n  fs: { command: npx, cwdir: /srv }\n');
    expect(error.field).toBe('upstreams.fs.cwdir');
    expect(error.message).toContain('is not a known field (known: command, args, env, cwd, timeoutMs');
    expect(failure('upstreams: { fs: { command: a } }\nlisten: { port: 1, tls: true }').field).toBe('listen.tls');
  });

  it('an upstream meant as stdio is checked as stdio, one meant as HTTP as HTTP', () => {
    expect(failure('upstreams:\n  fs: { args: [x] }').field).toBe('upstreams.fs.command');
    expect(failure('upstreams:\n  web: { url: "ftp://x" }').message).toContain(
      'upstreams.web.url must be an `http://` or `https://` URL',
    );
    expect(failure('upstreams:\n  both: { command: a, url: "http://x" }').message).toContain('not a mix of them');
  });

  it('values YAML can hold but JSON cannot are refused', () => {
    expect(failure('upstreams: { fs: { command: a } }\npolicy: { x: { cost: { units: .inf } } }').field).toBe(
      'policy.x.cost.units',
    );
    const binary = failure(
      'upstreams: { fs: { command: a } }\npolicy: { x: { compensate: { tool: y, arguments: { b: !!binary aGk= } } } }',
    );
    expect(binary.field).toBe('policy.x.compensate.arguments.b');
  });
});

describe('loadConfig', () => {
  let folder: string;

  beforeEach(async () => {
    folder = await mkdtemp(join(tmpdir(), 'gateway-config-'));
    await mkdir(join(folder, 'manifests'));
    await copyFile(new URL('github-server-manifest.json', MANIFEST_FOLDER), join(folder, 'manifests', 'github.json'));
  });

  afterEach(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  const write = async (name: string, text: string): Promise<string> => {
    const path = join(folder, name);
    await writeFile(path, text);
    return path;
  };

  it('resolves manifests and the SQLite file against the config file’s folder, and loads the manifests', async () => {
    const path = await write(
      'gateway.yaml',
      'upstreams:\n  gh: { command: npx }\nmanifests: [manifests/github.json]\nstore: { sqlite: data/gateway.db }\n',
    );
    const loaded = await loadConfig(path);
    expect(loaded.path).toBe(path);
    expect(loaded.config.manifests).toEqual([join(folder, 'manifests', 'github.json')]);
    expect(loaded.config.store).toEqual({ sqlite: join(folder, 'data', 'gateway.db') });
    expect(loaded.manifests).toHaveLength(1);
    expect(loaded.manifests[0]?.source).toBe('manifests/github.json');
    const policy = resolveToolPolicy({ ...loaded, tool: { name: 'delete_repo' } });
    expect(policy?.scopes).toEqual(['admin:repo']);
  });

  it('without a store, keeps state in a SQLite file beside the config, named after it (GW-33)', async () => {
    const yaml = await write('team.yaml', 'upstreams: { gh: { command: npx } }\n');
    expect((await loadConfig(yaml)).config.store).toEqual({ sqlite: join(folder, 'team.db') });
    const json = await write('other.json', JSON.stringify({ upstreams: { gh: { command: 'npx' } } }));
    expect((await loadConfig(json)).config.store).toEqual({ sqlite: join(folder, 'other.db') });
    expect(defaultStorePath(join(folder, 'sub', 'gateway.yml'))).toBe(join(folder, 'sub', 'gateway.db'));
  });

  it('keeps absolute paths, SQLite’s `:memory:` and other stores as they are', async () => {
    const manifest = join(folder, 'manifests', 'github.json');
    const json = await write(
      'gateway.json',
      JSON.stringify({ upstreams: { gh: { command: 'npx' } }, manifests: [manifest], store: { sqlite: ':memory:' } }),
    );
    const loaded = await loadConfig(json);
    expect(loaded.config.manifests).toEqual([manifest]);
    expect(loaded.config.store).toEqual({ sqlite: ':memory:' });
    const redis = await write(
      'redis.yml',
      'upstreams: { gh: { command: npx } }\nstore: { redis: "redis://127.0.0.1:6379" }',
    );
    expect((await loadConfig(redis)).config.store).toEqual({ redis: 'redis://127.0.0.1:6379' });
  });

  it('a manifest that cannot be read is an error of the config field naming it, at its line', async () => {
    const path = await write(
      'gateway.yaml',
      'upstreams: { gh: { command: npx } }\nmanifests:\n  - manifests/github.json\n  - missing.json\n',
    );
    const error = await rejection(loadConfig(path));
    expect(error.field).toBe('manifests[1]');
    expect(error.source).toBe(path);
    expect(error.line).toBe(4);
    expect(error.message).toContain('missing.json (ENOENT)');
  });

  it('a bad manifest is an error naming the manifest’s field, with the manifest as its source', async () => {
    await write(
      'bad.json',
      '{\n  "manifest_version": "0.1.0",\n  "server": { "name": "x", "version": "1.0.0" },\n  "tools": []\n}',
    );
    const path = await write('gateway.yaml', 'upstreams: { gh: { command: npx } }\nmanifests: [bad.json]\n');
    const error = await rejection(loadConfig(path));
    expect(error.field).toBe('server.mcp_spec_version');
    expect(error.source).toBe('bad.json');
    expect(error.line).toBe(3);
    expect(error.message).toBe('bad.json line 3: server.mcp_spec_version is required');
  });

  it('a file that is missing, or of another kind, is an error naming it', async () => {
    const missing = await rejection(loadConfig(join(folder, 'nope.yaml')));
    expect(missing.message).toContain('cannot be read (ENOENT)');
    const toml = await rejection(loadConfig(await write('gateway.toml', 'x = 1')));
    expect(toml.message).toContain('must end in .yaml, .yml or .json');
  });
});

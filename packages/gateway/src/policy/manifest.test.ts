import { describe, expect, it } from 'vitest';
import { GatewayConfigError } from '../config/errors.js';
import { copy, readSeedManifest, SEED_MANIFEST_FILES, withValue } from '../config/test-configs.js';
import { declaredScopes, manifestPolicy } from './manifest.js';

const github = readSeedManifest('github-server-manifest.json');

function failure(document: unknown): GatewayConfigError {
  try {
    manifestPolicy(document, { source: 'github.json' });
  } catch (error) {
    if (GatewayConfigError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a GatewayConfigError');
}

describe('manifestPolicy', () => {
  it.each(SEED_MANIFEST_FILES)('reads the seed manifest %s', (file) => {
    const policy = manifestPolicy(readSeedManifest(file), { source: file });
    expect(policy.tools.size).toBe(5);
    expect(policy.scopes.length).toBeGreaterThan(0);
    expect(policy.source).toBe(file);
  });

  it('turns confirmation, risk and message into `confirm`', () => {
    const tools = manifestPolicy(github).tools;
    expect(tools.get('delete_repo')?.confirm).toEqual({
      risk: 'destructive',
      message: expect.stringContaining('PERMANENTLY DELETE') as unknown,
    });
    expect(tools.get('merge_pr')?.confirm).toMatchObject({ risk: 'reversible' });
    // `requires_confirmation: false` is said, not left out: it overrides the annotation defaults.
    expect(tools.get('search_issues')?.confirm).toBe(false);
  });

  it('turns cost, latency and the rate limits into `cost`, and required scopes into `scopes`', () => {
    const tools = manifestPolicy(github).tools;
    expect(tools.get('search_code')).toMatchObject({
      cost: {
        category: 'metered',
        units: 1,
        unit: 'search API calls',
        latency: 'seconds',
        rateLimit: { perMinute: 30, perDay: 5000 },
      },
      scopes: ['read:code'],
    });
    expect(tools.get('search_issues')?.cost).toEqual({
      category: 'free',
      latency: 'instant',
      rateLimit: { perMinute: 30, perDay: 5000 },
    });
  });

  it('a tool that declares no cost is free, and one without limits has no cost entry', () => {
    const document = {
      manifest_version: '0.1.0',
      server: { name: 's', version: '1.0.0', mcp_spec_version: '2025-11-25' },
      tools: [
        { name: 'slow', description: 'd', input_schema: {}, latency: 'minutes' },
        { name: 'plain', description: 'd', input_schema: {}, input_types: ['image/png'], max_input_size_bytes: 10 },
      ],
    };
    const tools = manifestPolicy(document).tools;
    expect(tools.get('slow')).toEqual({ cost: { category: 'free', latency: 'minutes' } });
    expect(tools.get('plain')).toEqual({ multimodal: { mimeTypes: ['image/png'], maxInputBytes: 10 } });
  });

  it('declares the auth scopes with what they grant', () => {
    const policy = manifestPolicy(github);
    expect(policy.server).toBe('github-mcp-server');
    expect(policy.scopes).toHaveLength(8);
    expect(policy.scopes[0]).toEqual({
      name: 'read:repos',
      description: 'List and read repository metadata',
      grants: ['list_repos', 'get_repo'],
    });
  });

  it.each([
    [['tools', 1, 'risk_level'], 'fatal', 'tools[1].risk_level'],
    [['tools', 0, 'name'], 'Search Issues', 'tools[0].name'],
    [['tools', 0, 'required_scopes', 0], 'read issues', 'tools[0].required_scopes[0]'],
    [['tools', 2, 'confirmation_message'], '', 'tools[2].confirmation_message'],
    [['tools', 4, 'cost', 'estimated_units'], -1, 'tools[4].cost.estimated_units'],
    [['tools', 4, 'cost', 'category'], 'pricey', 'tools[4].cost.category'],
    [['tools', 0, 'latency'], 'hours', 'tools[0].latency'],
    [['auth', 'scopes', 0, 'name'], 'has space', 'auth.scopes[0].name'],
    [['rate_limits', 'requests_per_minute'], 0, 'rate_limits.requests_per_minute'],
    [['manifest_version'], '2.0.0', 'manifest_version'],
    [['tools'], 'none', 'tools'],
  ])('names the bad field %j', (path, value, field) => {
    const error = failure(withValue(github, path, value));
    expect(error.field).toBe(field);
    expect(error.source).toBe('github.json');
    expect(error.message).toContain(`github.json: ${field} `);
  });

  it('names a missing field, and a tool named twice', () => {
    const withoutServer = copy(github) as Record<string, unknown>;
    delete withoutServer.server;
    expect(failure(withoutServer).field).toBe('server');
    const twice = withValue(github, ['tools', 3, 'name'], 'search_issues');
    const error = failure(twice);
    expect(error.field).toBe('tools[3].name');
    expect(error.message).toContain('repeats the tool "search_issues"');
  });
});

describe('declaredScopes', () => {
  it('lists each scope once, the later manifest winning', () => {
    const first = manifestPolicy(github);
    const second = manifestPolicy(withValue(github, ['auth', 'scopes', 0, 'description'], 'Changed'));
    const scopes = declaredScopes([first, second]);
    expect(scopes).toHaveLength(8);
    expect(scopes.find((scope) => scope.name === 'read:repos')?.description).toBe('Changed');
  });
});

import { describe, expect, it } from 'vitest';
import { parseConfig } from '../config/load.js';
import { readSeedManifest } from '../config/test-configs.js';
import { manifestPolicy } from './manifest.js';
import { mergeToolPolicies, resolveToolPolicy, type UpstreamToolInfo } from './resolve.js';

const config = (yaml: string) => parseConfig(`upstreams:\n  fs: { command: npx }\n${yaml}`);
const github = manifestPolicy(readSeedManifest('github-server-manifest.json'));

function resolve(yaml: string, tool: UpstreamToolInfo) {
  return resolveToolPolicy({ config: config(yaml), manifests: [github], tool });
}

describe('resolveToolPolicy: the safe defaults', () => {
  it('confirms a tool annotated destructive, at risk `destructive`', () => {
    const policy = resolve('', { name: 'rm', annotations: { destructiveHint: true } });
    expect(policy?.confirm).toEqual({ risk: 'destructive', message: undefined });
    expect(policy?.idempotent).toBe(true);
  });

  it('does not when defaults.confirmDestructive is false', () => {
    const policy = resolve('defaults: { confirmDestructive: false }', {
      name: 'rm',
      annotations: { destructiveHint: true },
    });
    expect(policy?.confirm).toBeUndefined();
  });

  it('a read-only tool needs no confirmation and is not idempotent-keyed, even if also marked destructive', () => {
    const policy = resolve('', { name: 'ls', annotations: { readOnlyHint: true, destructiveHint: true } });
    expect(policy?.confirm).toBeUndefined();
    expect(policy?.idempotent).toBe(false);
  });

  it('an unannotated tool: no confirmation, idempotent, nothing else applied', () => {
    expect(resolve('', { name: 'plain' })).toEqual({
      name: 'plain',
      exposedName: 'plain',
      confirm: undefined,
      scopes: [],
      cost: undefined,
      idempotent: true,
      intent: [],
      provenance: undefined,
      multimodal: undefined,
      compensate: undefined,
      sources: [],
    });
  });

  it('the policy overrides the annotations both ways', () => {
    const yaml = 'policy:\n  rm: { confirm: false }\n  ls: { confirm: true, idempotent: true }\n';
    expect(resolve(yaml, { name: 'rm', annotations: { destructiveHint: true } })?.confirm).toBeUndefined();
    const ls = resolve(yaml, { name: 'ls', annotations: { readOnlyHint: true } });
    expect(ls?.confirm).toEqual({ risk: 'destructive', message: undefined });
    expect(ls?.idempotent).toBe(true);
  });
});

describe('resolveToolPolicy: entries in order', () => {
  it('every matching entry applies in file order, later ones winning field by field', () => {
    const yaml = [
      'policy:',
      '  "*": { cost: { units: 3, unit: calls }, scopes: [base], confirm: { message: "Sure?", risk: safe } }',
      '  "write_*": { cost: { quota: { limit: 10, windowSeconds: 60 } }, confirm: { risk: reversible } }',
      '  "write_file": { scopes: [files:write] }',
      '  "read_*": { hidden: true }',
    ].join('\n');
    const policy = resolve(yaml, { name: 'write_file' });
    expect(policy?.cost).toEqual({
      units: 3,
      unit: 'calls',
      category: 'metered',
      latency: undefined,
      quota: { limit: 10, windowSeconds: 60 },
      rateLimit: undefined,
    });
    expect(policy?.confirm).toEqual({ risk: 'reversible', message: 'Sure?' });
    expect(policy?.scopes).toEqual(['files:write']);
    expect(policy?.sources).toEqual(['policy["*"]', 'policy["write_*"]', 'policy["write_file"]']);
  });

  it('`hidden: true` leaves the tool out; a later entry can bring it back', () => {
    expect(resolve('policy:\n  "*": { hidden: true }', { name: 'x' })).toBeUndefined();
    expect(resolve('policy:\n  "*": { hidden: true }\n  x: { hidden: false }', { name: 'x' })).toBeDefined();
    expect(resolve('policy:\n  x: { hidden: false }\n  "*": { hidden: true }', { name: 'x' })).toBeUndefined();
  });

  it('matches the exposed name and the bare upstream name', () => {
    const yaml =
      'policy:\n  "fs__*": { scopes: [a] }\n  "read_file": { provenance: { source: disk } }\n  "web__*": { hidden: true }';
    const policy = resolve(yaml, { name: 'read_file', exposedName: 'fs__read_file' });
    expect(policy?.exposedName).toBe('fs__read_file');
    expect(policy?.scopes).toEqual(['a']);
    expect(policy?.provenance).toEqual({ source: 'disk' });
  });

  it('manifest entries come first, by the upstream tool’s own name; the config overrides them', () => {
    const fromManifest = resolve('', { name: 'delete_repo', exposedName: 'gh__delete_repo' });
    expect(fromManifest?.confirm).toMatchObject({ risk: 'destructive' });
    expect(fromManifest?.scopes).toEqual(['admin:repo']);
    expect(fromManifest?.cost).toMatchObject({ category: 'free', latency: 'seconds', rateLimit: { perMinute: 30 } });
    expect(fromManifest?.sources).toEqual(['manifest github-mcp-server']);

    const overridden = resolve(
      'policy:\n  "gh__delete_*": { confirm: { message: "Really?" }, cost: { rateLimit: { perMinute: 1 } } }',
      {
        name: 'delete_repo',
        exposedName: 'gh__delete_repo',
      },
    );
    expect(overridden?.confirm).toEqual({ risk: 'destructive', message: 'Really?' });
    expect(overridden?.cost?.rateLimit).toEqual({ perMinute: 1, perDay: 5000 });
  });

  it('a manifest saying no confirmation wins over a destructive annotation', () => {
    const policy = resolve('', { name: 'search_issues', annotations: { destructiveHint: true } });
    expect(policy?.confirm).toBeUndefined();
  });

  it('compiles intent patterns ignoring case, and keeps the compensation', () => {
    const yaml = [
      'policy:',
      '  write_file:',
      '    intent: [{ pattern: "^save", reason: Saves }]',
      '    compensate: { tool: delete_file, arguments: { path: $args.path } }',
    ].join('\n');
    const policy = resolve(yaml, { name: 'write_file' });
    expect(policy?.intent[0]?.pattern?.test('SAVE it')).toBe(true);
    expect(policy?.intent[0]).toMatchObject({ keywords: [], reason: 'Saves', from: undefined });
    expect(policy?.compensate).toEqual({ tool: 'delete_file', arguments: { path: '$args.path' } });
  });
});

describe('mergeToolPolicies', () => {
  it('`confirm: false` after an object turns confirmation off; `true` after one keeps its fields', () => {
    expect(mergeToolPolicies({ confirm: { risk: 'safe' } }, { confirm: false }).confirm).toBe(false);
    expect(mergeToolPolicies({ confirm: { risk: 'safe' } }, { confirm: true }).confirm).toEqual({ risk: 'safe' });
    expect(mergeToolPolicies({ confirm: false }, { confirm: { message: 'm' } }).confirm).toEqual({ message: 'm' });
  });

  it('replaces lists and compensations whole, merges media limits', () => {
    const merged = mergeToolPolicies(
      { scopes: ['a', 'b'], multimodal: { maxInputBytes: 5 }, compensate: { tool: 'x', arguments: { a: 1 } } },
      { scopes: ['c'], multimodal: { mimeTypes: ['image/png'] }, compensate: { tool: 'y', arguments: { b: 2 } } },
    );
    expect(merged).toEqual({
      scopes: ['c'],
      multimodal: { maxInputBytes: 5, mimeTypes: ['image/png'] },
      compensate: { tool: 'y', arguments: { b: 2 } },
    });
  });
});

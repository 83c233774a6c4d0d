import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { GatewayConfig } from '../config/schema.js';
import { policyVersion, reloadPlan, RESTART_ONLY_FIELDS } from './plan.js';

const base: GatewayConfig = {
  upstreams: { a: { url: 'http://127.0.0.1:1/mcp' }, b: { command: 'node', args: ['b.js'] } },
  policy: { '*': { confirm: true } },
  store: 'memory',
};

describe('reloadPlan', () => {
  it('sorts upstreams into added, removed, changed and kept', () => {
    const next: GatewayConfig = {
      ...base,
      upstreams: { b: { command: 'node', args: ['b.js', '--v2'] }, c: { url: 'http://127.0.0.1:2/mcp' } },
    };
    expect(reloadPlan(base, next)).toEqual({
      restartFields: [],
      added: ['c'],
      removed: ['a'],
      changed: ['b'],
      kept: [],
    });
  });

  it('keeps an upstream whose settings are the same, whatever the order of their keys', () => {
    const next: GatewayConfig = {
      ...base,
      upstreams: { b: { args: ['b.js'], command: 'node' }, a: base.upstreams['a']! },
    };
    expect(reloadPlan(base, next)).toMatchObject({ kept: ['b', 'a'], changed: [], added: [], removed: [] });
  });

  it.each(RESTART_ONLY_FIELDS)('names %s when it changes', (field) => {
    const changes: Record<(typeof RESTART_ONLY_FIELDS)[number], Partial<GatewayConfig>> = {
      name: { name: 'other' },
      store: { store: { sqlite: 'state.db' } },
      listen: { listen: { port: 9 } },
      identity: { identity: { anonymous: true } },
      redact: { redact: { results: false } },
      approvals: { approvals: {} },
      metrics: { metrics: { listen: { port: 9464 } } },
    };
    expect(reloadPlan(base, { ...base, ...changes[field] }).restartFields).toEqual([field]);
  });

  it('a policy change alone needs no restart', () => {
    expect(reloadPlan(base, { ...base, policy: { '*': { confirm: false } } }).restartFields).toEqual([]);
  });
});

describe('policyVersion', () => {
  it('changes with the policy and the manifests, not with restart-only fields or key order', () => {
    const version = policyVersion(base, []);
    expect(version).toMatch(/^[0-9a-f]{16}$/);
    expect(policyVersion({ ...base, policy: { '*': { confirm: false } } }, [])).not.toBe(version);
    expect(policyVersion({ ...base, listen: { port: 9 }, $schema: 'x' }, [])).toBe(version);
    expect(policyVersion({ store: 'memory', policy: base.policy, upstreams: base.upstreams }, [])).toBe(version);
    const manifest = { server: 'm', source: undefined, tools: new Map([['t', { confirm: true }]]), scopes: [] };
    expect(policyVersion(base, [manifest])).not.toBe(version);
  });

  it('two different policies never share a version (property)', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (a, b) => {
        fc.pre(a !== b);
        const config = (source: string): GatewayConfig => ({ ...base, policy: { '*': { provenance: { source } } } });
        return policyVersion(config(a), []) !== policyVersion(config(b), []);
      }),
    );
  });
});

// What the config check says of `metrics` that the schema cannot (GW-36): who could read them, and where.
import { describe, expect, it } from 'vitest';
import { GatewayConfigError } from './errors.js';
import { parseConfig } from './load.js';

const BASE = { upstreams: { files: { command: 'node', args: ['server.js'] } }, store: 'memory' };

function load(document: Record<string, unknown>) {
  return parseConfig(JSON.stringify({ ...BASE, ...document }), { format: 'json', source: 'gateway.json' });
}

function refusal(document: Record<string, unknown>): GatewayConfigError {
  try {
    load(document);
  } catch (error) {
    if (GatewayConfigError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected the config to be refused');
}

describe('metrics in the config', () => {
  it('beside the MCP endpoint need an identity that can name an operator', () => {
    const error = refusal({ identity: { anonymous: true }, metrics: {} });
    expect(error.field).toBe('metrics');
    expect(error.message).toContain(
      'configure identity.apiKeys or identity.oauth, or serve it apart with metrics.listen',
    );
    expect(refusal({ identity: { apiKeys: {} }, metrics: {} }).field).toBe('metrics');
    expect(load({ identity: { apiKeys: { 'ops-key-0123456789ab': 'ops' } }, metrics: {} }).metrics).toEqual({});
  });

  it('apart from it need no identity, and a port of their own', () => {
    const apart = { identity: { anonymous: true }, metrics: { listen: { port: 9464 } } };
    expect(load(apart).metrics).toEqual({ listen: { port: 9464 } });
    const clash = refusal({
      listen: { port: 9464 },
      identity: { anonymous: true },
      metrics: { listen: { port: 9464 } },
    });
    expect([clash.field, clash.message]).toEqual([
      'metrics.listen.port',
      expect.stringContaining("the MCP endpoint's port"),
    ]);
  });

  it('beside the MCP endpoint need a path nothing else serves there', () => {
    const identity = { apiKeys: { 'ops-key-0123456789ab': 'ops' } };
    for (const [path, owner] of [
      ['/mcp', 'the MCP endpoint'],
      ['/healthz', 'the liveness probe'],
      ['/readyz', 'the readiness probe'],
    ] as const) {
      const error = refusal({ identity, metrics: { path } });
      expect([error.field, error.message]).toEqual([
        'metrics.path',
        expect.stringContaining(`where ${owner} is served`),
      ]);
    }
    expect(refusal({ identity, listen: { path: '/rpc' }, metrics: { path: '/rpc' } }).field).toBe('metrics.path');
    expect(load({ identity, listen: { path: '/rpc' }, metrics: { path: '/mcp' } }).metrics).toEqual({ path: '/mcp' });
  });
});

import { ConfigurationError } from '@ext/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseRecommendRequest } from './request.js';
import { discoveryServer, type DiscoveryPeer } from './server.js';

const configError = (make: () => unknown): string => {
  try {
    make();
  } catch (error) {
    if (ConfigurationError.isInstance(error)) return error.message;
    throw error;
  }
  throw new Error('no ConfigurationError thrown');
};

describe('discoveryServer options', () => {
  it('refuses bad options at the factory, naming the option', () => {
    expect(configError(() => discoveryServer({ maxResults: 0 }))).toMatch(/"maxResults"/);
    expect(configError(() => discoveryServer({ defaultResults: 1.5 }))).toMatch(/"defaultResults"/);
    expect(configError(() => discoveryServer({ index: {} as never }))).toMatch(/"index"/);
    const peer: DiscoveryPeer = { name: 'com.example/a', description: 'A' };
    expect(configError(() => discoveryServer({ peers: [peer, { ...peer, url: 'http://a.example/mcp' }] }))).toMatch(
      /peers\[1\]\.url must be an https URL/,
    );
    expect(configError(() => discoveryServer({ peers: [{ ...peer, description: ' ' }] }))).toMatch(
      /peers\[0\]\.description/,
    );
    expect(configError(() => discoveryServer({ peers: [{ ...peer, name: '' }] }))).toMatch(/peers\[0\]\.name/);
    expect(configError(() => discoveryServer({ peers: [{ ...peer, registryUrl: 'nope' }] }))).toMatch(
      /peers\[0\]\.registryUrl/,
    );
    expect(configError(() => discoveryServer({ peers: [{ ...peer, transport: 'ws' as never }] }))).toMatch(
      /peers\[0\]\.transport/,
    );
    expect(configError(() => discoveryServer({ peers: [peer, peer] }))).toMatch(/same name/);
  });

  it('DISC-1: has no middleware and serves one method', () => {
    const half = discoveryServer();
    expect(half.middleware).toBeUndefined();
    expect(Object.keys(half.methods ?? {})).toEqual(['recommend']);
    expect(half.settings).toEqual({ version: '1.0', max_results: 20 });
  });
});

describe('parseRecommendRequest (DISC-3)', () => {
  it('reads a valid request, ignoring _meta and unknown fields', () => {
    expect(
      parseRecommendRequest({
        capability_needed: 'maps',
        max_results: 2,
        min_confidence: 'low',
        extra: true,
        _meta: { x: 1 },
      }),
    ).toEqual({
      ok: true,
      value: { capability_needed: 'maps', max_results: 2, min_confidence: 'low' },
    });
  });

  it('never throws, and names the first bad field with its JSON pointer', () => {
    fc.assert(
      fc.property(fc.anything(), (input) => {
        const parsed = parseRecommendRequest(input);
        if (!parsed.ok) {
          expect(['capability_needed', 'max_results', 'min_confidence']).toContain(parsed.field);
          expect(parsed.pointer).toBe(`/${parsed.field}`);
          expect(parsed.message).toContain(parsed.field);
        }
      }),
    );
    fc.assert(
      fc.property(
        fc.record({
          capability_needed: fc.string({ minLength: 1, maxLength: 256 }).filter((s) => /\S/.test(s)),
          max_results: fc.integer({ min: 1, max: 100 }),
        }),
        (input) => {
          expect(parseRecommendRequest(input).ok).toBe(true);
        },
      ),
    );
  });
});

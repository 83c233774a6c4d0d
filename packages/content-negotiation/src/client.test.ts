import { ConfigurationError, type OutgoingCall } from '@ext/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { capabilityFeatures, contentNegotiationClient, getAppliedFeatures, overrideFeatures } from './client.js';
import { CONTENT_NEGOTIATION_DRAFT_ID, CONTENT_NEGOTIATION_ID } from './schema.js';

const ID = CONTENT_NEGOTIATION_ID;

describe('contentNegotiationClient', () => {
  it('advertises the canonical features under this project’s identifier only (CN-1, CN-2)', () => {
    const half = contentNegotiationClient({ features: ['Agent', 'FORMAT=JSON', 'x-Theme=Dark'] });
    expect(half).toMatchObject({ side: 'client', name: '@ext/content-negotiation', ids: [ID] });
    expect(half.settings).toEqual({ version: '1.0', features: ['agent', 'format=json', 'x-theme=Dark'] });
    expect(contentNegotiationClient().settings).toEqual({ version: '1.0', features: [] });
  });

  it('mirrors declared MCP capabilities as tags, after the declared ones (CN-16)', () => {
    const capabilities = { sampling: {}, elicitation: { form: {} }, roots: { listChanged: true }, experimental: {} };
    expect(capabilityFeatures(capabilities)).toEqual(['sampling', 'elicitation', 'roots']);
    expect(contentNegotiationClient({ features: ['human', 'roots'], capabilities }).settings.features).toEqual([
      'human',
      'roots',
      'sampling',
      'elicitation',
    ]);
  });

  it.each([
    [{ features: ['@#$%'] }, /"@#\$%"/],
    [{ features: ['format==json'] }, /format==json/],
    [{ features: ['agent', 'human'] }, /exclude each other/],
    [{ features: ['format=json', 'format=markdown'] }, /more than one value/],
    [{ features: 'agent' }, /must be an array/],
    [{ features: ['!sampling'], capabilities: { sampling: {} } }, /negates "sampling"/],
    [{ capabilities: 'sampling' }, /capabilities/],
    [{ feature: ['agent'] }, /unknown option "feature"/],
  ])('refuses %o when the factory is called, naming the problem', (options, message) => {
    expect(() => contentNegotiationClient(options as never)).toThrow(ConfigurationError);
    expect(() => contentNegotiationClient(options as never)).toThrow(message);
  });

  it('keeps its per-call data off the wire when the server does not speak the extension', () => {
    const half = contentNegotiationClient({ features: ['agent'] });
    const call: OutgoingCall = { name: 't', arguments: {}, meta: { ...overrideFeatures(['human']), other: 1 } };
    void half.prepareCall?.(call, undefined);
    expect(call.meta).toEqual({ other: 1 });
    const kept: OutgoingCall = { name: 't', arguments: {}, meta: overrideFeatures(['human']) };
    void half.prepareCall?.(kept, { id: ID, settings: { version: '1.0' } });
    expect(kept.meta).toEqual({ [ID]: { features: ['human'] } });
  });
});

describe('overrideFeatures', () => {
  it('builds params._meta under the identifier, canonical (CN-9)', () => {
    expect(overrideFeatures(['FORMAT=markdown', 'verbosity=compact'])).toEqual({
      [ID]: { features: ['format=markdown', 'verbosity=compact'] },
    });
    expect(() => overrideFeatures(['format=xml'])).toThrow(ConfigurationError);
  });
});

describe('getAppliedFeatures', () => {
  it('reads the echo under either identifier', () => {
    expect(
      getAppliedFeatures({ _meta: { [ID]: { features: ['format=markdown', 'verbosity=compact', 'sampling'] } } }),
    ).toEqual({
      features: ['format=markdown', 'verbosity=compact', 'sampling'],
      format: 'markdown',
      verbosity: 'compact',
    });
    expect(getAppliedFeatures({ _meta: { [CONTENT_NEGOTIATION_DRAFT_ID]: { features: [] } } })).toEqual({
      features: [],
      format: undefined,
      verbosity: undefined,
    });
  });

  it('returns undefined for anything that is not a valid echo, and never throws', () => {
    expect(getAppliedFeatures(undefined)).toBeUndefined();
    expect(getAppliedFeatures({})).toBeUndefined();
    expect(getAppliedFeatures({ _meta: { [ID]: { features: 'format=json' } } })).toBeUndefined();
    fc.assert(
      fc.property(fc.anything(), (echo) => {
        const applied = getAppliedFeatures({ _meta: { [ID]: echo } });
        if (applied !== undefined) expect(Array.isArray(applied.features)).toBe(true);
      }),
    );
  });
});
